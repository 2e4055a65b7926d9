"""TG305 bare-python beyond its case file: the message and what keeps it silent."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit import registry
from truegreen.audit.base import Finding, Project
from truegreen.audit.engine import check_source

RUN = "import subprocess\nimport sys\n\n\ndef test_it():\n    subprocess.run({argv})\n"


def audit(source: str, tmp_path: Path) -> list[Finding]:
    path = tmp_path / "tests" / "test_x.py"
    return check_source(
        Project(tmp_path), path, "tests/test_x.py", source, [registry.rule("TG305")]
    )


def test_it_names_the_program_and_sys_executable(tmp_path: Path) -> None:
    findings = audit(RUN.format(argv='["python3", "-V"]'), tmp_path)
    assert [f.message for f in findings] == [
        'starts a bare "python3", whatever interpreter is first on PATH: start '
        "sys.executable, the interpreter running the tests"
    ]


def test_a_path_to_an_interpreter_is_not_bare(tmp_path: Path) -> None:
    """Ablation: replace `PYTHON.fullmatch(program)` with `PYTHON.search(program)` in
    `src/truegreen/audit/rules/bare_python.py`."""
    assert len(audit(RUN.format(argv='["python3", "-V"]'), tmp_path)) == 1  # premise
    assert audit(RUN.format(argv='["/usr/bin/python3", "-V"]'), tmp_path) == []
    assert audit(RUN.format(argv='[sys.executable, "-V"]'), tmp_path) == []


def test_a_name_assigned_more_than_once_is_not_followed(tmp_path: Path) -> None:
    """Ablation: replace `len(values) == 1` with `len(values) >= 1` in
    `src/truegreen/audit/rules/bare_python.py`."""
    once = RUN.replace("    subprocess", '    argv = ["python", "-V"]\n    subprocess')
    assert len(audit(once.format(argv="argv"), tmp_path)) == 1  # premise: one assignment
    twice = once.replace("    subprocess", "    argv = [sys.executable, '-V']\n    subprocess")
    assert audit(twice.format(argv="argv"), tmp_path) == []


def test_a_call_that_starts_no_program_is_not_flagged(tmp_path: Path) -> None:
    """`app.run("python")` is not a spawner, though its last name is `run`.

    Ablation: replace `callee in FIRST or callee in SHELL` with `True` in
    `src/truegreen/audit/rules/bare_python.py`."""
    assert len(audit(RUN.format(argv='["python"]'), tmp_path)) == 1  # premise
    other = RUN.replace("subprocess.run", "app.run").format(argv='"python"')
    assert audit(other, tmp_path) == []
