"""The score of one run of the conformance suite, against the count expected of it.

    score.py RESULTS EXPECTED NAME REQUIREMENTS SCENARIO

RESULTS is the suite's -o directory (a checks.json per scenario run); REQUIREMENTS the suite's
requirement set of a --requirements run (requirements/REVISION.yaml in its package: its
`server` list is what counts), or empty for a --scenario run of SCENARIO. A scenario passes as
the suite scores it: no FAILURE check and at least one SUCCESS (a WARNING is reported beside
it); one that did not run (skipped as not applicable, say) does not. An extension's scenario
(sep-2640-*, the skills extension; tasks-*, the tasks extension) is held to more: every one of
its checks passed, none skipped or only warned about, since the suite scores none of them and
one whose capability is not declared would pass with every check skipped. EXPECTED is
"PASSED/TOTAL"; any other count fails with the scenarios that did not pass and why."""

import json, pathlib, re, sys

results, expected, name, requirements, scenario = sys.argv[1:6]
ran = {}
for checks in pathlib.Path(results).glob("*/checks.json"):
    ran[re.sub(r"-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", checks.parent.name).removeprefix("server-")] = json.loads(checks.read_text())
if requirements:
    required, inside = [], False
    for line in open(requirements):
        if re.match(r"^\S", line):
            inside = line.startswith("server:")
        elif inside and (match := re.match(r"^\s+-\s+([\w/.-]+)", line)):
            required.append(match.group(1))
else:
    required = [scenario]
EXTENSIONS = ("sep-2640-", "tasks-")


def status(name):
    checks = ran.get(name)
    if checks is None:
        return "did not run"
    failed = [c["id"] for c in checks if c["status"] == "FAILURE"]
    if failed:
        return "failed: " + ", ".join(failed)
    if not any(c["status"] == "SUCCESS" for c in checks):
        return "no check passed (" + ", ".join(f'{c["id"]} {c["status"]}' for c in checks) + ")"
    if name.startswith(EXTENSIONS):
        short = [f'{c["id"]} {c["status"]}' for c in checks if c["status"] != "SUCCESS"]
        if short:
            return "an extension scenario with checks that did not pass: " + ", ".join(short)
    return "passed"
passed = [s for s in required if status(s) == "passed"]
warnings = [f'{s}:{c["id"]}' for s in passed for c in ran[s] if c["status"] == "WARNING"]
got = f"{len(passed)}/{len(required)}"
print(f"-- {name}: {len(passed)} of {len(required)} required scenarios passed"
      + (f" (warnings: {', '.join(warnings)})" if warnings else ""))
if got != expected:
    for s in required:
        if s not in passed:
            print(f"   {s}: {status(s)}")
    print(f"conformance: {name}: {got} required scenarios passed, the expected count is {expected}", file=sys.stderr)
    sys.exit(1)
