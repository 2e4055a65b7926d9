"""Which child the guards reach: the shim kept on its PYTHONPATH, and why one is unguarded."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.core import events
from truegreen.guards import children
from truegreen.guards.children import SHIM_DIR, keep_shim, python_flags, unguarded, with_shim
from truegreen.guards.policy import RUN_VAR


def test_the_shim_goes_first_and_the_other_entries_keep_their_order() -> None:
    joined = os.pathsep.join
    assert with_shim(None) == SHIM_DIR
    assert with_shim(joined(["a", "b"])) == joined([SHIM_DIR, "a", "b"])
    assert with_shim(joined(["a", SHIM_DIR, "b"])) == joined([SHIM_DIR, "a", "b"])


def test_a_mapping_gains_the_shim_the_run_and_the_test() -> None:
    env = {"PYTHONPATH": "src"}
    assert keep_shim(env, "/run") is None
    assert env["PYTHONPATH"] == os.pathsep.join([SHIM_DIR, "src"])
    assert env[RUN_VAR] == "/run"


def test_a_binary_mapping_stays_binary() -> None:
    env = {b"PYTHONPATH": b"src"}
    assert keep_shim(env, "/run") is None
    assert env[b"PYTHONPATH"] == os.fsencode(os.pathsep.join([SHIM_DIR, "src"]))
    assert env[RUN_VAR.encode()] == b"/run"


def test_a_read_only_mapping_is_said_to_be_one() -> None:
    from types import MappingProxyType

    assert keep_shim(MappingProxyType({"PYTHONPATH": "."}), "/run") == (
        "its environment could not be given the shim (a read-only mapping)"
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [(["-I", "-c", "x"], "I"), (["-Es", "x.py"], "Es"), (["-W", "error", "-S"], "S"),
     (["-Werror", "-X", "dev", "-B"], "B"), (["-c", "-I"], ""), (["-m", "pip", "-E"], ""),
     (["--check-hash-based-pycs", "always", "-S"], "S"), (["x.py", "-I"], "")],
)  # fmt: skip
def test_it_reads_the_interpreter_options_before_the_program(
    args: list[str], expected: str
) -> None:
    assert python_flags(args) == expected


def test_why_a_child_is_unguarded(tmp_path: Path) -> None:
    """Ablation: replace `letter in flags` with `False` in `src/truegreen/guards/children.py`:
    no Python child is named for its options.

    Ablation: replace `"python" not in shebang` with `False` in
    `src/truegreen/guards/children.py`: the shell script is taken for a Python child."""
    script = tmp_path / "tool"
    script.write_text("#!/usr/bin/env python3 -I\nprint()\n")
    shell = tmp_path / "run.sh"
    shell.write_text("#!/bin/sh\ntrue\n")
    assert unguarded(["python3", "-I", "-c", "pass"]) == children._FLAGS["I"]
    assert unguarded(["python", "-E", "x.py"]) == children._FLAGS["E"]
    assert unguarded(["python3.12", "-S"]) == children._FLAGS["S"]
    assert unguarded([str(script)]) == children._FLAGS["I"]
    assert unguarded([str(shell)]) == children.NOT_PYTHON


def test_a_guarded_child_has_no_reason(tmp_path: Path) -> None:
    """Ablation: replace `"python" not in shebang` with `True` in
    `src/truegreen/guards/children.py`."""
    script = tmp_path / "tool"
    script.write_text(f"#!{sys.executable}\nprint()\n")
    assert unguarded(["/bin/sh"]) == children.NOT_PYTHON  # premise: a program is read
    assert unguarded([sys.executable, "-c", "pass"]) is None
    assert unguarded([str(script), "--flag"]) is None
    assert unguarded(["no-such-program-here"]) is None  # nothing will run


@pytest.mark.platforms("linux")
def test_a_shim_that_cannot_load_truegreen_reports_a_record_of_the_schema(
    tmp_path: Path,
) -> None:
    """The shim spells its one record by hand (truegreen cannot be loaded): it must hold to
    the schema, or the parent would drop it. A copy of the shim away from truegreen, in a
    virtual environment without it, started by a shell script that sets PYTHONPATH itself
    (the guard of this test would put the real shim first in a Python child's)."""
    copy = tmp_path / "elsewhere" / "guards" / "shim"
    copy.mkdir(parents=True)
    shutil.copy(Path(SHIM_DIR) / "sitecustomize.py", copy)
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    script = tmp_path / "start.sh"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{copy}" exec "{python}" -c pass\n')
    script.chmod(0o755)
    env = {"PATH": os.environ.get("PATH", ""), RUN_VAR: str(run_dir),
           "PYTEST_CURRENT_TEST": "tests/test_a.py::test_b (call)"}  # fmt: skip
    done = subprocess.run([str(script)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    files = list(run_dir.glob("child-*.jsonl"))
    assert len(files) == 1
    records = [json.loads(line) for line in files[0].read_text().splitlines()]
    assert [events.problem(r) for r in records] == [None, None]
    assert records[0]["v"] == events.VERSION
    assert records[1]["event"] == events.UNGUARDED
    assert records[1]["test"] == "tests/test_a.py::test_b"
    assert records[1]["reason"] == f"another interpreter ({python}): cannot import truegreen"
