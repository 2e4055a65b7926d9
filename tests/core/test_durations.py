"""The durations file: {nodeid: seconds}, or one line naming the file and what is wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from truegreen.core.durations import read_durations
from truegreen.core.errors import ConfigError


def test_it_reads_seconds_by_node_id(tmp_path: Path) -> None:
    path = tmp_path / ".test_durations"
    path.write_text('{"a.py::t": 1, "a.py::u": 0.25}', encoding="utf-8")
    assert read_durations(str(path)) == {"a.py::t": 1.0, "a.py::u": 0.25}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1]", "expected a JSON object, found list"),
        ('{"a.py::t": -1}', "'a.py::t': expected seconds from 0 to 604800, found -1"),
        ('{"a.py::t": true}', "'a.py::t': expected seconds from 0 to 604800, found True"),
        ("{", "expected JSON of {node id: seconds}, found "),
        ("[" * 100_000 + "]" * 100_000, "expected JSON of {node id: seconds}, found JSON nested "
         "too deeply"),
    ],
)  # fmt: skip
def test_anything_else_is_one_line_naming_the_file(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / ".test_durations"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=f"^{re.escape(f'{path}: {expected}')}"):
        read_durations(str(path))
    with pytest.raises(ConfigError, match=r"/none: expected a readable durations file, found "):
        read_durations(str(tmp_path / "none"))


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999", "1.8e9"])
def test_seconds_that_are_not_a_finite_number_below_a_week_are_one_line(
    tmp_path: Path, value: str
) -> None:
    """Python's json reads NaN and Infinity, and `shards plan --mode duration` printed
    "floor nans".

    Ablation: replace `not 0 <= value <= events.MAX_SECONDS` with `value < 0` in
    `src/truegreen/core/durations.py`."""
    path = tmp_path / ".test_durations"
    path.write_text(f'{{"a.py::t": {value}}}', encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))  # premise: json itself reads it
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}: 'a.py::t': expected "
                       r"seconds from 0 to 604800, found (-?inf|nan|1800000000\.0)$"):  # fmt: skip
        read_durations(str(path))
