"""truegreen repro's pure part: the CI's pytest step, the install plan, the outcomes compared."""

from __future__ import annotations

import pytest

from truegreen.core.errors import UsageError
from truegreen.core.repro import (
    PYTHON,
    compare,
    junit_key,
    junit_messages,
    plan,
    pytest_step,
    sentence,
)

WORKFLOW = """\
name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install -e .[test]
      - name: Test
        run: |
          echo starting
          python -m pytest -q \\
            -n 2 tests/ --junitxml=report.xml
      - run: echo done
"""


def test_it_reads_pytest_from_a_block_step_with_a_continued_line() -> None:
    step = pytest_step(WORKFLOW, "ci.yml")
    assert (step.line, step.args) == (12, ("-q", "-n", "2", "tests/", "--junitxml=report.xml"))
    assert step.command == "python -m pytest -q  -n 2 tests/ --junitxml=report.xml"


@pytest.mark.parametrize(
    ("run", "args"),
    [
        ("pytest -x tests", ("-x", "tests")),
        ("\"pytest -k 'not slow'\"", ("-k", "not slow")),
        ("uv run pytest -q && coverage report", ("-q",)),
        (".venv/bin/py.test", ()),
        ("truegreen run --deadline 600 -- -q tests/", ("-q", "tests/")),
    ],
)
def test_it_reads_pytest_from_a_one_line_step(run: str, args: tuple[str, ...]) -> None:
    text = f"steps:\n  - run: pip install pytest\n  - run: {run}\n"
    assert pytest_step(text, "ci.yml").args == args


def test_an_expression_only_ci_expands_is_refused() -> None:
    """Ablation: replace `"${{" in command` with `False` in
    `src/truegreen/core/repro.py`."""
    text = "steps:\n  - run: pytest -m ${{ matrix.marker }}\n"
    assert "pytest" in text  # premise: the step runs pytest
    with pytest.raises(UsageError, match=r"^ci.yml:2: expected a pytest command truegreen can "
                       r"run as written, found an expression only the CI expands: "):  # fmt: skip
        pytest_step(text, "ci.yml")


def test_a_workflow_without_pytest_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"^ci.yml: expected a step whose run: starts pytest"):
        pytest_step("steps:\n  - run: pip install pytest\n  - run: tox\n", "ci.yml")


def test_install_commands_given_win() -> None:
    chosen = plan(["uv.lock"], None, install=["pip install --no-index -r req.txt"])
    assert chosen.commands == (("pip", "install", "--no-index", "-r", "req.txt"),)


def test_a_uv_lock_is_synced_frozen() -> None:
    chosen = plan(["uv.lock", "pyproject.toml"], {}, extras=["test"])
    assert chosen.commands == (("uv", "sync", "--frozen", "--python", PYTHON, "--extra=test"),)
    assert chosen.chose.startswith("the lock file uv.lock")


def test_requirements_then_the_project_with_its_test_extra_and_group() -> None:
    pyproject = {
        "project": {"optional-dependencies": {"docs": ["sphinx"], "tests": ["pytest"]}},
        "dependency-groups": {"dev": [{"include-group": "lint"}, "hypothesis"], "lint": ["ruff"]},
    }
    files = ["requirements.txt", "requirements/dev.txt", "pyproject.toml"]
    chosen = plan(files, pyproject)
    pip = (PYTHON, "-m", "pip", "install")
    assert chosen.commands == (
        (*pip, "-r", "requirements.txt"),
        (*pip, "-r", "requirements/dev.txt"),
        (*pip, ".[tests]", "ruff", "hypothesis"),
    )
    assert chosen.chose == (
        "the requirements file requirements.txt and the requirements file "
        "requirements/dev.txt and the project (pip install .) with its extra tests (found in "
        "pyproject.toml; --extra picks others), and its dependency group dev"
    )


def test_a_project_with_nothing_declared_installs_nothing() -> None:
    chosen = plan(["test_app.py"], None)
    assert chosen.commands == ()
    assert chosen.chose == "nothing: no lock file, requirements file or pyproject.toml"


@pytest.mark.parametrize(
    ("nodeid", "key"),
    [
        ("tests/test_a.py::test_b", ("tests.test_a", "test_b")),
        ("tests/test_a.py::TestC::test_d[x/y::z]", ("tests.test_a.TestC", "test_d[x/y::z]")),
        ("tests/test_a.py", ("", "tests.test_a")),
    ],
)
def test_node_ids_map_to_pytests_junit_names(nodeid: str, key: tuple[str, str]) -> None:
    assert junit_key(nodeid) == key


REPORT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite>
<testcase classname="test_a" name="test_fails">
<failure message="AssertionError: assert 1 == 2&#10; +  where 1 = f()">def test_fails() ...
</failure></testcase>
<testcase classname="" name="tests.test_b"><error message="collection failure">
tests/test_b.py:1: in &lt;module&gt;
    import yaml
E   ModuleNotFoundError: No module named 'yaml'</error></testcase>
<testcase classname="test_a" name="test_passes" />
</testsuite></testsuites>"""


def test_compare_names_each_difference_with_the_first_line_of_why() -> None:
    """Ablation: replace `a == b` with `False` in
    `src/truegreen/core/repro.py`."""
    here = {"test_a.py::test_fails": "passed", "test_a.py::test_passes": "failed",
            "tests/test_b.py::test_c": "passed", "test_a.py::test_same": "passed"}  # fmt: skip
    clean = {"test_a.py::test_fails": "failed", "test_a.py::test_passes": "passed",
             "test_a.py::test_same": "passed"}  # fmt: skip
    here_why = {("test_a", "test_passes"): "OSError: here"}
    found = compare(here, clean, here_why, junit_messages(REPORT))
    assert found == [
        {"test": "test_a.py::test_fails", "here": "passed", "clean": "failed",
         "why": "AssertionError: assert 1 == 2"},
        {"test": "tests/test_b.py::test_c", "here": "passed", "clean": "missing",
         "why": "ModuleNotFoundError: No module named 'yaml'"},
        {"test": "test_a.py::test_passes", "here": "failed", "clean": "passed",
         "why": "OSError: here"},
    ]  # fmt: skip
    assert sentence("passed", "missing") == "passes here, does not run on a clean machine"
