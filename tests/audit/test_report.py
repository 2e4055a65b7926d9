"""The report writers over plain findings: escaping, counts, rule indexes."""

from __future__ import annotations

import json

from truegreen.audit import registry
from truegreen.audit.base import Finding
from truegreen.audit.report import github, sarif, text
from truegreen.audit.run import Report

SLEEP, XFAIL = registry.rule("TG402"), registry.rule("TG401")


def finding(code: str, path: str, line: int, message: str = "m") -> Finding:
    return Finding(code, registry.rule(code).name, path, line, 1, message)


def test_github_escapes_properties_and_the_message() -> None:
    report = Report((finding("TG402", "tests/a,b:c.py", 3, "50% off\nnext line"),), 1, (SLEEP,))
    expected = (
        "::error file=tests/a%2Cb%3Ac.py,line=3,col=1,title=TG402 sleep-in-test::"
        "50%25 off%0Anext line"
    )
    assert github(report) == expected


def test_text_counts_findings_and_files_in_the_singular_too() -> None:
    report = Report((finding("TG402", "tests/test_a.py", 3),), 4, (SLEEP,))
    assert text(report).splitlines()[2:4] == [
        "1 finding in 1 file (4 audited)",
        "     1  TG402 sleep-in-test",
    ]


def test_sarif_results_point_at_their_rule_in_the_driver() -> None:
    findings = (finding("TG402", "tests/test_a.py", 3), finding("TG401", "tests/test_a.py", 9))
    log = json.loads(sarif(Report(findings, 1, (SLEEP, XFAIL))))
    run = log["runs"][0]
    ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert ids == ["TG401", "TG402"]
    assert [(r["ruleId"], ids[r["ruleIndex"]]) for r in run["results"]] == [
        ("TG402", "TG402"),
        ("TG401", "TG401"),
    ]
