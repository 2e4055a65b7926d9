"""Compare per-test outcomes of two JUnit XML reports; any difference is a leak (exit 1)."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


def outcomes(path: str) -> dict[str, str]:
    result = {}
    for case in ET.parse(path).iter("testcase"):
        test = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in {"failure", "error", "skipped"}]
        result[test] = kinds[0] if kinds else "passed"
    return result


def main(first: str, second: str) -> int:
    a, b = outcomes(first), outcomes(second)
    differ = sorted(t for t in a.keys() | b.keys() if a.get(t) != b.get(t))
    for test in differ:
        print(f"  {test}: {a.get(test, 'absent')} vs {b.get(test, 'absent')}")
    if differ:
        print(f"{len(differ)} tests differ between {first} and {second}: a leak")
        return 1
    print(f"identical per-test outcomes for {len(a)} tests")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
