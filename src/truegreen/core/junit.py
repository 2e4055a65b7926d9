"""Reading a JUnit XML report back: which tests passed, and why the others failed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union


@dataclass
class Results:
    passed: int = 0
    skipped: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (test, first line of why)


def read_junit(path: Union[str, Path]) -> Results:
    """Counts and failures from a report written with ``--junitxml``."""
    results = Results()
    for case in ET.parse(path).iter("testcase"):
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        if bad is None:
            if case.find("skipped") is None:
                results.passed += 1
            else:
                results.skipped += 1
            continue
        name = "::".join(filter(None, (case.get("classname"), case.get("name"))))
        message = (bad.get("message") or bad.text or "failed").strip().splitlines()
        results.failed.append((name, message[0] if message else "failed"))
    return results
