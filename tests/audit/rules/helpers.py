"""Fixture projects as the audit sees them, read the way pytest reads its configuration."""

from __future__ import annotations

import configparser
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from truegreen.audit.base import Finding, Project, Rule
from truegreen.core.config import read_toml

PROJECTS = Path(__file__).resolve().parent.parent / "projects"


def load_project(root: Path, packages: Iterable[str] = (), src: Sequence[str] = ()) -> Project:
    """A Project with the pytest options of ``root``'s pyproject.toml or pytest.ini."""
    options: dict[str, Any] = {}
    config_file = None
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        table = read_toml(pyproject).get("tool", {}).get("pytest", {}).get("ini_options")
        if table is not None:
            options, config_file = dict(table), pyproject
    ini = root / "pytest.ini"
    if config_file is None and ini.is_file():
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(ini, encoding="utf-8")
        options, config_file = dict(parser["pytest"]), ini
    return Project(
        root,
        packages=frozenset(packages),
        source_roots=tuple(root / s for s in src),
        pytest_options=options,
        pytest_config_file=config_file,
    )


def project_findings(rule: type[Rule], project: Project) -> list[tuple[str, int, str]]:
    """(path, line, message) of each project finding, in the order the rule made them."""
    found: list[Finding] = list(rule.check_project(project))
    assert {f.code for f in found} <= {rule.code}
    return [(f.path, f.line, f.message) for f in found]
