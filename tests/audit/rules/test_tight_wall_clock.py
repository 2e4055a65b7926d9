"""TG406 tight-wall-clock-assertion: which spans and which bounds it reads."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit import registry
from truegreen.audit.base import Project
from truegreen.audit.engine import check_source


def flagged(source: str, tmp_path: Path) -> list[int]:
    path = tmp_path / "tests" / "test_x.py"
    rule = registry.rule("TG406")
    return [
        f.line for f in check_source(Project(tmp_path), path, "tests/test_x.py", source, [rule])
    ]


SPAN = "import time\n\n\ndef test_it():\n    t0 = time.monotonic()\n    assert {}\n"


def test_a_bound_of_a_second_or_more_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `not 0 < limit < TIGHT` with `not 0 < limit` in
    `src/truegreen/audit/rules/tight_wall_clock.py`."""
    assert flagged(SPAN.format("time.monotonic() - t0 < 0.5"), tmp_path) == [6]  # premise
    assert flagged(SPAN.format("time.monotonic() - t0 < 1"), tmp_path) == []
    assert flagged(SPAN.format("time.monotonic() - t0 < 30"), tmp_path) == []


def test_a_lower_bound_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `{ast.Lt: True, ast.LtE: True, ast.Gt: False, ast.GtE: False}` with
    `{ast.Lt: True, ast.LtE: True, ast.Gt: True, ast.GtE: True}` in
    `src/truegreen/audit/rules/tight_wall_clock.py`."""
    assert flagged(SPAN.format("time.monotonic() - t0 < 0.5"), tmp_path) == [6]  # premise
    assert flagged(SPAN.format("time.monotonic() - t0 > 0.5"), tmp_path) == []
    assert flagged(SPAN.format("time.monotonic() - t0 >= 0.1"), tmp_path) == []


def test_a_difference_that_is_not_of_two_clock_readings_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `self._reads_clock(node.right)` with `True` in
    `src/truegreen/audit/rules/tight_wall_clock.py`."""
    assert flagged(SPAN.format("time.monotonic() - t0 < 0.5"), tmp_path) == [6]  # premise
    assert flagged(SPAN.format("time.monotonic() - offset < 0.5"), tmp_path) == []


REBOUND = """\
import time


def test_it():
    took = time.monotonic()
    took = time.monotonic() - took
    {}
    assert took < 0.5
"""


def test_a_name_rebound_to_something_else_is_forgotten(tmp_path: Path) -> None:
    """Ablation: replace `self.spans.discard(key)` with `None` in
    `src/truegreen/audit/rules/tight_wall_clock.py`."""
    assert flagged(REBOUND.format("pass"), tmp_path) == [8]  # premise: a span is held
    assert flagged(REBOUND.format("took = len('abc')"), tmp_path) == []


def test_a_name_of_another_function_is_not_a_span(tmp_path: Path) -> None:
    """Ablation: replace `id(function) if function is not None else 0` with `0` in
    `src/truegreen/audit/rules/tight_wall_clock.py`."""
    source = (
        "import time\n\n\ndef test_a():\n    t0 = time.monotonic()\n    took = time.monotonic()"
        " - t0\n    assert took < 0.5\n\n\ndef test_b(took):\n    assert took < 0.5\n"
    )
    assert flagged(source, tmp_path) == [7]
