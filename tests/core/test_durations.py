"""The durations file: {nodeid: seconds}, or one line naming the file and what is wrong."""

from __future__ import annotations

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
        ('{"a.py::t": -1}', "'a.py::t': expected seconds >= 0, found -1"),
        ('{"a.py::t": true}', "'a.py::t': expected seconds >= 0, found True"),
        ("{", "expected JSON of {node id: seconds}, found "),
    ],
)
def test_anything_else_is_one_line_naming_the_file(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / ".test_durations"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=f"^{re.escape(f'{path}: {expected}')}"):
        read_durations(str(path))
    with pytest.raises(ConfigError, match=r"/none: expected a readable durations file, found "):
        read_durations(str(tmp_path / "none"))
