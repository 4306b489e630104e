#!/usr/bin/env python3
"""The last lines of ./test.sh: how many tests each suite ran, and what skipped and why.

Reads the JUnit XML reports the suites leave behind: Maven's surefire reports of each module
(MODULE/target/surefire-reports/TEST-*.xml) and pytest's (--junitxml). A skipped test is listed
by its reason, once per reason, so that "8 need sshd" reads as one line with the command that
installs it. Exits 1 when a report holds a failure or an error, or when a suite left no report.

    python3 scripts/test_summary.py --python target/python-tests.xml [--seconds N]
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The Maven modules with tests, in build order (pom.xml).
MODULES = ("library", "lab", "ycsb")


@dataclass
class Suite:
    name: str
    tests: int = 0
    failed: int = 0
    skipped: Counter[str] = field(default_factory=Counter)

    def read(self, report: Path) -> None:
        root = ET.parse(report).getroot()
        for case in root.iter("testcase"):
            self.tests += 1
            if case.find("failure") is not None or case.find("error") is not None:
                self.failed += 1
            skip = case.find("skipped")
            if skip is not None:
                self.skipped[_reason(skip)] += 1


def _reason(skip: ET.Element) -> str:
    text = (skip.get("message") or skip.text or "no reason given").strip()
    # JUnit writes "what the condition saw ==> the reason the test gives"
    text = text.rpartition("==> ")[2]
    # pytest writes "path:line: reason"; the reason is what a reader needs
    head, _, rest = text.partition(": ")
    if rest and ".py:" in head:
        text = rest
    return " ".join(text.split())


def java_suites() -> list[Suite]:
    suites = []
    for module in MODULES:
        reports = sorted((REPO / module / "target" / "surefire-reports").glob("TEST-*.xml"))
        suite = Suite(f"{module}")
        for report in reports:
            suite.read(report)
        suites.append(suite)
    return suites


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", type=Path, required=True, help="pytest's --junitxml report")
    parser.add_argument("--seconds", type=int, help="how long the whole run took")
    args = parser.parse_args(argv)
    java = java_suites()
    python = Suite("Python")
    if args.python.is_file():
        python.read(args.python)
    missing = [s.name for s in [*java, python] if s.tests == 0]
    failed = sum(s.failed for s in [*java, python])
    took = f" in {args.seconds // 60} min {args.seconds % 60} s" if args.seconds else ""
    verdict = "every test passed" if not failed and not missing else f"{failed} failed"
    print(f"test.sh: {verdict}{took}")
    java_total = sum(s.tests for s in java)
    parts = ", ".join(f"{s.name} {s.tests}" for s in java)
    print(f"  Java    {java_total:>4} tests ({parts})")
    print(f"  Python  {python.tests:>4} tests")
    skipped = Counter()
    for suite in [*java, python]:
        skipped.update(suite.skipped)
    if skipped:
        print(f"  skipped {sum(skipped.values()):>4}:")
        for reason, n in skipped.most_common():
            print(f"    {n} {reason}")
    if missing:
        print(f"  no report from: {', '.join(missing)} (did that suite run?)")
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.exit(main())
