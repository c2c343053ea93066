/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the supported kernels (6.1 and 6.12).
 *
 * compat-generated.h is written at build time by probes/run-probes.sh: one
 * HAVE_* macro per probe in probes/ that compiles against the target
 * kernel.  Code tests those macros, never LINUX_VERSION_CODE, so distro
 * backports are handled too.
 */
#ifndef VROCE_COMPAT_H
#define VROCE_COMPAT_H

#include "compat-generated.h"

#endif /* VROCE_COMPAT_H */
