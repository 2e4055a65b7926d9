"""Find the project an audit runs in: its root, pytest options, packages and audit settings."""

from __future__ import annotations

import configparser
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, Optional

from truegreen.audit import registry, settings
from truegreen.audit.base import Project
from truegreen.core.config import find_table, read_toml
from truegreen.core.errors import ConfigError

Read = Callable[[Path], dict[str, Any]]  # parses a TOML file
# Directories at a flat layout's root that hold no importable project code.
NOT_CODE = frozenset({"tests", "test", "testing", "docs", "doc", "build", "dist", "bench",
                      "benchmarks", "examples", "scripts", "tools", "site-packages"})  # fmt: skip


def _ini_section(path: Path, section: str) -> Optional[dict[str, str]]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError) as exc:
        first = str(exc).splitlines()[0]
        raise ConfigError(f"{path}: expected a valid ini file, found {first}") from None
    if not parser.has_section(section):
        return None
    return dict(parser.items(section))


def _pyproject_options(path: Path, read: Read) -> Optional[dict[str, Any]]:
    tool = read(path).get("tool")
    pytest_table = tool.get("pytest") if isinstance(tool, dict) else None
    if not isinstance(pytest_table, dict):
        return None
    options: dict[str, Any] = {}
    legacy = pytest_table.get("ini_options")
    if isinstance(legacy, dict):
        options.update(legacy)
    # pytest 9's native table: the same options as TOML values, beside ini_options.
    options.update({k: v for k, v in pytest_table.items() if k != "ini_options"})
    return options


def pytest_config(start: Path, read: Read = read_toml) -> tuple[Optional[Path], Mapping[str, Any]]:
    """The file pytest would take its ini options from, walking up from ``start`` in pytest's
    order (pytest.ini, .pytest.ini, pyproject.toml, tox.ini, setup.cfg), and the options."""
    for directory in (start, *start.parents):
        for name in ("pytest.ini", ".pytest.ini"):
            if (directory / name).is_file():
                path = directory / name
                return path, _ini_section(path, "pytest") or {}
        candidates: tuple[tuple[str, Optional[str]], ...] = (
            ("pyproject.toml", None),
            ("tox.ini", "pytest"),
            ("setup.cfg", "tool:pytest"),
        )
        for name, section in candidates:
            path = directory / name
            if not path.is_file():
                continue
            found = (
                _pyproject_options(path, read) if section is None else _ini_section(path, section)
            )
            if found is not None:
                return path, found
    return None, {}


def _project_name(root: Path, read: Read) -> Optional[str]:
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return None
    table = read(pyproject).get("project")
    name = table.get("name") if isinstance(table, dict) else None
    return re.sub(r"[-.]+", "_", name).lower() if isinstance(name, str) else None


def layout(root: Path, read: Read = read_toml) -> tuple[frozenset[str], tuple[Path, ...]]:
    """The project's top-level import names and the directory they import from: ``src/``
    when it holds code, else the root (packages with ``__init__.py``, and the module or
    package named like ``[project] name``)."""
    hint = _project_name(root, read)
    src = root / "src"
    if src.is_dir():
        names = {
            p.stem if p.suffix == ".py" else p.name
            for p in src.iterdir()
            if not p.name.startswith(("_", "."))
            and (
                (p.is_dir() and p.name.isidentifier())
                or (p.suffix == ".py" and p.stem != "conftest")
            )
        }
        if names:
            return frozenset(names), (src,)
    names = {
        p.name
        for p in root.iterdir()
        if p.is_dir() and p.name not in NOT_CODE and (p / "__init__.py").is_file()
    }
    if hint and ((root / hint).is_dir() or (root / f"{hint}.py").is_file()):
        names.add(hint)
    return frozenset(names), (root,)


def discover_project(start: Path) -> Project:
    """The project ``start`` belongs to. Its root is where pytest finds its rootdir (the
    directory of its ini options), else the nearest ``[tool.truegreen]`` table's, else the
    nearest directory with a ``pyproject.toml`` or ``setup.py``, else ``start``."""
    start = start.resolve()
    if start.is_file():
        start = start.parent
    # One parse per file for the whole run: pytest's options, our table, the project's name
    # and the rules all read the same pyproject.toml.
    reader = Project(start)
    config_file, options = pytest_config(start, reader.toml)
    table_file, table = find_table(start, reader.toml)
    if config_file is not None:
        root = config_file.parent
    elif table_file is not None:
        root = table_file.parent
    else:
        marked = (d for d in (start, *start.parents)
                  if (d / "pyproject.toml").is_file() or (d / "setup.py").is_file())  # fmt: skip
        root = next(marked, start)
    audit: Any = table.get("audit", {})
    if not isinstance(audit, dict):
        found = settings.describe(audit)
        raise ConfigError(f"{table_file}: {settings.TABLE}: expected a table, found {found}")
    checked = settings.check(audit, str(table_file), registry.all_rules())
    packages, source_roots = layout(root, reader.toml)
    return Project(
        root=root,
        packages=packages,
        source_roots=source_roots,
        pytest_options=options,
        pytest_config_file=config_file,
        settings=checked,
        _documents=reader._documents,
    )
