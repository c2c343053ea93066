// SPDX-License-Identifier: GPL-2.0
/*
 * Runs one KUnit suite of the congestion-control arithmetic on the host,
 * over shim/kunit/test.h, so that its logic is exercised before a KUnit
 * kernel boots it: HOST_CODE names the code under test (cc/dcqcn.c,
 * cc/timely.c), HOST_SUITE its suite (tests/dcqcn_test.c, ...), both
 * relative to drivers/vroce/.  Prints one line per case (each parameter of
 * a parameterised case) and a summary; exits 1 on any failure.
 */
#include <stdio.h>

#define HOST_STR(x)	#x
#define HOST_PATH(x)	HOST_STR(../../drivers/vroce/x)

#include HOST_PATH(HOST_CODE)
#include HOST_PATH(HOST_SUITE)

int main(void)
{
	struct kunit_case *c;
	int pass = 0, fail = 0;

	for (c = host_suite->test_cases; c->run_case; c++) {
		char desc[KUNIT_PARAM_DESC_SIZE];
		const void *param = NULL;

		do {
			struct kunit t = { 0 };

			desc[0] = 0;
			if (c->generate_params) {
				param = c->generate_params(param, desc);
				if (!param)
					break;
			}
			t.param_value = param;
			c->run_case(&t);
			printf("%s %s.%s%s%s\n", t.failures ? "not ok" : "ok",
			       host_suite->name, c->name, desc[0] ? " " : "",
			       desc);
			if (t.failures)
				fail++;
			else
				pass++;
		} while (c->generate_params);
	}
	printf("%s (host): %d passed, %d failed\n", host_suite->name, pass,
	       fail);
	return fail ? 1 : 0;
}
