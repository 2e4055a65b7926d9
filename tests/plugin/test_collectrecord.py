"""The collect-gate recording plugin inside a real pytest run: what it writes."""

from __future__ import annotations

import json
import os

import pytest


def record_of(pytester: pytest.Pytester, *args: str) -> dict[str, object]:
    target = pytester.path / "record.json"
    pytester.runpytest_subprocess(
        "--collect-only", "-p", "truegreen.plugin.collectrecord",
        f"--truegreen-collect-record={target}", *args,
    )  # fmt: skip
    document: dict[str, object] = json.loads(target.read_text(encoding="utf-8"))
    return document


def test_it_records_collected_deselected_and_ignored_files_by_real_path(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\ntestpaths = tests\nnorecursedirs = build\n")
    pytester.makepyfile(**{
        "tests/test_kept": "def test_a():\n    pass\n\ndef test_b():\n    pass\n",
        "tests/test_dropped": "def test_slow():\n    pass\n",
        "tests/build/test_built": "def test_c():\n    pass\n",
        "tests/check_named": "def test_d():\n    pass\n",
    })  # fmt: skip
    root = os.path.realpath(pytester.path)
    record = record_of(pytester, "-k", "not slow")
    assert record["format"] == 1
    assert record["args_source"] == "testpaths"
    assert record["args"] == [f"{root}/tests"]
    assert record["collected"] == {f"{root}/tests/test_kept.py": 2}
    assert record["deselected"] == {f"{root}/tests/test_dropped.py": 1}
    assert f"{root}/tests/build" in record["ignored"]  # type: ignore[operator]
    assert f"{root}/tests/check_named.py" in record["visited"]  # type: ignore[operator]
    assert f"{root}/tests/check_named.py" not in record["files"]  # type: ignore[operator]
    assert record["options"] == {"ignore": [], "ignore_glob": [], "deselect": [],
                                 "keyword": "not slow", "markexpr": ""}  # fmt: skip


def test_a_collection_error_is_recorded_with_the_exception_line(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_broken="import no_such_module_here\n")
    root = os.path.realpath(pytester.path)
    record = record_of(pytester)
    assert record["errors"] == {
        f"{root}/test_broken.py": "ModuleNotFoundError: No module named 'no_such_module_here'"
    }
