// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/vroce/cc/dcqcn.c, compiled in userspace (shim/ stands in for the
 * kernel headers), driven by the event list check.py writes on stdin:
 *
 *   flavour nvidia|paper      line <kb/s>      knob <name> <value>
 *   event cnp <t_us> | timer | bytes <n> | alpha <periods>      end
 *
 * One output line per event: event arg reason rc rt alpha limited, the
 * format of dcqcn_model.py run.  "harness knobs" prints the knob table
 * as dcqcn_model.py knobs does, and checks each range's edges with
 * vroce_dcqcn_knob_set().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../drivers/vroce/cc/dcqcn.c"

static int knob_id(const char *name)
{
	int i;

	for (i = 0; i < VROCE_DCQCN_NR_KNOBS; i++)
		if (!strcmp(vroce_dcqcn_knobs[i].name, name))
			return i;
	return -1;
}

static const char *flavours(u8 f)
{
	return f == VROCE_DCQCN_F_BOTH ? "both" :
	       f == VROCE_DCQCN_F_NVIDIA ? "nvidia" : "paper";
}

/* The table, then every range's edges: in range accepted, out refused. */
static int knobs(void)
{
	struct vroce_dcqcn_params p;
	int i, bad = 0;

	vroce_dcqcn_params_default(&p);
	if (vroce_dcqcn_params_validate(&p)) {
		fprintf(stderr, "defaults do not validate\n");
		bad++;
	}
	for (i = 0; i < VROCE_DCQCN_NR_KNOBS; i++) {
		const struct vroce_dcqcn_knob *k = &vroce_dcqcn_knobs[i];
		u32 def = vroce_dcqcn_knob_get(&p, i);

		printf("%s|%s|%u|%u|%u|%s\n", k->name, k->unit, k->min,
		       k->max, k->def, flavours(k->flavours));
		bad += vroce_dcqcn_knob_set(&p, i, k->min) != 0;
		bad += vroce_dcqcn_knob_set(&p, i, k->max) != 0;
		bad += vroce_dcqcn_knob_get(&p, i) != k->max;
		if (k->min > 0) {
			bad += vroce_dcqcn_knob_set(&p, i, k->min - 1) != -EINVAL;
			bad += vroce_dcqcn_knob_get(&p, i) != k->max;
		}
		if (k->max < U32_MAX) {
			bad += vroce_dcqcn_knob_set(&p, i, k->max + 1) != -EINVAL;
			bad += vroce_dcqcn_knob_get(&p, i) != k->max;
		}
		vroce_dcqcn_knob_set(&p, i, def);
	}
	bad += vroce_dcqcn_knob_validate(VROCE_DCQCN_NR_KNOBS, 0) != -EINVAL;
	vroce_dcqcn_params_paper(&p);
	bad += vroce_dcqcn_params_validate(&p) != 0;
	if (bad)
		fprintf(stderr, "knob validation: %d failures\n", bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct vroce_dcqcn_cfg cfg = { .flavour = VROCE_DCQCN_NVIDIA };
	struct vroce_dcqcn_state s;
	bool started = false;
	char w0[64], w1[64];
	char line[256];
	long long arg;

	if (argc > 1 && !strcmp(argv[1], "knobs"))
		return knobs();
	vroce_dcqcn_params_default(&cfg.p);
	while (fgets(line, sizeof(line), stdin)) {
		enum vroce_dcqcn_reason why;
		int n;

		arg = 0;
		n = sscanf(line, "%63s %63s %lld", w0, w1, &arg);
		if (n < 1 || w0[0] == '#')
			continue;
		if (!strcmp(w0, "end"))
			break;
		if (!strcmp(w0, "flavour") && n >= 2) {
			cfg.flavour = strcmp(w1, "paper") ? VROCE_DCQCN_NVIDIA :
							   VROCE_DCQCN_PAPER;
			continue;
		}
		if (!strcmp(w0, "line") && n >= 2) {
			cfg.line_rate = strtoul(w1, NULL, 0);
			continue;
		}
		if (!strcmp(w0, "knob") && n == 3) {
			int id = knob_id(w1);

			/* Out-of-range knobs are a test bug: stop. */
			if (id < 0 || vroce_dcqcn_knob_set(&cfg.p, id, arg)) {
				fprintf(stderr, "bad knob %s %lld\n", w1, arg);
				return 2;
			}
			continue;
		}
		if (strcmp(w0, "event") || n < 2) {
			fprintf(stderr, "bad line: %s", line);
			return 2;
		}
		if (!started) {
			vroce_dcqcn_init(&cfg, &s);
			started = true;
		}
		if (!strcmp(w1, "cnp"))
			why = vroce_dcqcn_on_cnp(&cfg, &s, arg);
		else if (!strcmp(w1, "timer"))
			why = vroce_dcqcn_on_timer(&cfg, &s);
		else if (!strcmp(w1, "bytes"))
			why = vroce_dcqcn_on_bytes(&cfg, &s, arg);
		else if (!strcmp(w1, "alpha"))
			why = vroce_dcqcn_on_alpha_timer(&cfg, &s, arg);
		else
			why = VROCE_DCQCN_NR_REASONS;
		if (why == VROCE_DCQCN_NR_REASONS) {
			fprintf(stderr, "bad event %s\n", w1);
			return 2;
		}
		printf("%s %lld %s %u %u %u %d\n", w1, arg,
		       vroce_dcqcn_reason_name(why), s.rc, s.rt, s.alpha,
		       s.limited ? 1 : 0);
	}
	return 0;
}
