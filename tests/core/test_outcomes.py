"""Two runs' outcomes compared."""

from __future__ import annotations

from truegreen.core.outcomes import Outcomes, differing


def test_differing_lists_changed_and_missing_tests_in_order() -> None:
    ambient = Outcomes(1, {"b": "failed", "a": "passed", "c": "passed"})
    sealed = Outcomes(0, {"b": "passed", "a": "passed", "d": "passed"})
    assert differing(ambient, sealed) == ["b", "c", "d"]
