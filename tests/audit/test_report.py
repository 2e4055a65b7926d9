"""The report writers over plain findings: escaping, counts, rule indexes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from truegreen.audit import pages, registry
from truegreen.audit.base import Finding
from truegreen.audit.report import github, information_uri, sarif, text
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


SCHEMA = Path(__file__).parent / "sarif-schema-2.1.0.json"
NOTE, WARNING = registry.rule("TG501"), registry.rule("TG001")


def validated(report: Report) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(sarif(report))
    jsonschema.validate(log, json.loads(SCHEMA.read_text(encoding="utf-8")))
    return log


def test_sarif_rules_carry_their_whole_page_as_help() -> None:
    log = validated(Report((finding("TG402", "tests/test_a.py", 3),), 1, (SLEEP,)))
    [rule] = log["runs"][0]["tool"]["driver"]["rules"]
    assert rule["help"] == {"text": pages.page(SLEEP), "markdown": pages.page(SLEEP)}
    assert "## Use instead" in rule["help"]["markdown"]


def test_sarif_levels_follow_each_rules_severity() -> None:
    """Ablation: replace `rules[index[f.code]].severity` with `"error"` in
    `src/truegreen/audit/report.py`."""
    findings = (finding("TG402", "tests/test_a.py", 3), finding("TG001", "tests/test_a.py", 4),
                finding("TG501", "tests/test_1234.py", 1))  # fmt: skip
    log = validated(Report(findings, 2, (SLEEP, WARNING, NOTE)))
    run = log["runs"][0]
    assert [r["level"] for r in run["results"]] == ["error", "warning", "note"]
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in run["tool"]["driver"]["rules"]}
    assert levels == {"TG402": "error", "TG001": "warning", "TG501": "note"}


def test_github_annotations_follow_each_rules_severity() -> None:
    findings = (finding("TG402", "a.py", 3), finding("TG001", "a.py", 4),
                finding("TG501", "test_1.py", 1))  # fmt: skip
    lines = github(Report(findings, 2, (SLEEP, WARNING, NOTE))).splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["::error", "::warning", "::notice"]


def test_the_tool_names_its_public_home_and_no_invalid_address() -> None:
    log = sarif(Report((finding("TG402", "tests/test_a.py", 3),), 1, (SLEEP,)))
    driver = json.loads(log)["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == "https://github.com/truegreen/truegreen"  # pyproject's
    assert ".invalid" not in log
    assert "helpUri" not in log


def test_the_public_home_is_the_homepage_or_repository_else_none() -> None:
    """A distribution without a public address names none, rather than a made-up one.

    Ablation: replace `next(iter(found.values()), None)` with `"https://truegreen.invalid"`
    in `src/truegreen/audit/report.py`."""
    urls = ["Issues, https://example.org/i", "Repository, https://example.org/r"]
    assert information_uri(urls) == "https://example.org/r"  # premise: found when listed
    assert information_uri(["Issues, https://example.org/i"]) == "https://example.org/i"
    assert information_uri([]) is None
    assert information_uri(["Homepage, file:///home/me/project"]) is None


def test_two_projects_in_one_run_have_addresses_that_differ(tmp_path: Path) -> None:
    """A file outside the root (another project's, `../b/tests/test_a.py`) gets its absolute
    address; the root's own files stay relative to `%SRCROOT%`, which the log names.

    Ablation: replace `root is not None and (path.startswith("../") or path == "..")` with
    `False` in `src/truegreen/audit/report.py`."""
    root = tmp_path / "a"
    findings = (finding("TG402", "tests/test_a.py", 3),
                finding("TG402", "../b/tests/test_a.py", 3))  # fmt: skip
    run = validated(Report(findings, 2, (SLEEP,), root))["runs"][0]
    where = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert where == [
        {"uri": "tests/test_a.py", "uriBaseId": "%SRCROOT%"},
        {"uri": (tmp_path / "b" / "tests" / "test_a.py").as_uri()},
    ]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": root.as_uri() + "/"}}
