#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vroce-up, the real-host helper (issue 13), as a boot script uses it: it
# loads the module and makes a device on eth0 with the settings saved for
# eth0 (ib device's cc/ and tc/, the netdev's qos/), again without harm
# on a second run, reports a setting the device refuses (and keeps the
# device), takes the device down, and refuses while rdma_rxe holds the
# ABI.  The module is the tree's (--module): the guest has no installed
# vroce.
. "$VROCE_SRC/userspace-tests/lib/common.sh"
. "$VROCE_SRC/userspace-tests/lib/vroce.sh"

UP=$VROCE_SRC/ci/vroce-up
[ -f "${VROCE_KO:-}" ] || vt_skip "no module at ${VROCE_KO:-?} (not built)"
conf=$PWD/conf
mkdir -p "$conf"
cat >"$conf/eth0.conf" <<'EOT'
# congestion control on, a 1 Gb/s port
cc/enable 1
cc/line_rate 1000
tc/1/traffic_class 106
net/qos/trust dscp
net/qos/pfc 0,0,0,1,0,0,0,0
EOT

out=$("$UP" --config "$conf" --module "$VROCE_KO" eth0 2>&1) || vt_fail "vroce-up: $out"
vt_log "$out"
[ -d "$(vt_sys vroce0)" ] || vt_fail "no vroce0 after vroce-up eth0"
[ -e "$(vt_sys vroce0)/device/net/eth0" ] || vt_fail "vroce0 is not on eth0"
vt_expect_eq cc/enable "$(cat "$(vt_sys vroce0)/cc/enable")" 1
vt_expect_eq cc/line_rate "$(cat "$(vt_sys vroce0)/cc/line_rate")" 1000
vt_expect_eq tc/1/traffic_class "$(cat "$(vt_sys vroce0)/tc/1/traffic_class")" "Global tclass=106"
vt_expect_eq qos/trust "$(cat /sys/class/net/eth0/qos/trust)" dscp
vt_expect_eq qos/pfc "$(cat /sys/class/net/eth0/qos/pfc)" 0,0,0,1,0,0,0,0

# a second run (a restarted unit): the same device, the settings again
echo 0 >"$(vt_sys vroce0)/cc/enable"
out=$("$UP" --config "$conf" --module "$VROCE_KO" eth0 2>&1) || vt_fail "second vroce-up: $out"
grep -q 'vroce0 on eth0 was up already' <<<"$out" || vt_fail "second run: $out"
vt_expect_eq "devices after two runs" "$(ls /sys/class/infiniband | wc -l)" 1
vt_expect_eq "cc/enable after the second run" "$(cat "$(vt_sys vroce0)/cc/enable")" 1

# a setting the device refuses: said, exit status 1, the device stays
echo 'cc/line_rate not-a-rate' >>"$conf/eth0.conf"
echo 'cc/no_such_knob 1' >>"$conf/eth0.conf"
out=$("$UP" --config "$conf" --module "$VROCE_KO" eth0 2>&1) && vt_fail "bad settings accepted: $out"
grep -q 'cc/line_rate not-a-rate refused' <<<"$out" || vt_fail "bad value not reported: $out"
grep -q 'cc/no_such_knob 1 refused' <<<"$out" || vt_fail "unknown knob not reported: $out"
vt_expect_eq "cc/line_rate after a bad value" "$(cat "$(vt_sys vroce0)/cc/line_rate")" 1000
[ -d "$(vt_sys vroce0)" ] || vt_fail "vroce0 gone after a refused setting"

out=$("$UP" --down eth0 2>&1) || vt_fail "vroce-up --down: $out"
[ -d "$(vt_sys vroce0)" ] && vt_fail "vroce0 still there after --down"
"$UP" --down eth0 || vt_fail "--down with no device is not a success"

# rdma_rxe holds the ABI: a clear refusal, nothing made
modinfo rdma_rxe >/dev/null 2>&1 || vt_skip "rdma_rxe not available (the rest passed)"
rmmod vroce || vt_fail "rmmod vroce"
modprobe rdma_rxe || vt_fail "modprobe rdma_rxe"
out=$("$UP" --config "$conf" --module "$VROCE_KO" eth0 2>&1) && vt_fail "vroce-up beside rdma_rxe: $out"
grep -q 'rdma_rxe is loaded' <<<"$out" || vt_fail "refusal does not say why: $out"
grep -q '^vroce ' /proc/modules && vt_fail "vroce loaded beside rdma_rxe"
rmmod rdma_rxe || vt_fail "rmmod rdma_rxe"
vt_pass "device, settings, second run, refused settings, down, rdma_rxe refusal"
