"""The audit's output formats: text, JSON, SARIF 2.1.0 and GitHub workflow annotations."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from truegreen import __version__
from truegreen.audit import pages
from truegreen.audit.base import Rule
from truegreen.audit.run import Report
from truegreen.core import formats

FORMAT_VERSION = formats.AUDIT
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Where the rule pages are published. The project has no public address yet; every SARIF
# rule also carries its whole page under "help", so nothing depends on this link resolving.
DOCS_URL = "https://truegreen.invalid/docs/rules/"


def text(report: Report) -> str:
    """One line per finding, then the count by rule and the hint that shows more."""
    lines = [f"{f.path}:{f.line}:{f.col}: {f.code} {f.name} {f.message}" for f in report.findings]
    skipped = [report.skipped_line] if report.skipped_line else []
    if not report.findings:
        return "\n".join([f"no findings in {report.files} files ({len(report.rules)} rules)",
                          *skipped])  # fmt: skip
    files = len({f.path for f in report.findings})
    count = len(report.findings)
    lines += ["", f"{count} finding{'s' * (count != 1)} in {files} file{'s' * (files != 1)}"
              f" ({report.files} audited)"]  # fmt: skip
    by_rule = Counter((f.code, f.name) for f in report.findings)
    lines += [f"  {n:>4}  {code} {name}" for (code, name), n in sorted(by_rule.items())]
    lines += skipped
    first = report.findings[0].code
    lines += [f"What each rule means and what to do instead: truegreen audit --explain {first}"]
    return "\n".join(lines)


def as_json(report: Report) -> str:
    findings = [
        {"code": f.code, "name": f.name, "path": f.path, "line": f.line, "col": f.col,
         "message": f.message}
        for f in report.findings
    ]  # fmt: skip
    return json.dumps({"version": FORMAT_VERSION, "findings": findings}, indent=2)


def _escape(value: str, *, property_value: bool) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def github(report: Report) -> str:
    """One ``::error`` workflow command per finding: an annotation on the pull request."""
    lines = []
    for f in report.findings:
        props = {"file": f.path, "line": f.line, "col": f.col, "title": f"{f.code} {f.name}"}
        joined = ",".join(f"{k}={_escape(str(v), property_value=True)}" for k, v in props.items())
        lines.append(f"::error {joined}::{_escape(f.message, property_value=False)}")
    return "\n".join(lines)


def _descriptor(rule: type[Rule]) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": pages.summary(rule)},
        "fullDescription": {"text": pages.summary(rule)},
        "helpUri": f"{DOCS_URL}{rule.code}.md",
        "help": {"text": pages.body(rule), "markdown": pages.page(rule)},
        "defaultConfiguration": {"level": "error", "enabled": rule.default},
    }


def sarif(report: Report) -> str:
    """A SARIF 2.1.0 log with one run: the rules that ran and a result per finding."""
    rules = sorted(report.rules, key=lambda r: r.code)
    index = {rule.code: n for n, rule in enumerate(rules)}
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "error",
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": f.line, "startColumn": f.col},
            }}],
        }
        for f in report.findings
    ]  # fmt: skip
    driver = {"name": "truegreen", "version": __version__, "rules": [_descriptor(r) for r in rules]}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
    return json.dumps(log, indent=2)


def rule_list(rules: Sequence[type[Rule]], fmt: str) -> str:
    """``--list-rules``: code, name, default or opt-in, and the one-line summary."""
    if fmt == "json":
        rows = [{"code": r.code, "name": r.name, "default": r.default,
                 "summary": pages.summary(r)} for r in rules]  # fmt: skip
        return json.dumps({"version": FORMAT_VERSION, "rules": rows}, indent=2)
    width = max((len(r.name) for r in rules), default=0)
    return "\n".join(
        f"{r.code}  {r.name:<{width}}  {'default' if r.default else 'opt-in ':<7}  "
        f"{pages.summary(r)}"
        for r in rules
    )
