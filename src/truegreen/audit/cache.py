"""The audit's cache: a run's report, kept under a key of everything its findings depend on.

The rules look across files (a test's helpers and fixtures, the conftest chain, the project's
own modules, its configuration), so one file's findings can change when another file does.
The key therefore covers, besides the rules chosen, their settings, the paths audited,
truegreen's version and its code, the content of every Python file of the project (hidden
directories and virtualenvs aside) and of the files pytest's options and the dependency
lists come from: an unchanged tree is answered from the cache, and any change to any of those
audits afresh. A stale finding would be a bug; a miss only costs the audit it would have cost.

Entries live in ``.truegreen_cache/audit/`` at the project root (under pytest's ``cache_dir``
when the project sets one), one JSON file per key, written to a temporary file and renamed
into place, so concurrent runs never read half an entry. An entry that cannot be read or
does not hold what it should is ignored and written again; a cache that cannot be written
is left alone. The directory carries a ``CACHEDIR.TAG`` and a ``.gitignore`` of ``*``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from truegreen.audit.base import Finding, Project, Rule

FORMAT = 1  # of an entry; a change of layout makes every older entry a miss
DIRECTORY = ".truegreen_cache"
KEPT = 32  # entries kept (the newest); older ones are removed after a write
TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by truegreen.\n"
    "# For information about cache directory tags, see:\n"
    "#\thttps://bford.info/cachedir/spec.html\n"
)
GITIGNORE = "# Created by truegreen automatically.\n*\n"
# Directories whose .py files are not part of the key: not the project's (caches, virtualenv
# contents, other tools' trees). Hidden ones and those holding a pyvenv.cfg are left out too.
OUTSIDE = frozenset({"__pycache__", "site-packages", "node_modules", "__pypackages__"})
# Files the configuration and the dependency lists are read from, at the root.
CONFIG_GLOBS = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml",
                "tox.ini", "setup.cfg", "*requirements*.txt", "requirements/*.txt",
                "requirements/*.in")  # fmt: skip


def directory(project: Project) -> Path:
    """Where the project's audit entries go: ``<cache_dir>/truegreen/audit`` when pytest's
    ``cache_dir`` is set (read as pytest reads it), else ``.truegreen_cache/audit``."""
    configured = project.pytest_options.get("cache_dir")
    if isinstance(configured, str) and configured.strip():
        base = project.root / os.path.expanduser(os.path.expandvars(configured.strip()))
        return base / "truegreen" / "audit"
    return project.root / DIRECTORY / "audit"


def _project_files(
    project: Project, paths: Sequence[Path], dirs: Optional[list[str]] = None
) -> list[Path]:
    """Every ``.py`` file the rules may read: under the root (see OUTSIDE), under the source
    roots, and under each path audited that lies outside the root. The directories walked
    (and those left out for holding a ``pyvenv.cfg``) are added to ``dirs`` when given."""
    found: set[str] = set()
    outside = [*project.source_roots, *(p.resolve() for p in paths)]
    tops = [project.root, *(p for p in outside if project.root not in (p, *p.parents))]
    for top in sorted({str(p) for p in tops}):
        if os.path.isfile(top):
            found.add(top)
            continue
        for here, dirnames, filenames in os.walk(top):
            named = [d for d in dirnames if not d.startswith(".") and d not in OUTSIDE]
            dirnames[:] = [
                d for d in named if not os.path.isfile(os.path.join(here, d, "pyvenv.cfg"))
            ]
            if dirs is not None:
                dirs.append(here)
                dirs.extend(os.path.join(here, d) for d in named if d not in dirnames)
            found.update(os.path.join(here, f) for f in filenames if f.endswith(".py"))
    return [Path(p) for p in sorted(found)]


def _code_stamp() -> list[tuple[str, int, int]]:
    """Size and modification time of each module of truegreen: an edited checkout (the
    version unchanged) is a new audit."""
    package = Path(__file__).resolve().parent.parent
    stamp = []
    for here, dirnames, filenames in os.walk(package):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                info = os.stat(os.path.join(here, name))
                stamp.append((os.path.join(here, name), info.st_size, info.st_mtime_ns))
    return stamp


def key(
    project: Project,
    paths: Sequence[Path],
    rules: Sequence[type[Rule]],
) -> str:
    """The hash of everything a run's report on ``paths`` with ``rules`` depends on."""
    import truegreen

    digest = hashlib.sha256()

    def add(value: Any) -> None:
        digest.update(json.dumps(value, sort_keys=True, default=str).encode())
        digest.update(b"\0")

    add([FORMAT, truegreen.__version__, sys.version, sys.platform, _code_stamp()])
    add([str(project.root), sorted(project.packages), [str(r) for r in project.source_roots]])
    add([str(project.pytest_config_file), dict(project.pytest_options), dict(project.settings)])
    add([[r.code for r in rules], [str(p.resolve()) for p in paths]])
    for path in [*_config_files(project), *_project_files(project, paths)]:
        try:
            data = path.read_bytes()
        except OSError as exc:
            data = f"unreadable: {exc.errno}".encode()
        add([str(path), len(data)])
        digest.update(data)
    return digest.hexdigest()


def _config_files(project: Project) -> list[Path]:
    config = sorted({p for glob in CONFIG_GLOBS for p in project.root.glob(glob) if p.is_file()})
    if project.pytest_config_file is not None:
        config.append(project.pytest_config_file)
    return config


def watched(project: Project, paths: Sequence[Path]) -> list[str]:
    """What the quick answer stamps (:mod:`truegreen.audit.quick`): the files the key reads,
    and the directories walked to find them, whose stamps change when a file is added."""
    dirs: list[str] = []
    files = [str(p) for p in (*_config_files(project), *_project_files(project, paths, dirs))]
    return sorted({*dirs, *files, *(os.path.dirname(p) for p in files)})


def load(project: Project, name: str, by_code: dict[str, type[Rule]]) -> Optional[dict[str, Any]]:
    """The entry under ``name``, its findings as :class:`Finding` and its rules as classes;
    None when there is none, or it cannot be read, or it does not hold what an entry holds."""
    try:
        with open(directory(project) / f"{name}.json", encoding="utf-8") as handle:
            entry = json.load(handle)
        if entry["format"] != FORMAT or entry["key"] != name:
            return None
        findings = tuple(
            Finding(str(code), str(rule), str(path), int(line), int(col), str(message))
            for code, rule, path, line, col, message in entry["findings"]
        )
        return {
            "findings": findings,
            "files": int(entry["files"]),
            "rules": tuple(by_code[str(code)] for code in entry["rules"]),
            "skipped": tuple(str(p) for p in entry["skipped"]),
            "skipped_line": str(entry["skipped_line"]),
        }
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(project: Project, name: str, report: Any) -> None:
    """Write the entry for ``name`` (a temporary file renamed into place); any failure to
    write leaves the cache as it was."""
    entry = {
        "format": FORMAT,
        "key": name,
        "findings": [[f.code, f.name, f.path, f.line, f.col, f.message] for f in report.findings],
        "files": report.files,
        "rules": [r.code for r in report.rules],
        "skipped": list(report.skipped),
        "skipped_line": report.skipped_line,
    }
    where = directory(project)
    try:
        _prepare(where)
        _write(where / f"{name}.json", json.dumps(entry))
        _prune(where)
    except OSError:
        return


def prepare(project: Project) -> None:
    """Make the project's cache directory if it is missing; a failure is left to the write."""
    with contextlib.suppress(OSError):
        _prepare(directory(project))


def _prepare(where: Path) -> None:
    """The entries' directory, and the tag and ignore file of the cache's top directory."""
    where.mkdir(parents=True, exist_ok=True)
    top = where.parent
    for name, text in (("CACHEDIR.TAG", TAG), (".gitignore", GITIGNORE)):
        if not (top / name).is_file():
            _write(top / name, text)


def _write(path: Path, text: str) -> None:
    descriptor, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _prune(where: Path) -> None:
    entries = []
    for path in where.glob("*.json"):
        try:
            entries.append((path.stat().st_mtime_ns, path))
        except OSError:
            continue  # removed by a concurrent run
    for _, path in sorted(entries, reverse=True)[KEPT:]:
        with contextlib.suppress(OSError):
            path.unlink()
