"""Sharding as data: units, digest stability, duration balance, and the verify checks."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from truegreen.core.errors import ConfigError
from truegreen.core.manifests import Check, eligible, is_selection, parse, verify
from truegreen.core.shards import (
    ShardSpec,
    assign_by_digest,
    assign_by_duration,
    collection_digest,
    moved,
    parse_shard,
    unit_of,
)


@pytest.mark.parametrize(("text", "spec"), [("1/1", ShardSpec(1, 1)), (" 3 / 8 ", ShardSpec(3, 8))])
def test_parse_shard(text: str, spec: ShardSpec) -> None:
    assert parse_shard(text) == spec


@pytest.mark.parametrize(
    "text", ["9/8", "0/2", "2", "a/b", "1/0", "-1/3", "", "1/1001", "1/100000000000000000000"]
)
def test_a_broken_shard_spec_says_what_it_expects(text: str) -> None:
    """Past 1000 shards, balancing by duration ranked a billion shards for every unit and never
    ended: the count is bounded, as a shard beyond the count is.

    Ablation: replace `1 <= k <= n <= MAX_SHARDS` with `1 <= k <= n` in
    `src/truegreen/core/shards.py`.
    """
    expected = rf"^--truegreen-shard: expected K/N with 1 <= K <= N <= 1000, found '{text}'$"
    with pytest.raises(ConfigError, match=expected):
        parse_shard(text)


@pytest.mark.parametrize(
    ("nodeid", "group", "unit"),
    [
        ("tests/a.py::test_x[1-2]", None, "tests/a.py::test_x"),
        ("tests/a.py::TestC::test_m[a::b]", None, "tests/a.py::TestC::test_m"),
        ("tests/a.py::test_y", None, "tests/a.py::test_y"),
        ("tests/a.py::test_y", "db", "xdist_group:db"),
    ],
)
def test_units(nodeid: str, group: str | None, unit: str) -> None:
    assert unit_of(nodeid, group) == unit


units = st.lists(st.text(min_size=1, max_size=20), min_size=1, max_size=60, unique=True)


@given(units, units, st.integers(min_value=1, max_value=16))
def test_digest_mode_never_moves_an_existing_unit(old: list[str], added: list[str], n: int) -> None:
    before = assign_by_digest(old, n)
    after = assign_by_digest([*old, *added], n)
    assert moved(before, after) == 0
    assert set(before.values()) <= set(range(n))


def _suite(rng: random.Random, size: int, heavy: bool) -> dict[str, float]:
    suite = {}
    for i in range(size):
        slow = heavy and rng.random() < 0.02
        suite[f"t{i // 20}.py::test_{i}"] = (
            rng.uniform(2, 20) if slow else rng.lognormvariate(-2, 1)
        )
    return suite


@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("heavy", [False, True])
def test_duration_mode_balances_and_moves_little(n: int, heavy: bool) -> None:
    rng = random.Random(n * 10 + heavy)
    suite = _suite(rng, 2000, heavy)
    grown = dict(suite)
    grown.update({f"new.py::test_{i}": rng.lognormvariate(-2, 1) for i in range(20)})
    before, after = assign_by_duration(suite, n), assign_by_duration(grown, n)
    assert before.imbalance <= 1.02
    assert moved(before.shard_of, after.shard_of) < 0.10 * len(suite)


def manifest(k: int, n: int, selected: list[str], **changes: Any) -> dict[str, Any]:
    collected = [f"t.py::test_{i}" for i in range(9)]
    data = {
        "format": 1, "k": k, "n": n, "mode": "digest", "collected": collected,
        "collected_digest": collection_digest(collected), "eligible": collected,
        "selected": selected, "units": {t: t for t in collected},
        "outcomes": dict.fromkeys(selected, "passed"), "must_run": [], "exitstatus": 0,
        "complete": True, "deselected": {},
        "selection": {"args": ["tests"], "keyword": "", "markexpr": ""},
    }  # fmt: skip
    data.update(changes)
    return data


def good() -> dict[int, dict[str, Any]]:
    tests = [f"t.py::test_{i}" for i in range(9)]
    return {k + 1: manifest(k + 1, 3, tests[k::3]) for k in range(3)}


def check(shards: dict[int, dict[str, Any]]) -> list[Check]:
    """verify over manifests as the CLI reads them from these JSON objects."""
    return verify({k: parse(m, Path(f"shard-{k}-of-3.json")) for k, m in shards.items()})


def failing(checks: list[Any]) -> dict[str, str]:
    return {c.name: c.detail for c in checks if not c.ok}


def test_verify_passes_a_run_that_adds_up() -> None:
    assert failing(check(good())) == {}


def test_verify_names_a_missing_shard() -> None:
    shards = good()
    del shards[2]
    assert failing(check(shards))["all 3 shards present"] == "missing shard 2"


def test_verify_names_a_test_run_twice() -> None:
    shards = good()
    shards[2]["selected"] = [*shards[2]["selected"], "t.py::test_0"]
    assert failing(check(shards))["no test in two shards"] == (
        "1 tests ran twice: t.py::test_0 (shards 1 and 2)"
    )


def test_verify_names_a_red_and_an_incomplete_shard() -> None:
    shards = good()
    shards[1]["exitstatus"] = 1
    shards[3]["complete"] = False
    found = failing(check(shards))
    assert found["every shard green"] == "shard 1 (exit status 1)"
    assert found["every shard ran to the end"] == "shard 3 did not finish (crashed or killed)"


def test_verify_diffs_a_shard_that_collected_something_else() -> None:
    shards = good()
    other = [*shards[2]["collected"][:-1], "t.py::test_random_42"]
    shards[2].update(
        collected=other,
        collected_digest=collection_digest(other),
        eligible=other,
        units={t: t for t in other},
    )
    detail = failing(check(shards))["the same tests collected everywhere"]
    assert detail.startswith("shard 2 collected a different set from shard 1")
    assert "-t.py::test_8" in detail
    assert "+t.py::test_random_42" in detail


def test_verify_names_a_must_run_test_that_passed_nowhere() -> None:
    shards = good()
    shards[1]["must_run"] = ["t.py::test_0", "t.py::gone"]
    shards[1]["outcomes"]["t.py::test_0"] = "skipped"
    assert failing(check(shards))["every must-run test passed somewhere (2 patterns)"] == (
        "t.py::gone (matches no collected test), t.py::test_0 (did not pass in any shard)"
    )


def test_verify_names_the_plugin_whose_deselected_tests_ran_nowhere() -> None:
    """One manifest of a run another plugin split in three (the jobs' manifests landed on one
    name): the tests it deselected ran in no shard.

    Ablation: replace `eligible - ran` with `set()` in `src/truegreen/core/manifests.py`."""
    tests = [f"t.py::test_{i}" for i in range(9)]
    alone = manifest(1, 1, tests[:3], deselected={"pytest_split.plugin": tests[3:]})
    assert alone["eligible"] == tests  # premise: the split is not the user's selection
    found = failing(verify({1: parse(alone, Path("shard-1-of-1.json"))}))
    assert found == {"every test ran in a shard (9 tests)": (
        "6 never ran: t.py::test_3, t.py::test_4, t.py::test_5, t.py::test_6, t.py::test_7; "
        "deselected by another plugin and run in no other shard: pytest_split.plugin (6)"
    )}  # fmt: skip


def test_verify_says_why_a_test_ran_nowhere_when_no_plugin_deselected_it() -> None:
    shards = good()
    shards[1]["outcomes"].pop("t.py::test_0")  # selected, but the shard stopped before it
    shards[2]["selected"].remove("t.py::test_1")  # dropped without a pytest_deselected report
    shards[2]["outcomes"].pop("t.py::test_1")
    assert failing(check(shards)) == {"every test ran in a shard (9 tests)": (
        "2 never ran: t.py::test_0, t.py::test_1; 1 selected but not run (the shard stopped "
        "early); 1 removed from the collection without a pytest_deselected report (a plugin "
        "or conftest)"
    )}  # fmt: skip


def test_what_the_user_s_selection_left_out_is_not_expected_anywhere() -> None:
    deselected = {"_pytest.mark": ["t.py::test_8"], "conftest": ["t.py::test_7"]}
    collected = [f"t.py::test_{i}" for i in range(9)]
    assert eligible(collected, deselected) == collected[:8]
    assert is_selection("_pytest.main")
    assert is_selection("truegreen.plugin.order")
    assert not is_selection("pytest_split.plugin")
    assert not is_selection("conftest")


@given(st.data())
def test_verify_fails_whenever_the_selections_do_not_partition(data: st.DataObject) -> None:
    tests = [f"t.py::test_{i}" for i in range(9)]
    owners = data.draw(st.lists(st.sets(st.integers(1, 3)), min_size=9, max_size=9))
    shards = {k: manifest(k, 3, [t for t, o in zip(tests, owners) if k in o]) for k in (1, 2, 3)}
    partition = all(len(o) == 1 for o in owners)
    assert all(c.ok for c in check(shards)) is partition
