"""``--truegreen-only-file`` and ``--truegreen-only-ids``: part of a larger selection, for
``truegreen run --isolate-files`` and the hunters' reruns. The rest counts as run elsewhere,
not as deselected. ``--truegreen-basetemp-out``: the run's temporary base, for its files."""

from __future__ import annotations

import os
from collections.abc import Container
from pathlib import Path
from typing import Optional

import pytest

from truegreen.core import protocol
from truegreen.core.errors import DataError
from truegreen.guards.hook import quiet
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.stash import SHARDED_OUT_KEY


def _keep(config: pytest.Config, items: list[pytest.Item], keep: list[pytest.Item]) -> None:
    kept = {id(i) for i in keep}
    away = [i for i in items if id(i) not in kept]
    if away:
        config.stash[SHARDED_OUT_KEY] = config.stash.get(SHARDED_OUT_KEY, set()) | {
            i.nodeid for i in away
        }
        config.hook.pytest_deselected(items=away)
        items[:] = keep


class OnlyFile(HooksOnly):
    """Keeps the tests of one file; registered only when the hidden option is given.

    The other files of the selection are not even collected, so their module-level code
    runs only in their own processes, and a file's process pays for one file's imports.
    """

    def __init__(self, path: str, root: Path) -> None:
        self.path = Path(path).as_posix()
        target = os.path.normpath(root / path)
        # a node id that names no file of this machine (a plugin's own kind of node) prunes
        # nothing: the whole selection is collected and the rest deselected
        self.target = target if os.path.isfile(target) else None

    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(self, collection_path: Path) -> Optional[bool]:
        if self.target is None:
            return None
        here = os.path.normpath(collection_path)
        if here != self.target and not self.target.startswith(here + os.sep):
            return True
        return None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        _keep(config, items, [i for i in items if i.nodeid.split("::", 1)[0] == self.path])


class OnlyIds(HooksOnly):
    """Keeps the tests whose node ids a file lists, one a line, within the user's selection."""

    def __init__(self, nodeids: Container[str]) -> None:
        self.nodeids = nodeids

    @classmethod
    def from_file(cls, path: str) -> OnlyIds:
        try:
            ids = protocol.read_ids(Path(path).read_text(encoding="utf-8"), path)
        except (OSError, DataError) as exc:
            raise pytest.UsageError(f"truegreen: {protocol.ONLY_IDS.flag}: {exc}") from None
        return cls(frozenset(ids))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        _keep(config, items, [i for i in items if i.nodeid in self.nodeids])


class RunBasetemp(HooksOnly):
    """Writes where the sessions of ``truegreen run --isolate-files`` keep their temporary
    directories: this (collecting) session's basetemp, numbered and rotated by pytest as in
    any run, or the user's ``--basetemp``; and pytest's retention policy for it.

    Each file's session then gets a ``--basetemp`` under it, as xdist gives its workers one
    under its controller's, so a run is one numbered directory however many files it has.
    """

    def __init__(self, path: str) -> None:
        self.path = path

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        config = session.config
        factory: pytest.TempPathFactory = config._tmp_path_factory  # type: ignore[attr-defined]
        written = protocol.Basetemp(
            str(factory.getbasetemp()),
            config.option.basetemp is not None,
            str(config.getini("tmp_path_retention_policy")),
        )
        with quiet(), open(self.path, "w", encoding="utf-8") as handle:
            handle.write(written.text())
