#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side check: drivers/vroce/cc/dcqcn.c (built in userspace as
./harness) against the reference model dcqcn_model.py, for every scenario
of scenarios.py and the knob table.  One line per check; exits 1 on any
mismatch, printing the first differing steps.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import dcqcn_model as model  # noqa: E402
import scenarios  # noqa: E402


def main():
    harness = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "harness")
    passed = failed = steps = 0

    want = "".join("%s|%s|%d|%d|%d|%s\n" % k for k in model.KNOBS)
    r = subprocess.run([harness, "knobs"], capture_output=True, text=True)
    if r.returncode == 0 and r.stdout == want:
        print("PASS knobs (%d knobs, table and range edges)" % len(model.KNOBS))
        passed += 1
    else:
        print("FAIL knobs (rc %d)\n%s" % (r.returncode, r.stderr))
        for a, b in zip(want.splitlines(), r.stdout.splitlines()):
            if a != b:
                print("  model:  " + a + "\n  kernel: " + b)
        failed += 1

    for s in scenarios.all_scenarios():
        k = scenarios.knobs_of(model, s)
        exp = model.run(s["flavour"], k, s["line"], s["events"])
        r = subprocess.run([harness], input=scenarios.harness_input(model, s),
                           capture_output=True, text=True)
        got = r.stdout.splitlines()
        if r.returncode == 0 and got == exp:
            cuts = sum(1 for ln in exp if ln.split()[2].startswith("cnp"))
            print("PASS %-22s %-6s %4d steps, %3d CNP steps, final %s" %
                  (s["name"], s["flavour"], len(exp), cuts,
                   exp[-1].split(None, 3)[3] if exp else "-"))
            passed += 1
            steps += len(exp)
            continue
        failed += 1
        print("FAIL %s (%s, rc %d) %s" % (s["name"], s["flavour"],
                                         r.returncode, r.stderr.strip()))
        shown = 0
        for i in range(max(len(exp), len(got))):
            a = exp[i] if i < len(exp) else "<none>"
            b = got[i] if i < len(got) else "<none>"
            if a != b:
                print("  step %d: model  %s\n  step %d: kernel %s" % (i, a, i, b))
                shown += 1
                if shown == 5:
                    break

    # The KUnit suite's literal tables are this model's output.
    test_c = os.path.join(HERE, "../../drivers/vroce/tests/dcqcn_test.c")
    r = subprocess.run([sys.executable, os.path.join(HERE, "dcqcn_model.py"),
                        "kunit"], capture_output=True, text=True)
    src = open(test_c).read()
    b = src.find("/* BEGIN dcqcn_model.py kunit */")
    e = src.find("/* END dcqcn_model.py kunit */")
    if r.returncode == 0 and b >= 0 and e > b and \
            src[b:e + len("/* END dcqcn_model.py kunit */")] + "\n" == r.stdout:
        print("PASS kunit tables in drivers/vroce/tests/dcqcn_test.c match "
              "the model")
        passed += 1
    else:
        print("FAIL kunit tables in drivers/vroce/tests/dcqcn_test.c differ "
              "from 'dcqcn_model.py kunit' (regenerate: make kunit)")
        failed += 1

    print("cc-model check: %d passed, %d failed, %d steps compared" %
          (passed, failed, steps))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
