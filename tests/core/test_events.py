"""The event stream's schema, and readers that check records against it before trusting them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from truegreen.core import events
from truegreen.core.errors import DataError
from truegreen.core.metrics import read_dir, read_stream, summarize

PHASE = {
    "event": "phase", "t": 2.0, "test": "a.py::t", "phase": "call", "outcome": "passed",
    "duration": 0.5,
}  # fmt: skip


def test_a_record_of_every_field_in_its_type_has_no_problem() -> None:
    assert events.problem(PHASE) is None
    assert events.problem({**PHASE, "t": 2, "extra": "a newer writer's field"}) is None
    spawn = {"event": "spawn", "t": 1.0, "test": None, "program": "git", "verb": None,
             "site": "a.py:3", "pid": 7}  # fmt: skip
    assert events.problem(spawn) is None  # "anonymous" is optional, the nulls allowed


def test_a_kind_this_version_does_not_define_has_no_problem() -> None:
    assert events.problem({"event": "from_a_newer_writer", "t": "whenever"}) is None


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({k: v for k, v in PHASE.items() if k != "outcome"},
         "phase: field 'outcome': expected string, found nothing"),
        ({**PHASE, "duration": "0.5"}, "phase: field 'duration': expected number, found str '0.5'"),
        ({**PHASE, "duration": True}, "phase: field 'duration': expected number, found bool True"),
        ({**PHASE, "test": None}, "phase: field 'test': expected string, found NoneType None"),
        ({"event": "listen", "protocol": "tcp", "port": 8.0, "pid": 1},
         "listen: field 'port': expected int, found float 8.0"),
        ({"t": 1.0}, "expected an 'event' naming the kind of record, found None"),
        ({"event": "env_reads", "t": 1.0, "test": "t", "names": ["A", 1]},
         "env_reads: field 'names': expected list of strings, found list ['A', 1]"),
    ],
)  # fmt: skip
def test_a_missing_or_mistyped_field_is_named(record: dict[str, Any], expected: str) -> None:
    assert events.problem(record) == expected


def test_every_kind_the_docs_list_has_a_name_constant() -> None:
    names = {
        events.PROCESS, events.SESSION_START, events.SESSION_END, events.TEST_START,
        events.TEST_END, events.PHASE, events.FIXTURE, events.FIXTURE_TEARDOWN, events.VIOLATION,
        events.SPAWN,
        events.UNGUARDED, events.LISTEN, events.ENV_READS,
    }  # fmt: skip
    assert set(events.KINDS) == names
    assert events.header(1.0, 2, 3, "child") == {
        "v": events.VERSION, "event": "process", "t": 1.0, "pid": 2, "ppid": 3, "role": "child"
    }  # fmt: skip
    assert events.problem(events.header(1.0, 2, 3, "child")) is None


def _stream(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


HEADER = '{"v": 1, "event": "process", "t": 1.0, "pid": 2, "ppid": 1, "role": "session"}'
START = '{"event": "test_start", "t": 1.0, "test": "a.py::t"}'


def test_a_record_that_parses_but_breaks_the_schema_is_skipped_and_counted(
    tmp_path: Path,
) -> None:
    """Ablation: delete `skipped.append((number, problem))` in `src/truegreen/core/metrics.py`:
    the mistyped phase is no longer counted. Restored."""
    path = _stream(
        tmp_path / "session-2.jsonl",
        HEADER,
        START,
        '{"event": "phase", "t": 2.0, "test": "a.py::t", "phase": "call", "duration": 1}',
        "[1, 2]",
        '{"event": "test_end", "t": 2.0, "test": "a.py::t", "duration": null}',
    )
    stream = read_stream(path)
    assert [r["event"] for r in stream.records] == ["process", "test_start", "test_end"]
    assert stream.skipped == [
        (3, "phase: field 'outcome': expected string, found nothing"),
        (4, "expected a JSON object, found list"),
    ]
    summary = summarize(read_dir(tmp_path))
    assert summary.tests == {}  # the phase was not trusted, so not summed
    assert summary.skipped == [
        f"{path}:3: phase: field 'outcome': expected string, found nothing",
        f"{path}:4: expected a JSON object, found list",
    ]


def test_a_stream_of_another_version_is_a_data_error_naming_file_and_line(
    tmp_path: Path,
) -> None:
    """Ablation: replace `version != events.VERSION` with `False` in
    `src/truegreen/core/metrics.py`: the file is read as if it were version 1. Restored."""
    path = _stream(tmp_path / "s.jsonl", HEADER.replace('"v": 1', '"v": 2'), START)
    assert read_stream(_stream(tmp_path / "ok.jsonl", HEADER, START)).records  # premise
    expected = rf"^{re.escape(str(path))}:1: expected schema version 1, found 2$"
    with pytest.raises(DataError, match=expected):
        read_stream(path)


def test_a_line_that_is_not_json_is_a_data_error(tmp_path: Path) -> None:
    path = _stream(tmp_path / "s.jsonl", HEADER, "{not json")
    expected = rf"^{re.escape(str(path))}:2: expected one JSON record, found "
    with pytest.raises(DataError, match=expected):
        read_stream(path)


def test_a_directory_without_streams_is_a_data_error(tmp_path: Path) -> None:
    where = re.escape(str(tmp_path))
    with pytest.raises(DataError, match=rf"^{where}: expected \*\.jsonl event streams, found none"):
        read_dir(tmp_path)
    with pytest.raises(DataError, match=rf"^{where}/no: expected a metrics directory, found none"):
        read_dir(tmp_path / "no")
