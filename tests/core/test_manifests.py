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
    split = parse({**manifest(1, 3, []), "deselected": {"pytest_split.plugin": ["t.py::a"]}}, PATH)
    assert split.deselected == {"pytest_split.plugin": ("t.py::a",)}
    assert parse({"format": 1, "k": 2, "n": 3, "complete": False}, PATH) == Manifest(1, 2, 3, False)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"k": None}, "key 'k': expected int, found NoneType"),
        ({"k": True}, "key 'k': expected int, found bool"),
        ({"complete": 1}, "key 'complete': expected bool, found int"),
        ({"format": 2}, "key 'format': expected 1, found 2"),
        ({"selected": ["t.py::test_0", 7]}, "key 'selected'[1]: expected str, found int"),
        ({"units": {"t.py::test_0": ["t.py"]}},
         "key 'units'['t.py::test_0']: expected str, found list"),
        ({"exitstatus": "0"}, "key 'exitstatus': expected int or null, found str"),
        ({"deselected": {"conftest": "t.py::test_0"}},
         "key 'deselected'['conftest']: expected list, found str"),
        ({"deselected": {"conftest": ["t.py::test_0", 7]}},
         "key 'deselected'['conftest'][1]: expected str, found int"),
    ],
)  # fmt: skip
def test_a_mistyped_field_is_named_with_the_file(changes: dict[str, Any], expected: str) -> None:
    """Ablation: delete `raise DataError(f"{path}: key {where}[{index}]: expected str, found
    {found}")` in `src/truegreen/core/manifests.py`: a list holding a number is read. Restored."""
    parse(manifest(1, 3, []), PATH)  # premise: the manifest without the change reads
    with pytest.raises(DataError, match=f"^{re.escape(f'{PATH}: {expected}')}$"):
        parse({**manifest(1, 3, []), **changes}, PATH)


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
