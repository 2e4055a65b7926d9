"""What a collection reached, made and kept, for ``truegreen collect-gate``; loaded with ``-p``.

``pytest -p truegreen.plugin.collectrecord --truegreen-collect-record=FILE --collect-only``
writes one JSON document to FILE at the end of the session: the files pytest was pointed at,
visited, ignored, turned into collectors, and the items it kept or deselected, with absolute
paths, so nothing depends on pytest's human output.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any, Optional

import pytest

from truegreen.core import formats, protocol
from truegreen.plugin.listing import HooksOnly


def pytest_addoption(parser: pytest.Parser) -> None:
    option = protocol.COLLECT_RECORD
    parser.addoption(option.flag, dest=option.dest, metavar="FILE", help=option.meaning)


def pytest_configure(config: pytest.Config) -> None:
    target = config.getoption(protocol.COLLECT_RECORD.dest)
    if target:
        config.pluginmanager.register(
            CollectRecord(config, Path(target)), "truegreen-collectrecord"
        )


class CollectRecord(HooksOnly):
    """Gathers the collection's facts as it happens; writes them once at the end."""

    def __init__(self, config: pytest.Config, target: Path) -> None:
        self.config = config
        self.target = target
        self.visited: set[str] = set()
        self.files: set[str] = set()
        self.ignored: set[str] = set()
        self.errors: dict[str, str] = {}
        self.skipped: dict[str, str] = {}
        self.collected: dict[str, int] = {}
        self.deselected: dict[str, int] = {}

    @pytest.hookimpl(wrapper=True)
    def pytest_ignore_collect(
        self, collection_path: Path
    ) -> Generator[None, Optional[bool], Optional[bool]]:
        ignored = yield
        if ignored:
            self.ignored.add(_real(collection_path))
        return ignored

    def pytest_collect_file(self, file_path: Path) -> None:
        self.visited.add(_real(file_path))

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        if isinstance(collector, pytest.File):
            self.files.add(_real(collector.path))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.errors[self._path(report.nodeid)] = _last_line(str(report.longrepr))
        elif report.skipped:
            longrepr = report.longrepr
            reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
            self.skipped[self._path(report.nodeid)] = reason

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        for item in items:
            key = _real(item.path)
            self.deselected[key] = self.deselected.get(key, 0) + 1

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            key = _real(item.path)
            self.collected[key] = self.collected.get(key, 0) + 1

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        config = self.config
        source = getattr(config, "args_source", None)
        invoked = config.invocation_params.dir
        ini = ("testpaths", "python_files", "python_classes", "python_functions", "norecursedirs")
        document = {
            "format": formats.COLLECT_RECORD,
            "rootdir": _real(config.rootpath),
            "invocation_dir": _real(invoked),
            "args": [_real(_absolute(config, a)) for a in config.args],
            "args_source": source.name.lower() if source is not None else "args",
            "ini": {name: [str(v) for v in _ini(config, name)] for name in ini},
            "options": {
                "ignore": [_real(_absolute(config, p)) for p in _opt(config, "ignore")],
                "ignore_glob": [os.path.join(invoked, str(p)) for p in _opt(config, "ignore_glob")],
                "deselect": [str(p) for p in _opt(config, "deselect")],
                "keyword": config.getoption("keyword", "") or "",
                "markexpr": config.getoption("markexpr", "") or "",
            },
            "visited": sorted(self.visited),
            "files": sorted(self.files),
            "ignored": sorted(self.ignored),
            "errors": self.errors,
            "skipped": self.skipped,
            "collected": self.collected,
            "deselected": self.deselected,
        }
        self.target.write_text(json.dumps(document, indent=1), encoding="utf-8")

    def _path(self, nodeid: str) -> str:
        return _real(self.config.rootpath / nodeid.split("::", 1)[0])


@functools.cache
def _real(path: Any) -> str:
    """One spelling per file, however pytest or git reached it (symlinks resolved)."""
    return str(os.path.realpath(os.fspath(path)))


def _absolute(config: pytest.Config, arg: str) -> Path:
    path = Path(arg.split("::", 1)[0])
    return path if path.is_absolute() else config.invocation_params.dir / path


def _ini(config: pytest.Config, name: str) -> list[Any]:
    try:
        value = config.getini(name)
    except ValueError:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _opt(config: pytest.Config, name: str) -> list[Any]:
    value: Optional[list[Any]] = config.getoption(name, None)
    return list(value or [])


def _last_line(text: str) -> str:
    """The line of a collection error that names the exception (pytest's ``E   ...`` lines)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    raised = [line[1:].strip() for line in lines if line.startswith("E ")]
    return (raised[-1] if raised else lines[-1] if lines else "unknown error")[:300]
