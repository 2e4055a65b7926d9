"""Audit a fixture project under tests/audit/projects with one rule, as a user's audit would."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from truegreen.audit import registry
from truegreen.audit.base import Finding, Project
from truegreen.audit.engine import check_source

PROJECTS = Path(__file__).parent.parent / "projects"


def project(
    code: str,
    settings: Mapping[str, Any] | None = None,
    packages: frozenset[str] | None = None,
) -> Project:
    """The fixture project for ``code``; its packages are the directories under src/ unless
    ``packages`` names fewer."""
    root = PROJECTS / code
    if packages is None:
        packages = frozenset(p.name for p in (root / "src").iterdir() if p.is_dir())
    return Project(
        root=root, packages=packages, source_roots=(root / "src",), settings=settings or {}
    )


def audit(project: Project, code: str, relpath: str, source: str | None = None) -> list[Finding]:
    """One file of the project (or ``source`` as if it were that file) under rule ``code``."""
    path = project.root / relpath
    text = path.read_text(encoding="utf-8") if source is None else source
    return check_source(project, path, relpath, text, [registry.rule(code)])


def marked_and_found(
    project: Project, code: str
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(lines marked ``# expect: CODE``, lines flagged) over every file of the project."""
    marked: list[tuple[str, int]] = []
    found: list[tuple[str, int]] = []
    for path in sorted(project.root.rglob("*.py")):
        relpath = path.relative_to(project.root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        marked.extend(
            (relpath, n)
            for n, line in enumerate(lines, 1)
            if line.rstrip().endswith(f"# expect: {code}")
        )
        found.extend((f.path, f.line) for f in audit(project, code, relpath))
    return marked, sorted(set(found))
