"""Choosing rules by selector, and matching paths against the table's globs."""

from __future__ import annotations

import pytest

from truegreen.audit.base import Rule
from truegreen.audit.settings import choose, path_matches


class Parse(Rule):
    code, name = "TG000", "syntax-error"


class Reads(Rule):
    code, name = "TG101", "reads-source-code"


class Sleeps(Rule):
    code, name = "TG402", "sleep-in-test"


class Seams(Rule):
    code, name, default = "TG601", "call-outside-seam", False


RULES = (Parse, Reads, Sleeps, Seams)


def codes(select: list[str] | None, ignore: list[str]) -> list[str]:
    return [rule.code for rule in choose(RULES, select, ignore)]


def test_nothing_selected_runs_the_default_rules() -> None:
    assert codes(None, []) == ["TG000", "TG101", "TG402"]


@pytest.mark.parametrize(
    ("select", "expected"),
    [
        (["ALL"], ["TG000", "TG101", "TG402"]),
        (["TG4"], ["TG000", "TG402"]),
        (["reads-source-code"], ["TG000", "TG101"]),
        (["tg101"], ["TG000", "TG101"]),
        (["ALL", "TG601"], ["TG000", "TG101", "TG402", "TG601"]),
        (["call-outside-seam"], ["TG000", "TG601"]),
    ],
)
def test_a_selection_replaces_the_defaults(select: list[str], expected: list[str]) -> None:
    assert codes(select, []) == expected


def test_an_opt_in_rule_is_not_picked_by_a_prefix_or_all() -> None:
    """Ablation: replace `selector.upper() == rule.code or selector == rule.name` with
    `names(selector, rule)` in `src/truegreen/audit/settings.py`."""
    assert "TG601" in codes(["TG601"], [])  # premise: it can be selected
    assert codes(["ALL", "TG6", "TG"], []) == ["TG000", "TG101", "TG402"]


@pytest.mark.parametrize(
    ("ignore", "expected"),
    [
        (["TG4"], ["TG000", "TG101", "TG601"]),
        (["sleep-in-test", "TG6"], ["TG000", "TG101"]),
        (["syntax-error"], ["TG101", "TG402", "TG601"]),
        (["ALL"], []),
    ],
)
def test_ignore_leaves_rules_out_opt_in_ones_too(ignore: list[str], expected: list[str]) -> None:
    assert codes(["ALL", "TG601"], ignore) == expected


@pytest.mark.parametrize(
    ("path", "glob", "expected"),
    [
        ("tests/legacy/test_a.py", "tests/legacy/*", True),
        ("tests/legacy/deep/test_a.py", "tests/legacy/*", True),
        ("tests/legacy/test_a.py", "tests/legacy", True),
        ("tests/legacy/test_a.py", "tests/legacy/", True),
        ("tests/legacy_two/test_a.py", "tests/legacy", False),
        ("tests/unit/conftest.py", "conftest.py", True),
        ("tests/fixtures/data/x.py", "fixtures", True),
        ("tests/test_fixtures.py", "fixtures", False),
        ("tests/test_a.py", "**/test_*.py", True),
        ("src/app.py", "tests/*", False),
    ],
)
def test_path_globs(path: str, glob: str, expected: bool) -> None:
    assert path_matches(path, glob) is expected


@pytest.mark.parametrize(
    ("select", "extend", "expected"),
    [
        (None, ["TG601"], ["TG000", "TG101", "TG402", "TG601"]),
        (["TG4"], ["call-outside-seam", "TG1"], ["TG000", "TG101", "TG402", "TG601"]),
        (None, ["TG6", "ALL"], ["TG000", "TG101", "TG402"]),  # opt-in: by code or name only
    ],
)
def test_extend_select_adds_to_what_is_selected(
    select: list[str] | None, extend: list[str], expected: list[str]
) -> None:
    assert [rule.code for rule in choose(RULES, select, [], extend)] == expected


def test_ignore_wins_over_extend_select() -> None:
    """Ablation: replace `not any(names(s, rule) for s in ignore)` with `True` in
    `src/truegreen/audit/settings.py`."""
    assert "TG601" in [r.code for r in choose(RULES, None, [], ["TG601"])]  # premise
    assert [r.code for r in choose(RULES, None, ["TG6"], ["TG601"])] == ["TG000", "TG101", "TG402"]
