#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Count test CASES for devtools/test.sh, the same way for every runner.

    testcount.py meson BUILD_DIR      # cmocka cases from meson's testlog.json
    testcount.py junit FILE.xml       # pytest cases from its --junitxml
    testcount.py bench FILE.json RC   # one Google Benchmark run

Prints one line per problem, then a last line "PASSED FAILED" for the shell.

A skipped case is a failure unless its id matches a pattern in the
environment variable EWYK_ALLOWED_SKIPS (newline-separated lines
"GLOB<space>REASON", kept in test.sh). Ids: "unit/<binary>::<case>",
"dts/<file>::<Class>::<method>". A runner that ran nothing is a failure.
"""

import fnmatch
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

# cmocka's per-case status lines (CMOCKA_MESSAGE_OUTPUT=STDOUT, the default
# format): "[ RUN      ] name" then one of these with the same name.
CMOCKA_STATUS = re.compile(
    r"^\[\s*(OK|FAILED|ERROR|SKIPPED)\s*\] (\S+)\s*$")
CMOCKA_RUN = re.compile(r"^\[ RUN\s*\] (\S+)\s*$")


def allowed_skip(case_id):
    for line in os.environ.get("EWYK_ALLOWED_SKIPS", "").splitlines():
        pat = line.strip().split(None, 1)
        if pat and fnmatch.fnmatchcase(case_id, pat[0]):
            return True
    return False


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def ok(self):
        self.passed += 1

    def fail(self, why):
        self.failed += 1
        print(f"FAIL {why}")

    def skip(self, case_id, reason):
        if allowed_skip(case_id):
            print(f"skip {case_id} (allowed: {reason})")
        else:
            self.fail(f"{case_id}: skipped ({reason}) and not in the "
                      "allowed-skip list of devtools/test.sh")

    def done(self):
        print(f"{self.passed} {self.failed}")


def count_meson(build_dir):
    t = Tally()
    log = os.path.join(build_dir, "meson-logs", "testlog.json")
    try:
        with open(log) as f:
            runs = [json.loads(ln) for ln in f if ln.strip()]
    except (OSError, ValueError) as e:
        t.fail(f"no meson test log: meson ran no test, or none exists "
               f"in the suite ({e})")
        return t
    if not runs:
        t.fail("meson ran no test binary")
    for r in runs:
        binary = r["name"]
        seen = {}
        order = []
        for line in r.get("stdout", "").splitlines():
            m = CMOCKA_RUN.match(line)
            if m:
                if m.group(1) not in seen:
                    order.append(m.group(1))
                seen.setdefault(m.group(1), None)
                continue
            m = CMOCKA_STATUS.match(line)
            if m and m.group(2) in seen and seen[m.group(2)] is None:
                seen[m.group(2)] = m.group(1)
        bad_cases = 0
        for case in order:
            cid = f"unit/{binary}::{case}"
            st = seen[case]
            if st == "OK":
                t.ok()
            elif st == "SKIPPED":
                t.skip(cid, "cmocka skip()")
            elif st is None:
                bad_cases += 1
                t.fail(f"{cid}: started, never finished (crash? see the log)")
            else:
                bad_cases += 1
                t.fail(f"{cid}: {st}")
        res = r["result"]
        if res == "SKIP":
            # Exit 77: the binary says it could not run (all or part).
            if not any(seen[c] == "SKIPPED" for c in order):
                t.skip(f"unit/{binary}", "exit 77")
        elif res != "OK" and bad_cases == 0:
            out = r.get("stdout", "") + r.get("stderr", "")
            why = "with no failed case reported"
            if "LeakSanitizer: detected memory leaks" in out:
                why = "LeakSanitizer: memory leaked (see the log)"
            elif "ERROR: AddressSanitizer" in out:
                why = "AddressSanitizer error (see the log)"
            elif "runtime error:" in out:
                why = "UBSan runtime error (see the log)"
            t.fail(f"unit/{binary}: {res} (exit {r['returncode']}) {why}")
        if not order and res != "SKIP":
            t.fail(f"unit/{binary}: ran no test case")
    return t


def count_junit(path):
    t = Tally()
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        t.fail(f"no pytest report ({e})")
        return t
    cases = list(root.iter("testcase"))
    if not cases:
        t.fail("pytest collected no test")
    for c in cases:
        mod = c.get("classname", "").replace(".", "/")
        # classname: "tests.TestSuite_l3.TestSuite_l3" -> file + class
        parts = c.get("classname", "").split(".")
        cls = parts[-1] if parts else "?"
        fname = "/".join(parts[:-1]) + ".py" if len(parts) > 1 else mod
        cid = f"dts/{fname}::{cls}::{c.get('name')}"
        bad = [e for e in c if e.tag in ("failure", "error")]
        skipped = [e for e in c if e.tag == "skipped"]
        if bad:
            for e in bad:
                t.fail(f"{cid}: {e.tag}: {(e.get('message') or '')[:200]}")
        elif skipped:
            t.skip(cid, skipped[0].get("message", ""))
        else:
            t.ok()
    return t


def count_bench(path, rc):
    t = Tally()
    name = os.path.basename(path)
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        t.fail(f"{name}: no JSON report ({e}), exit {rc}")
        return t
    runs = data.get("benchmarks", [])
    if not runs:
        t.fail(f"{name}: no benchmark ran")
    for b in runs:
        if b.get("error_occurred"):
            t.fail(f"{b.get('name')}: {b.get('error_message', 'error')}")
        else:
            t.ok()
    if rc != 0:
        t.fail(f"{name}: exit {rc}")
    return t


def main():
    kind = sys.argv[1]
    if kind == "meson":
        t = count_meson(sys.argv[2])
    elif kind == "junit":
        t = count_junit(sys.argv[2])
    elif kind == "bench":
        t = count_bench(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(f"unknown kind {kind}")
    t.done()


if __name__ == "__main__":
    main()
