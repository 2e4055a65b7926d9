"""The audit's output formats: text, JSON, SARIF 2.1.0 and GitHub workflow annotations."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from truegreen import __version__
from truegreen.audit import pages
from truegreen.audit.base import Rule
from truegreen.audit.run import Report
from truegreen.core import formats

FORMAT_VERSION = formats.AUDIT
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
# The labels of a distribution's Project-URL that name its public home, best first.
HOME_LABELS = ("homepage", "home", "repository", "source", "documentation")
# GitHub annotations name the levels of SARIF their own way.
ANNOTATIONS = {"error": "error", "warning": "warning", "note": "notice"}


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
    import json  # for this format only

    return json.dumps({formats.FORMAT_KEY: FORMAT_VERSION, "findings": findings}, indent=2)


def _escape(value: str, *, property_value: bool) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def github(report: Report) -> str:
    """One workflow command per finding (``::error``, ``::warning`` or ``::notice``, by the
    rule's severity): an annotation on the pull request."""
    lines = []
    for f in report.findings:
        props = {"file": f.path, "line": f.line, "col": f.col, "title": f"{f.code} {f.name}"}
        joined = ",".join(f"{k}={_escape(str(v), property_value=True)}" for k, v in props.items())
        level = ANNOTATIONS[_severity(f.code)]
        lines.append(f"::{level} {joined}::{_escape(f.message, property_value=False)}")
    return "\n".join(lines)


def _severity(code: str) -> str:
    from truegreen.audit import registry

    return registry.rule(code).severity


def _descriptor(rule: type[Rule]) -> dict[str, Any]:
    """A rule as SARIF describes it, with its whole page as help: code scanning shows the
    help of a result's rule with the result, no link to follow."""
    page = pages.page(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": pages.summary(rule)},
        "fullDescription": {"text": pages.summary(rule)},
        "help": {"text": page, "markdown": page},
        "defaultConfiguration": {"level": rule.severity, "enabled": rule.default},
    }


def information_uri(project_urls: Sequence[str]) -> Optional[str]:
    """The tool's public home from its distribution's ``Project-URL`` entries (``Label, URL``,
    from ``[project.urls]``): the homepage or repository, else the first; None when there is
    none, and then a SARIF log names none."""
    found: dict[str, str] = {}
    for entry in project_urls:
        label, _, url = entry.partition(",")
        url = url.strip()
        if url.startswith("https://"):
            found.setdefault(label.strip().lower(), url)
    for label in HOME_LABELS:
        if label in found:
            return found[label]
    return next(iter(found.values()), None)


def _project_urls() -> list[str]:
    from importlib import metadata

    try:
        return metadata.metadata("truegreen").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return []


def _location(path: str, root: Optional[Path]) -> dict[str, Any]:
    """A finding's file: relative to the root under ``%SRCROOT%``, or, for a file outside
    the root (``../other/tests/test_a.py``), its absolute ``file:`` URI, so that the files of
    two projects in one run never share an address."""
    if root is not None and (path.startswith("../") or path == ".."):
        return {"uri": (root / path).resolve().as_uri()}
    return {"uri": path, "uriBaseId": SRCROOT}


def sarif(report: Report) -> str:
    """A SARIF 2.1.0 log with one run: the rules that ran and a result per finding."""
    rules = sorted(report.rules, key=lambda r: r.code)
    index = {rule.code: n for n, rule in enumerate(rules)}
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": rules[index[f.code]].severity,
            "message": {"text": f.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": _location(f.path, report.root),
                "region": {"startLine": f.line, "startColumn": f.col},
            }}],
        }
        for f in report.findings
    ]  # fmt: skip
    driver: dict[str, Any] = {"name": "truegreen", "version": __version__}
    home = information_uri(_project_urls())
    if home is not None:
        driver["informationUri"] = home
    driver["rules"] = [_descriptor(r) for r in rules]
    run: dict[str, Any] = {"tool": {"driver": driver}}
    if report.root is not None:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": report.root.resolve().as_uri() + "/"}}
    run["results"] = results
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    import json  # for this format only

    return json.dumps(log, indent=2)


def rule_list(rules: Sequence[type[Rule]], fmt: str) -> str:
    """``--list-rules``: code, name, default or opt-in, and the one-line summary."""
    if fmt == "json":
        rows = [{"code": r.code, "name": r.name, "default": r.default,
                 "summary": pages.summary(r)} for r in rules]  # fmt: skip
        import json  # for this format only

        return json.dumps({formats.FORMAT_KEY: FORMAT_VERSION, "rules": rows}, indent=2)
    width = max((len(r.name) for r in rules), default=0)
    return "\n".join(
        f"{r.code}  {r.name:<{width}}  {'default' if r.default else 'opt-in ':<7}  "
        f"{pages.summary(r)}"
        for r in rules
    )
