// SPDX-License-Identifier: GPL-2.0
/*
 * vroce_test.ko: KUnit suites for the pure logic of vroce.  The module
 * compiles its own copy of the driver sources under test (they hold no
 * state; the ring code needs ib_core), so it loads without vroce.ko and
 * the driver needs no test-only exports.  qp_state_test.c compiles in
 * qp_state.c itself, with stubs for the transport hooks it calls.
 */
#include <linux/module.h>

#include "../cc/dcqcn.c"
#include "../cc/timely.c"
#include "../icrc.c"
#include "../opcode.c"
#include "../pfc.c"
#include "../queue.c"
#include "../release.c"
#include "../rtt.c"
#include "../tbf.c"
#include "../umap.c"

MODULE_DESCRIPTION("KUnit tests of the vroce RoCEv2 driver's pure logic");
MODULE_LICENSE("GPL");
