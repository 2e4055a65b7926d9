"""The guards' records: written as the event schema defines them, read back only if they hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from truegreen.core import events
from truegreen.guards.policy import Policy
from truegreen.guards.runtime import Guard
from truegreen.guards.violations import Spawn, Violation, from_record, header


def _fields(record: dict[str, Any]) -> set[str]:
    return set(record) - {events.EVENT}


def _schema(kind: str) -> set[str]:
    """The fields a writer that knows them all writes: the required ones, and the optional
    ones the records below set (a child's header names no run)."""
    return {f.name for f in events.KINDS[kind].fields if f.required or f.name != "run"}


def test_violations_spawns_and_headers_are_written_as_the_schema_defines_them() -> None:
    violation = Violation(
        "write", None, "collection", "open for writing", "/x", "a.py:1", True, 9, mode="block"
    )
    spawn = Spawn("a.py::t", "git", "commit", "a.py:2", 9, anonymous=True)
    for record in (violation.record(), spawn.record(), header("child")):
        assert events.problem(record) is None
        assert _fields(record) == _schema(record[events.EVENT])
    named = header("worker", "20261202T000000Z-abcdef")  # the metrics' writer names its run
    assert events.problem(named) is None
    assert _fields(named) == {field.name for field in events.KINDS[events.PROCESS].fields}


def test_a_record_that_breaks_the_schema_is_not_read_back_as_a_violation() -> None:
    """Ablation: replace `events.problem(data) is not None` with `False` in
    `src/truegreen/guards/violations.py`: the mistyped record becomes a Violation. Restored."""
    record = Violation("network", "a.py::t", "a.py::t", "connect to", "h:1", "a.py:3", True, 9)
    good = record.record()
    assert isinstance(from_record(good), Violation)  # premise: the record reads back
    assert from_record({**good, "blocked": "yes"}) is None
    assert from_record({k: v for k, v in good.items() if k != "site"}) is None


def test_a_violation_keeps_its_mode_through_the_stream() -> None:
    """A child's warning must stay a warning in the session that reads it back.

    Ablation: replace `mode if isinstance(mode, str) else None` with `None` in
    `src/truegreen/guards/violations.py`: the warning comes back as a failure. Restored."""
    warned = Violation("read", "a.py::t", "a.py::t", "open for reading", "/x", "a.py:1", False, 9,
                       mode="warn")  # fmt: skip
    assert warned.warning  # premise
    back = from_record(warned.record())
    assert isinstance(back, Violation)
    assert back.warning
    plain = Violation("network", "a.py::t", "a.py::t", "connect to", "h:1", "a.py:3", True, 9)
    assert "mode" not in plain.record()
    assert not plain.warning


def test_a_child_stream_line_that_is_no_record_is_skipped_not_fatal(tmp_path: Path) -> None:
    """What another process of the run appended is read line by line: a line nested too deeply
    to read, or JSON that is not an object, is skipped; the records around it still count.

    Ablation: replace `(ValueError, RecursionError)` with `ValueError` in
    `src/truegreen/guards/runtime.py`. Ablation: replace `type(record) is dict` with `True` in
    `src/truegreen/guards/runtime.py`."""
    violation = Violation("write", "t.py::a", "t.py::a", "open for writing", "/x", "a:1", True, 9)
    lines = [json.dumps(header("child")), "[" * 100_000 + "]" * 100_000, "[1, 2]", "3",
             json.dumps(violation.record())]  # fmt: skip
    (tmp_path / "child-9.jsonl").write_text("".join(line + "\n" for line in lines))
    with pytest.raises(RecursionError):  # premise: the deep line cannot be read
        json.loads(lines[1])
    guard = Guard(Policy(run_dir=str(tmp_path)), role="session")
    fresh = guard.ingest()
    assert [record["event"] for record in fresh] == ["process", "violation"]
    assert [v.target for v in guard.violations] == ["/x"]
