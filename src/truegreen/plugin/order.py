"""``--truegreen-order=FILE``: exactly these tests, in exactly this order (``truegreen flakes``).

The file's format is :func:`truegreen.core.protocol.ids_text`'s.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from truegreen.core import protocol
from truegreen.core.errors import DataError
from truegreen.plugin.listing import HooksOnly
from truegreen.plugin.stash import SHARDED_OUT_KEY


class ImposedOrder(HooksOnly):
    """Keeps the listed tests in the listed order; registered only when the option is given."""

    def __init__(self, path: str) -> None:
        try:
            self.ids = protocol.read_ids(Path(path).read_text(encoding="utf-8"), path)
        except OSError as exc:
            raise pytest.UsageError(
                f"truegreen: {protocol.ORDER.flag} expected a readable file, found {exc}"
            ) from None
        except DataError as exc:
            raise pytest.UsageError(f"truegreen: {protocol.ORDER.flag}: {exc}") from None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        by_id = {item.nodeid: item for item in items}
        missing = [nodeid for nodeid in self.ids if nodeid not in by_id]
        if missing:
            raise pytest.UsageError(
                f"truegreen: {protocol.ORDER.flag} expected collected node ids, found "
                f"{len(missing)} that were not collected, first {missing[0]!r}"
            )
        wanted = set(self.ids)
        away = [item for item in items if item.nodeid not in wanted]
        if away:
            # Left out on purpose, like another shard's tests: not a deselection to report.
            config.stash[SHARDED_OUT_KEY] = config.stash.get(SHARDED_OUT_KEY, set()) | {
                item.nodeid for item in away
            }
            config.hook.pytest_deselected(items=away)
        items[:] = [by_id[nodeid] for nodeid in self.ids]
