"""The event stream's per-test records: valid JSON whatever the node id, written as made."""

from __future__ import annotations

import json

import pytest

from truegreen.core import events
from truegreen.core.metrics import read_dir


def test_node_ids_read_back_as_pytest_collected_them(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_names="""
        import pytest

        @pytest.fixture(name='odd "name"')
        def odd():
            return 1

        @pytest.mark.parametrize("text", ['a"b', "back\\\\slash", "caf\\u00e9", "tab\\there"])
        def test_it(text, request):
            assert request.getfixturevalue('odd "name"') == 1
        """
    )
    collected = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:randomly")
    expected = [line for line in collected.outlines if "::" in line]
    metrics = pytester.path / "metrics"
    pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}", "-p", "no:randomly")
    records = [r for s in read_dir(metrics) for r in s.records]
    assert len(expected) == 4  # premise: every awkward id was collected
    assert [r["test"] for r in records if r["event"] == "test_start"] == expected
    assert [r["test"] for r in records if r["event"] == "test_end"] == expected
    fixtures = {(r["test"], r["fixture"]) for r in records if r["event"] == "fixture"}
    assert {(test, 'odd "name"') for test in expected} <= fixtures


def test_each_record_is_in_the_file_as_soon_as_it_is_made(pytester: pytest.Pytester) -> None:
    """A test reads its own process's stream: nothing of the run so far waits in a buffer."""
    metrics = pytester.path / "metrics"
    pytester.makepyfile(
        test_reads=f"""
        import glob, json, os

        def test_first(tmp_path):
            pass

        def test_second():
            own = f"session-{{os.getpid()}}.jsonl"
            (path,) = glob.glob(os.path.join({str(metrics)!r}, "*", own))
            with open(path, encoding="utf-8") as handle:
                seen = [json.loads(line) for line in handle]
            last = [(r["event"], r.get("test", "").split("::")[-1], r.get("phase")) for r in seen]
            assert last[-10:] == [
                ("test_start", "test_first", None),
                ("fixture", "", None),
                ("fixture", "test_first", None),
                ("phase", "test_first", "setup"),
                ("phase", "test_first", "call"),
                ("fixture_teardown", "test_first", None),
                ("phase", "test_first", "teardown"),
                ("test_end", "test_first", None),
                ("test_start", "test_second", None),
                ("phase", "test_second", "setup"),
            ]
        """
    )
    result = pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    assert json.loads(next(metrics.glob("*/session-*.jsonl")).read_text().splitlines()[0])["v"] == 1


def test_every_record_written_holds_to_the_schema(pytester: pytest.Pytester) -> None:
    """The writers spell each kind's fields as core/events.py defines them, no more, no fewer."""
    pytester.makepyfile(
        test_kinds="""
        import subprocess, sys

        def test_starts_a_child(tmp_path):
            subprocess.run([sys.executable, "-c", "pass"], check=True)
        """
    )
    metrics = pytester.path / "metrics"
    pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}").assert_outcomes(passed=1)
    lines = [line for p in metrics.rglob("*.jsonl") for line in p.read_text().splitlines()]
    records = [json.loads(line) for line in lines]
    kinds = {r["event"] for r in records}
    assert {"process", "session_start", "session_end", "test_start", "phase", "fixture",
            "test_end", "spawn"} <= kinds  # fmt: skip
    for record in records:
        assert events.problem(record) is None, record
        fields = events.KINDS[record["event"]].fields
        required = {f.name for f in fields if f.required}
        assert required <= set(record) - {"event"} <= {f.name for f in fields}, record
