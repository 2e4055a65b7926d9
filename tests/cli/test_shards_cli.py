"""truegreen shards verify and plan as commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_shards import good
from truegreen.cli import main
from truegreen.guards.git import head as git_head


@pytest.fixture(autouse=True)
def no_head(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The manifests here are made by hand and name no commit: verify runs where nothing names
    the head either (no GITHUB_SHA, outside any checkout), as a project without git does."""
    monkeypatch.delenv("GITHUB_SHA", raising=False)
    monkeypatch.chdir(tmp_path)
    assert git_head(str(tmp_path)) is None  # premise: no checkout holds it


def write(directory: Path, shards: dict[int, dict[str, object]]) -> Path:
    directory.mkdir()
    for k, data in shards.items():
        (directory / f"shard-{k}-of-3.json").write_text(json.dumps(data))
    return directory


def test_verify_as_a_real_command_with_json(tmp_path: Path) -> None:
    shards = good()
    shards[3]["exitstatus"] = 1
    directory = write(tmp_path / "manifests", shards)
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "shards", "verify", str(directory), "--format",
         "json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    document = json.loads(done.stdout)
    assert document["ok"] is False
    failed = [c for c in document["checks"] if not c["ok"]]
    assert failed == [
        {"name": "every shard green", "ok": False, "detail": "shard 3 (exit status 1)"}
    ]


def test_a_manifest_with_a_wrong_field_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = good()
    shards[1]["selected"] = "everything"
    directory = write(tmp_path / "manifests", shards)
    assert main(["shards", "verify", str(directory)]) == 2
    assert capsys.readouterr().err == (
        f"truegreen: error: {directory / 'shard-1-of-3.json'}: key 'selected': expected list "
        "of strings, found str 'everything'\n"
    )


def verify_tampered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shard: dict[str, Any]
) -> tuple[int, str]:
    """``shards verify`` over a good run of three shards whose first manifest is ``shard``:
    its exit status and what it printed on stderr, after proving the good run verifies."""
    directory = write(tmp_path / "good", good())
    assert main(["shards", "verify", str(directory)]) == 0  # premise: the untouched run holds
    capsys.readouterr()
    shards = good()
    shards[1] = shard
    directory = write(tmp_path / "manifests", shards)
    status = main(["shards", "verify", str(directory)])
    err = capsys.readouterr().err
    return status, err.replace(f"truegreen: error: {directory / 'shard-1-of-3.json'}: ", "")


# Every field of a finished manifest, and the type its message names.
FIELDS = [
    ("format", "int"), ("k", "int"), ("n", "int"), ("complete", "bool"), ("mode", "string"),
    ("collected", "list of strings"), ("collected_digest", "string"), ("selection", "object"),
    ("eligible", "list of strings"), ("selected", "list of strings"),
    ("deselected", "object of lists of strings"), ("units", "object of strings"),
    ("outcomes", "object of strings"), ("must_run", "list of strings"),
    ("exitstatus", "int or null"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "expected"), FIELDS)
def test_a_finished_manifest_missing_any_field_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, expected: str
) -> None:
    """A manifest of `{"format": 1, "k": 1, "n": 1, "complete": true, "exitstatus": 0}` alone
    verified "all ok": a finished manifest must hold every field.

    Ablation: replace `one.required or complete` with `one.required` in
    `src/truegreen/core/manifests.py`."""
    assert key in good()[1]  # premise: a finished shard's field
    assert good()[1]["complete"] is True
    shard = {k: v for k, v in good()[1].items() if k != key}
    assert main_line(tmp_path, capsys, shard) == (2, f"key {key!r}: expected {expected}, "
                                                  "found nothing")  # fmt: skip


def main_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shard: dict[str, Any]
) -> tuple[int, str]:
    status, err = verify_tampered(tmp_path, capsys, shard)
    assert err.count("\n") == 1, err  # one line
    return status, err.rstrip("\n")


MISTYPED: list[tuple[str, object, str]] = [
    ("format", "1", "expected int, found str '1'"),
    ("format", 2, "expected 1, found 2"),
    ("k", True, "expected int, found bool True"),
    ("k", 0, "expected int >= 1, found int 0"),
    ("n", 1.5, "expected int, found float 1.5"),
    ("complete", "yes", "expected bool, found str 'yes'"),
    ("mode", "random", "expected one of digest, duration, external, found str 'random'"),
    ("collected", "t.py", "expected list of strings, found str 't.py'"),
    ("collected_digest", 7, "expected string, found int 7"),
    ("selection", {"args": "tests", "keyword": "", "markexpr": ""},
     "['args']: expected list of strings, found str 'tests'"),
    ("eligible", None, "expected list of strings, found null"),
    ("selected", [7], "[0]: expected string, found int 7"),
    ("deselected", {"conftest": "t.py::test_0"},
     "['conftest']: expected list of strings, found str 't.py::test_0'"),
    ("units", {"t.py::test_0": ["t.py"]}, "['t.py::test_0']: expected string, found list ['t.py']"),
    ("outcomes", {"t.py::test_0": "green"}, "['t.py::test_0']: expected one of passed, failed, "
     "skipped, error, xfailed, xpassed, found str 'green'"),
    ("must_run", "t.py::test_0", "expected list of strings, found str 't.py::test_0'"),
    ("exitstatus", -1, "expected int >= 0, found int -1"),
    ("exitstatus", float("nan"), "expected int or null, found float nan"),
]  # fmt: skip


@pytest.mark.parametrize(("key", "value", "expected"), MISTYPED)
def test_a_mistyped_field_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: object, expected: str
) -> None:
    """Ablation: replace `one.problem(data[one.name])` with `None` in
    `src/truegreen/core/manifests.py`."""
    shard = {**good()[1], key: value}
    assert repr(good()[1][key]) != repr(value)  # premise: a change
    where = expected if expected.startswith("[") else f": {expected}"
    assert main_line(tmp_path, capsys, shard) == (2, f"key {key!r}{where}")


GONE = "t.py::test_gone"
CONTRADICTORY: list[tuple[dict[str, Any], str]] = [
    ({"outcomes": {"t.py::test_0": "failed"}},
     "key 'exitstatus': expected non-zero, as 'outcomes' has 't.py::test_0' failed, found 0"),
    ({"outcomes": {"t.py::test_0": "error"}},
     "key 'exitstatus': expected non-zero, as 'outcomes' has 't.py::test_0' error, found 0"),
    ({"exitstatus": None}, "key 'exitstatus': expected int once 'complete' is true, found null"),
    ({"k": 4}, "key 'k': expected a shard from 1 to n=3, found 4"),
    ({"collected_digest": "0" * 64},
     "key 'collected_digest': expected the SHA-256 of 'collected' (6319e0fbc16b...), found "
     f"'{'0' * 64}'"),
    ({"outcomes": {GONE: "passed"}}, f"key 'outcomes': expected node ids from 'collected', "
     f"found '{GONE}'"),
    ({"selected": [GONE]}, f"key 'selected': expected node ids from 'collected', found '{GONE}'"),
    ({"units": {GONE: GONE}}, f"key 'units': expected node ids from 'collected', found '{GONE}'"),
    ({"deselected": {"conftest": [GONE]}},
     f"key 'deselected'['conftest']: expected node ids from 'collected', found '{GONE}'"),
    ({"eligible": [f"t.py::test_{i}" for i in range(8)]},
     "key 'eligible': expected the 9 collected ids the user's selection kept ('collected' less "
     "the 'deselected' of pytest's own selection), found 8 ids"),
]  # fmt: skip


@pytest.mark.parametrize(("changes", "expected"), CONTRADICTORY)
def test_fields_that_contradict_each_other_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], changes: dict[str, Any], expected: str
) -> None:
    """Exit status 0 with a failed test verified as "every shard green"; each field must agree
    with the others.

    Ablation: replace `status == 0 and red is not None` with `False` in
    `src/truegreen/core/manifests.py`."""
    shard = {**good()[1], **changes}
    assert all(good()[1][key] != value for key, value in changes.items())  # premise: a change
    assert main_line(tmp_path, capsys, shard) == (2, expected)


def test_plan_predicts_each_shard_without_running_tests(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(
        "import pytest\n\n@pytest.mark.parametrize('x', range(4))\ndef test_p(x): pass\n\n"
        + "".join(f"def test_{i}(): pass\n" for i in range(8))
        + "def test_would_fail(): assert False\n"
    )
    (pytester.path / "d.json").write_text(
        json.dumps({"test_plan_predicts_each_shard_without_running_tests.py::test_0": 5.0})
    )
    pytester.chdir()
    assert main(["shards", "plan", "--count", "2", "--mode", "duration", "--durations",
                 "d.json", "--format", "json", "--", str(pytester.path)]) == 0  # fmt: skip
    document = json.loads(capsys.readouterr().out)
    assert sum(s["tests"] for s in document["shards"]) == 13
    # The one recorded duration is also the median every other test counts: test_p's four
    # parameters make the largest unit.
    assert document["largest_unit"]["unit"].endswith("::test_p")
    assert document["largest_unit"]["seconds"] == 20.0


def test_a_directory_without_manifests_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrong path in the verify job (the download step put the manifests elsewhere) is a usage
    error, not a red shard: nothing was there to verify.

    Ablation: replace `not found` with `False` in `src/truegreen/core/manifests.py`.
    """
    directory = tmp_path / "manifests"
    directory.mkdir()
    (directory / "notes.txt").write_text("not a manifest\n")
    assert not list(directory.glob("shard-*.json"))
    assert main(["shards", "verify", str(directory)]) == 2
    assert capsys.readouterr().err == (
        f"truegreen: error: {directory}: expected shard manifests (shard-K-of-N.json, written by "
        "pytest --truegreen-manifest=DIR), found none\n"
    )
