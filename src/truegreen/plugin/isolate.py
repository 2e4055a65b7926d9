"""``--truegreen-only-file``: one test file of a larger selection, for ``truegreen run
--isolate-files``. The other files' tests count as run elsewhere, not as deselected."""

from __future__ import annotations

from pathlib import Path

import pytest

from truegreen.plugin.stash import SHARDED_OUT_KEY


class OnlyFile:
    """Keeps the tests of one file; registered only when the hidden option is given."""

    def __init__(self, path: str) -> None:
        self.path = Path(path).as_posix()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        keep = [i for i in items if i.nodeid.split("::", 1)[0] == self.path]
        away = [i for i in items if i.nodeid.split("::", 1)[0] != self.path]
        if away:
            config.stash[SHARDED_OUT_KEY] = config.stash.get(SHARDED_OUT_KEY, set()) | {
                i.nodeid for i in away
            }
            config.hook.pytest_deselected(items=away)
            items[:] = keep
