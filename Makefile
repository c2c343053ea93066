# SPDX-License-Identifier: GPL-2.0
#
# vroce: build, install, test.
#
#   make                 build vroce.ko for KDIR (see below)
#   make KDIR=/path      build against another kernel tree
#   make W=1 / C=1       extra warnings / sparse, passed to kbuild
#   make install         install into /lib/modules/<release>/extra, and
#                        vroce-vm with its man page (DESTDIR=, PREFIX=)
#   make demo            set up, boot a VM, create vroce0, run verbs tools
#   make check           set up and run every test scenario on 6.1 and 6.12,
#                        the robustness set on the debug kernel (built once)
#   make check-debug     build the debug kernel (KUnit, KASAN, lockdep...;
#                        ci/debug-kernel.sh) and run every scenario on it
#   make lint            checkpatch --strict on the module sources
#   make bench           vroce against rdma_rxe in one VM boot: loopback
#                        bandwidth, message rate, latency; medians, ratios
#
# KDIR defaults to the running kernel's build tree when it exists, else the
# newest Debian 6.12 headers that ci/setup.sh installs.  Objects go to
# build/<kernel release>/, so builds for several kernels coexist.

SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CACHE ?= $(or $(VROCE_CACHE),$(HOME)/.cache/vroce)

RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
NEWEST_612 := $(lastword $(sort $(wildcard /usr/src/linux-headers-6.12.*-amd64)))
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR),$(NEWEST_612))

# The release the kernel reports (uname -r); Debian's 6.1 headers carry the
# upstream version in kernel.release, so read the real one.
KREL = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
# BUILDDIR: where per-kernel build trees go (several builders at once each
# take their own).
BUILDDIR ?= $(SRC)/build
BUILD = $(BUILDDIR)/$(KREL)

MODULE_SRCS := Kbuild $(wildcard drivers/vroce/*.[ch] drivers/vroce/cc/*.[ch] \
	drivers/vroce/probes/*)

.PHONY: all modules modules-all install install-tools clean demo check \
	check-debug lint setup bench

all: modules

modules:
	@test -n "$(KDIR)" -a -f "$(KDIR)/Makefile" || \
		{ echo "no kernel tree: run ci/setup.sh or pass KDIR=" >&2; exit 1; }
	@mkdir -p $(BUILD)
	@rsync -a --delete $(SRC)/Kbuild $(SRC)/drivers $(SRC)/uapi $(BUILD)/
	@mkdir -p $(BUILD)/generated
	@$(SRC)/drivers/vroce/probes/run-probes.sh $(KDIR) \
		$(SRC)/drivers/vroce/probes $(BUILD)/generated/compat-generated.h
	$(MAKE) -C $(KDIR) M=$(BUILD) modules
	@[ "$(BUILDDIR)" != "$(SRC)/build" ] || ln -sf build/$(KREL)/vroce.ko $(SRC)/vroce.ko
	@echo "built $(BUILD)/vroce.ko"

# Both kernels the test suite boots (names resolved by ci/setup.sh).
modules-all:
	@. $(CACHE)/kernels.env && \
	for k in $$VROCE_K61 $$VROCE_K612; do \
		$(MAKE) --no-print-directory modules KDIR=/usr/src/linux-headers-$$k || exit 1; \
	done

# make install [DESTDIR=dir] [PREFIX=/usr/local]: the module for KDIR into
# DESTDIR/lib/modules/<release>/extra (depmod only for the system itself:
# a staging directory's packager runs it on the target), and vroce-vm: the
# harness files it needs and every vroce.ko in build/ (make modules-all
# builds them for the test kernels) under PREFIX/lib/vroce, the command in
# PREFIX/bin, its man page in PREFIX/share/man/man1; vroce-up (devices and
# their saved settings at boot) in PREFIX/bin with its systemd unit.
PREFIX ?= /usr/local
TOOL_FILES := ci/vroce-vm ci/setup.sh ci/debug-kernel.sh ci/debug-kernel.config \
	ci/vm/lib.sh ci/vm/init ci/vm/initramfs.sh \
	ci/guest/stage2.sh ci/guest/klog.sh ci/guest/hosts.sh \
	userspace-tests/lib/common.sh userspace-tests/lib/vroce.sh \
	userspace-tests/lib/cc.sh userspace-tests/lib/pair.sh

install: modules install-tools
	$(MAKE) -C $(KDIR) M=$(BUILD) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=extra modules_install
	$(if $(DESTDIR),,depmod -a $(KREL))

install-tools:
	@set -e; lib=$(DESTDIR)$(PREFIX)/lib/vroce; \
	for f in $(TOOL_FILES); do \
		install -D -m $$(test -x $(SRC)/$$f && echo 755 || echo 644) \
			$(SRC)/$$f $$lib/$$f; \
	done; \
	for ko in $(BUILDDIR)/*/vroce.ko; do \
		[ ! -f "$$ko" ] || install -D -m 644 "$$ko" \
			"$$lib/build/$$(basename $$(dirname $$ko))/vroce.ko"; \
	done; \
	mkdir -p $(DESTDIR)$(PREFIX)/bin; \
	ln -sf ../lib/vroce/ci/vroce-vm $(DESTDIR)$(PREFIX)/bin/vroce-vm; \
	install -m 755 $(SRC)/ci/vroce-up $(DESTDIR)$(PREFIX)/bin/vroce-up; \
	mkdir -p $(DESTDIR)$(PREFIX)/lib/systemd/system; \
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|' $(SRC)/ci/vroce-up@.service \
		>$(DESTDIR)$(PREFIX)/lib/systemd/system/vroce-up@.service; \
	install -D -m 644 $(SRC)/Documentation/vroce-vm.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/vroce-vm.1; \
	echo "installed vroce-vm under $(DESTDIR)$(PREFIX)"

setup:
	$(SRC)/ci/setup.sh

demo: setup
	$(MAKE) --no-print-directory modules-all
	$(SRC)/ci/demo.sh

# ci/check.sh: set-up, builds, the model's tests, then ci/run-tests.sh;
# it times each part.
check:
	$(SRC)/ci/check.sh

# Every scenario on the debug kernel (check runs only its robustness set).
# The module and vroce_ktest.ko are built against its tree, vroce_test.ko
# (the KUnit suites) with them.
check-debug: setup
	$(SRC)/ci/debug-kernel.sh
	$(MAKE) --no-print-directory modules \
		KDIR=$$($(SRC)/ci/debug-kernel.sh --print-kdir)
	$(MAKE) --no-print-directory -C $(SRC)/userspace-tests verbs kmod \
		KDIRS=$$($(SRC)/ci/debug-kernel.sh --print-kdir)
	$(SRC)/ci/run-tests.sh --kernels debug

lint:
	$(SRC)/ci/lint.sh

bench: setup
	$(MAKE) --no-print-directory modules-all
	$(SRC)/ci/bench.sh

clean:
	rm -rf $(SRC)/build $(SRC)/vroce.ko
	$(MAKE) -C $(SRC)/userspace-tests clean
