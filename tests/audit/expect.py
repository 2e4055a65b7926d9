"""Reading ``# expect: CODE`` markers and auditing one file of a fixture project."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit.base import Finding, Project, Rule
from truegreen.audit.engine import check_source


def expected_lines(source: str, code: str) -> set[int]:
    """The lines that end with ``# expect: CODE``."""
    marker = f"# expect: {code}"
    return {n for n, line in enumerate(source.splitlines(), 1) if line.rstrip().endswith(marker)}


def audit_file(project: Project, path: Path, rule: type[Rule]) -> list[Finding]:
    """One rule's findings in one file of a project, as the audit would report them."""
    relpath = path.relative_to(project.root).as_posix()
    return check_source(project, path, relpath, path.read_text(encoding="utf-8"), [rule])
