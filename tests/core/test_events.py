"""The event stream's schema, and readers that check records against it before trusting them."""

from __future__ import annotations

import json
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
    assert events.problem({"event": "from_a_newer_writer", "t": 3.0, "x": [1]}) is None
    assert events.problem({"event": "from_a_newer_writer"}) is None


def test_the_time_of_a_kind_this_version_does_not_define_is_still_checked() -> None:
    """Readers take the run's span from every record's ``t``: a newer writer's record with a
    time of NaN would make it NaN.

    Ablation: replace `(_t(),) if "t" in record else ()` with `()` in
    `src/truegreen/core/events.py`."""
    assert events.problem({"event": "from_a_newer_writer", "t": 3.0}) is None  # premise
    assert events.problem({"event": "from_a_newer_writer", "t": float("nan")}) == (
        "from_a_newer_writer: field 't': expected a finite number, found float nan"
    )


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({k: v for k, v in PHASE.items() if k != "outcome"},
         "phase: field 'outcome': expected string, found nothing"),
        ({**PHASE, "duration": "0.5"}, "phase: field 'duration': expected number, found str '0.5'"),
        ({**PHASE, "duration": True}, "phase: field 'duration': expected number, found bool True"),
        ({**PHASE, "test": None}, "phase: field 'test': expected string, found null"),
        ({"event": "listen", "protocol": "tcp", "port": 8.0, "pid": 1},
         "listen: field 'port': expected int, found float 8.0"),
        ({"t": 1.0}, "expected an 'event' naming the kind of record, found None"),
        ({"event": "env_reads", "t": 1.0, "test": "t", "names": ["A", 1]},
         "env_reads: field 'names'[1]: expected string, found int 1"),
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


NONSENSE = [
    ({**PHASE, "duration": float("nan")}, "phase: field 'duration': expected a finite number, "
     "found float nan"),
    ({**PHASE, "duration": float("inf")}, "phase: field 'duration': expected a finite number, "
     "found float inf"),
    ({**PHASE, "duration": -0.5}, "phase: field 'duration': expected number from 0 to 604800, "
     "found float -0.5"),
    ({**PHASE, "duration": 1.8e9}, "phase: field 'duration': expected number from 0 to 604800, "
     "found float 1800000000.0"),
    ({**PHASE, "t": -1}, "phase: field 't': expected number >= 0, found int -1"),
    ({**PHASE, "phase": "lunch"}, "phase: field 'phase': expected one of setup, call, teardown, "
     "found str 'lunch'"),
    ({**PHASE, "outcome": "green"}, "phase: field 'outcome': expected one of passed, failed, "
     "skipped, xfailed, found str 'green'"),
    ({"event": "session_end", "t": 2.0, "exitstatus": -3, "worker": None},
     "session_end: field 'exitstatus': expected int >= 0, found int -3"),
    ({"event": "listen", "protocol": "tcp", "port": 70000, "pid": 1},
     "listen: field 'port': expected int from 0 to 65535, found int 70000"),
    ({"event": "listen", "protocol": "sctp", "port": 7, "pid": 1},
     "listen: field 'protocol': expected one of tcp, udp, found str 'sctp'"),
]  # fmt: skip


@pytest.mark.parametrize(("record", "expected"), NONSENSE)
def test_a_value_out_of_its_range_is_named(record: dict[str, Any], expected: str) -> None:
    """A record of the right types but nonsense values (a duration of 1.8e9 s, NaN) was summed
    as if it were data.

    Ablation: replace `value < low` with `False` in `src/truegreen/core/events.py`."""
    assert events.problem(PHASE) is None  # premise: the record without the change is good
    assert events.problem(record) == expected


def test_a_time_far_from_its_file_s_first_record_is_skipped_with_its_line(
    tmp_path: Path,
) -> None:
    """One record stamped decades away from the rest made a run's wall time 1.8e9 s.

    Ablation: replace `abs(t - origin) > MAX_SECONDS` with `False` in
    `src/truegreen/core/events.py`."""
    late = '{"event": "test_end", "t": 1800000001.0, "test": "a.py::t", "duration": 0.5}'
    path = _stream(tmp_path / "session-2.jsonl", HEADER, START, late)
    assert events.problem(json.loads(late)) is None  # premise: alone, the record is good
    stream = read_stream(path)
    assert [r["event"] for r in stream.records] == ["process", "test_start"]
    assert stream.skipped == [(3, "test_end: field 't': expected a time within 604800 s of the "
                                  "file's first record (1.0), found 1800000001.0")]  # fmt: skip
    summary = summarize([stream])
    assert summary.wall == 0.0
    assert summary.unfinished == ["a.py::t"]


def test_a_stream_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    """It ended `truegreen metrics` with a RecursionError traceback.

    Ablation: replace `RecursionError` with `ZeroDivisionError` in
    `src/truegreen/core/jsonfile.py`."""
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecursionError):  # premise: what json itself does with it
        json.loads(deep)
    path = _stream(tmp_path / "session-2.jsonl", HEADER, deep)
    with pytest.raises(DataError, match=rf"^{re.escape(str(path))}:2: expected one JSON record, "
                       "found JSON nested too deeply$"):  # fmt: skip
        read_stream(path)


def test_a_stream_that_is_a_directory_is_one_line(tmp_path: Path) -> None:
    """It ended `truegreen metrics` with an IsADirectoryError traceback.

    Ablation: replace `OSError` with `ZeroDivisionError` in
    `src/truegreen/core/metrics.py`."""
    folder = tmp_path / "session-3.jsonl"
    folder.mkdir()
    assert list(tmp_path.rglob("*.jsonl")) == [folder]  # premise: the glob finds a directory
    with pytest.raises(DataError, match=rf"^{re.escape(str(folder))}: expected a readable event "
                       "stream, found Is a directory$"):  # fmt: skip
        read_dir(tmp_path)


def test_a_file_that_began_far_from_its_run_s_other_files_is_left_out_whole(
    tmp_path: Path,
) -> None:
    """A process record of 1970 beside files of today made the run's wall time 1.8e9 s.

    Ablation: replace `abs(t - middle) > events.MAX_SECONDS` with `False` in
    `src/truegreen/core/metrics.py`."""
    now = 1_800_000_000.0
    today = HEADER.replace('"t": 1.0', f'"t": {now}')
    _stream(tmp_path / "session-2.jsonl", today, START.replace('"t": 1.0', f'"t": {now + 1}'))
    _stream(tmp_path / "worker-3.jsonl", today.replace('"pid": 2', '"pid": 3'))
    old = _stream(tmp_path / "worker-4.jsonl", HEADER, START)
    assert all(not read_stream(p).skipped for p in tmp_path.iterdir())  # premise: each file alone
    streams = read_dir(tmp_path)
    assert {s.path.name: len(s.records) for s in streams} == {
        "session-2.jsonl": 2, "worker-3.jsonl": 1, "worker-4.jsonl": 0,
    }  # fmt: skip
    assert summarize(streams).wall == 1.0
    assert summarize(streams).skipped == [
        f"{old}:1: process: field 't': expected a time within 604800 s of the run's other files "
        f"(they began at {now!r}), found 1.0: the whole file is left out"
    ]
