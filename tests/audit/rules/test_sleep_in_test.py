"""TG402 sleep-in-test: a sleep under a clock double is the subject of the test, not a wait."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit import registry
from truegreen.audit.base import Project
from truegreen.audit.engine import check_source


def flagged(source: str, tmp_path: Path) -> list[int]:
    path = tmp_path / "tests" / "test_x.py"
    rule = registry.rule("TG402")
    found = check_source(Project(tmp_path), path, "tests/test_x.py", source, [rule])
    return [f.line for f in found]


UNDER = """\
import time
from freezegun import freeze_time


def test_it():
    with {}("2012-01-14", tick=True):
        time.sleep(0.001)
"""


def test_a_sleep_inside_a_frozen_clocks_block_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `self._clocks.append((node.lineno, node.end_lineno or node.lineno))`
    with `None` in `src/truegreen/audit/rules/sleep_in_test.py`."""
    assert flagged(UNDER.format("open"), tmp_path) == [7]  # premise: another block flags it
    assert flagged(UNDER.format("freeze_time"), tmp_path) == []


COROUTINE = """\
import asyncio
import time_machine


def test_it():
    async def coroutine():
        await asyncio.sleep(0.15)

    with time_machine.travel(0{}):
        asyncio.run(coroutine())
"""


def test_a_coroutine_run_inside_a_clock_doubles_block_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `self._under_clock.add((outer, inner.func.id))` with `None` in
    `src/truegreen/audit/rules/sleep_in_test.py`."""
    before = COROUTINE.replace("    with time_machine.travel(0{}):\n", "    with open('x'):\n")
    assert flagged(before, tmp_path) == [7]  # premise: run outside a clock double, it is flagged
    assert flagged(COROUTINE.format(", tick=True"), tmp_path) == []


def test_a_coroutine_of_another_test_run_under_a_clock_is_flagged(tmp_path: Path) -> None:
    source = COROUTINE.format("") + (
        "\n\ndef test_other():\n    async def coroutine():\n        await asyncio.sleep(1)\n\n"
        "    asyncio.run(coroutine())\n"
    )
    assert flagged(source, tmp_path) == [15]
