from __future__ import annotations

import json

import pytest

from truegreen.plugin.sharedcache import merged_failures


def test_a_session_adds_its_failures_to_what_the_others_left() -> None:
    started = {"a.py::t": True}
    mine = {"a.py::t": True, "b.py::t": True}
    now = {"a.py::t": True, "c.py::t": True}
    assert merged_failures(started, mine, now) == {
        "a.py::t": True,
        "b.py::t": True,
        "c.py::t": True,
    }


def test_a_session_removes_only_the_failures_it_saw_pass() -> None:
    started = {"a.py::t": True, "c.py::t": True}
    mine = {"c.py::t": True}
    now = {"a.py::t": True, "c.py::t": True, "d.py::t": True}
    assert merged_failures(started, mine, now) == {"c.py::t": True, "d.py::t": True}


def test_a_failure_another_session_cleared_stays_cleared() -> None:
    started = {"c.py::t": True}
    mine = {"c.py::t": True}
    now: dict[str, bool] = {}
    assert merged_failures(started, mine, now) == {}


def test_a_file_session_keeps_what_another_session_wrote_meanwhile(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: delete `lfplugin.lastfailed = merged` in
    `src/truegreen/plugin/sharedcache.py`."""
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(
        test_mine="""
        import json
        from pathlib import Path

        def test_another_session_ends_meanwhile():
            entry = Path(".pytest_cache/v/cache/lastfailed")
            entry.parent.mkdir(parents=True, exist_ok=True)
            entry.write_text(json.dumps({"test_other.py::test_x": True}))

        def test_fails():
            assert False
        """
    )
    result = pytester.runpytest_subprocess(
        "--truegreen-tree-guard=off", "--truegreen-only-file=test_mine.py", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=1, failed=1)  # premise: the other session's entry was written
    written = json.loads((pytester.path / ".pytest_cache/v/cache/lastfailed").read_text())
    assert written == {"test_other.py::test_x": True, "test_mine.py::test_fails": True}
