"""``--truegreen-order=FILE``: exactly these tests, in exactly this order (``truegreen flakes``).

The file is a JSON list of node ids. A file rather than node ids on the command line: a large
suite's ids overflow the argument list, and a parametrized id holding ``::``, a space or a
bracket of its own is read back from the command line as something else.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from truegreen.plugin.stash import SHARDED_OUT_KEY


class ImposedOrder:
    """Keeps the listed tests in the listed order; registered only when the option is given."""

    def __init__(self, path: str) -> None:
        try:
            ids = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise pytest.UsageError(
                f"truegreen: --truegreen-order expected a JSON list of node ids, found {exc}"
            ) from None
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise pytest.UsageError(
                f"truegreen: --truegreen-order expected a JSON list of node ids, found {ids!r:.80}"
            )
        self.ids: list[str] = ids

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        by_id = {item.nodeid: item for item in items}
        missing = [nodeid for nodeid in self.ids if nodeid not in by_id]
        if missing:
            raise pytest.UsageError(
                f"truegreen: --truegreen-order expected collected node ids, found {len(missing)} "
                f"that were not collected, first {missing[0]!r}"
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
