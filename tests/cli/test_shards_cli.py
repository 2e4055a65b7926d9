"""truegreen shards verify and plan as commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.test_shards import good
from truegreen.cli import main


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
        f"truegreen: error: {directory / 'shard-1-of-3.json'}: key 'selected': expected list, "
        "found str\n"
    )


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
