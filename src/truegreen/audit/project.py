"""Find the project an audit runs in: its root, pytest options, packages and audit settings."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
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


# The files pytest takes its options from, in its order of precedence within one directory.
CONFIG_FILES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml",
                "tox.ini", "setup.cfg")  # fmt: skip


def _ini_section(path: Path, section: str) -> Optional[dict[str, str]]:
    """A section of an ini file, read with pytest's own parser (iniconfig): a value over
    several lines is joined with newlines, comments are whole lines only."""
    import iniconfig  # only when an ini file is read: most projects configure in TOML

    try:
        parsed = iniconfig.IniConfig(str(path))
    except iniconfig.ParseError as exc:
        where = f"{exc.msg} at line {exc.lineno + 1}"
        raise ConfigError(f"{path}: expected a valid ini file, found {where}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: expected a readable UTF-8 ini file, found {exc}") from None
    if section not in parsed:
        return None
    return dict(parsed[section].items())


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


def _options(path: Path, read: Read) -> Optional[dict[str, Any]]:
    """pytest's options in one of its configuration files, None when it holds none (a
    ``pytest.ini`` or ``pytest.toml`` is pytest's even when empty)."""
    name = path.name
    if name.endswith("pytest.toml"):
        table = read(path).get("pytest")
        return dict(table) if isinstance(table, dict) else {}
    if name.endswith("pytest.ini"):
        return _ini_section(path, "pytest") or {}
    if name == "pyproject.toml":
        return _pyproject_options(path, read)
    return _ini_section(path, "pytest" if name == "tox.ini" else "tool:pytest")


def pytest_config(start: Path, read: Read = read_toml) -> tuple[Optional[Path], Mapping[str, Any]]:
    """The file pytest would take its options from, and the options: the first of
    :data:`CONFIG_FILES` that holds them, walking up from ``start`` (pytest's
    ``locate_config``, from the common ancestor of its arguments)."""
    for directory in (start, *start.parents):
        for name in CONFIG_FILES:
            path = directory / name
            if path.is_file():
                found = _options(path, read)
                if found is not None:
                    return path, found
    return None, {}


def common_ancestor(paths: Sequence[Path], cwd: Path) -> Path:
    """The directory pytest starts its search for a configuration from: the deepest
    directory holding every existing path given (the working directory without any)."""
    found = [p.resolve() for p in paths if p.exists()]
    if not found:
        return cwd.resolve()
    dirs = [p if p.is_dir() else p.parent for p in found]
    return Path(os.path.commonpath(dirs))


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
    """The project ``start`` belongs to (``start``: the common ancestor of the paths audited,
    :func:`common_ancestor`). Its root is where pytest finds its rootdir (the directory of
    its options), else the nearest ``[tool.truegreen]`` table's, else the nearest directory
    with a ``pyproject.toml``, else with a ``setup.py``, else ``start``."""
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
        marked = (d for name in ("pyproject.toml", "setup.py")
                  for d in (start, *start.parents) if (d / name).is_file())  # fmt: skip
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
