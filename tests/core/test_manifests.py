"""Reading shard manifests: typed, checked field by field, one line naming file and key."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_shards import manifest
from truegreen.core.errors import DataError
from truegreen.core.manifests import Manifest, load, load_dir, parse

PATH = Path("manifests/shard-1-of-3.json")


def test_a_manifest_reads_into_its_fields() -> None:
    actual = parse(manifest(1, 3, ["t.py::test_0"]), PATH)
    assert actual.selected == ("t.py::test_0",)
    assert actual.units["t.py::test_3"] == "t.py::test_3"
    assert actual.exitstatus == 0
    deselected = {"pytest_split.plugin": ["t.py::test_5"]}
    split = parse({**manifest(1, 3, []), "deselected": deselected}, PATH)
    assert split.deselected == {"pytest_split.plugin": ("t.py::test_5",)}
    assert parse({"format": 1, "k": 2, "n": 3, "complete": False}, PATH) == Manifest(1, 2, 3, False)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"k": None}, "key 'k': expected int, found null"),
        ({"k": True}, "key 'k': expected int, found bool True"),
        ({"complete": 1}, "key 'complete': expected bool, found int 1"),
        ({"format": 2}, "key 'format': expected 1, found 2"),
        ({"selected": ["t.py::test_0", 7]}, "key 'selected'[1]: expected string, found int 7"),
        ({"units": {"t.py::test_0": ["t.py"]}},
         "key 'units'['t.py::test_0']: expected string, found list ['t.py']"),
        ({"exitstatus": "0"}, "key 'exitstatus': expected int or null, found str '0'"),
        ({"deselected": {"conftest": "t.py::test_0"}},
         "key 'deselected'['conftest']: expected list of strings, found str 't.py::test_0'"),
        ({"deselected": {"conftest": ["t.py::test_0", 7]}},
         "key 'deselected'['conftest'][1]: expected string, found int 7"),
    ],
)  # fmt: skip
def test_a_mistyped_field_is_named_with_the_file(changes: dict[str, Any], expected: str) -> None:
    """Ablation: replace `not isinstance(item, str)` with `False` in
    `src/truegreen/core/events.py`: a list holding a number is read."""
    parse(manifest(1, 3, []), PATH)  # premise: the manifest without the change reads
    with pytest.raises(DataError, match=f"^{re.escape(f'{PATH}: {expected}')}$"):
        parse({**manifest(1, 3, []), **changes}, PATH)


def test_a_manifest_written_as_the_session_started_needs_only_its_first_fields() -> None:
    started = {"format": 1, "k": 2, "n": 3, "complete": False}
    assert parse(started, PATH) == Manifest(1, 2, 3, False)
    collected = {**manifest(1, 3, []), "complete": False, "outcomes": {}, "exitstatus": None}
    assert parse(collected, PATH).exitstatus is None


def test_deep_nesting_is_one_line_naming_the_file(tmp_path: Path) -> None:
    """``json.loads`` raises RecursionError, not ValueError, for JSON nested a few thousand
    deep.

    Ablation: replace `RecursionError` with `ZeroDivisionError` in
    `src/truegreen/core/jsonfile.py`."""
    path = tmp_path / "shard-1-of-1.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(RecursionError):  # premise: what json itself does with it
        json.loads(path.read_text(encoding="utf-8"))
    with pytest.raises(DataError, match=rf"^{re.escape(str(path))}: expected a JSON shard "
                       "manifest, found JSON nested too deeply$"):  # fmt: skip
        load(path)


def test_a_missing_field_or_a_document_of_another_shape_is_named() -> None:
    with pytest.raises(DataError, match=r"^manifests/shard-1-of-3\.json: key 'n': expected int, "
                       "found nothing$"):  # fmt: skip
        parse({"format": 1, "k": 1, "complete": True}, PATH)
    with pytest.raises(DataError, match=r"^manifests/shard-1-of-3\.json: expected a JSON object, "
                       "found list$"):  # fmt: skip
        parse([], PATH)


def test_unreadable_files_and_names_that_disagree_are_named(tmp_path: Path) -> None:
    (tmp_path / "shard-1-of-3.json").write_text("{", encoding="utf-8")
    where = re.escape(str(tmp_path))
    with pytest.raises(DataError, match=rf"^{where}/shard-1-of-3\.json: expected a JSON shard "):
        load(tmp_path / "shard-1-of-3.json")
    with pytest.raises(DataError, match=rf"^{where}/none\.json: expected a readable manifest"):
        load(tmp_path / "none.json")
    (tmp_path / "shard-1-of-3.json").write_text(json.dumps(manifest(2, 3, [])), encoding="utf-8")
    with pytest.raises(DataError, match=r"expected k=1 n=3 as the name says, found k=2 n=3$"):
        load_dir(tmp_path)
    with pytest.raises(DataError, match=r"/no: expected a directory of shard manifests, found"):
        load_dir(tmp_path / "no")
