"""The CI recipe a user copies: docs/ci.md's workflow and action.yml, checked as GitHub reads them.

actionlint checks workflow files: syntax, expressions, the inputs of well-known actions and,
for a local action (``uses: ./``), that every input a step passes is one the action declares.
It does not check action metadata (given action.yml it reports a workflow without ``on`` and
``jobs``), so action.yml's structure is checked here against what GitHub requires of a
composite action. Nothing here reaches the network: actionlint reads local files only, and its
shellcheck and pyflakes calls are switched off so the result does not depend on what else is
installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import runs
from tests.plugin.test_treeguard import CI_STEPS

yaml = pytest.importorskip("yaml", reason="PyYAML comes with the test extra")

ROOT = Path(__file__).resolve().parents[1]
ACTION = "truegreen/truegreen@v0.1.0"
# The keys GitHub reads in action metadata, and the ones it requires.
ACTION_KEYS = {"name", "author", "description", "inputs", "outputs", "runs", "branding"}
REQUIRED_KEYS = {"name", "description", "runs"}


def workflow_text() -> str:
    """The workflow block of docs/ci.md: the yaml block that names its file first."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(.*?)^```", text, flags=re.S | re.M)
    found = [block for block in blocks if block.startswith("# .github/workflows/")]
    assert len(found) == 1, f"expected one workflow block in docs/ci.md, found {len(found)}"
    return found[0]


def action() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def actionlint_command() -> str:
    """The actionlint the test extra installs (beside this Python's scripts), or any on PATH."""
    where = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
    found = shutil.which("actionlint", path=where)
    if found is None or not runs(found, "--version"):
        pytest.skip("actionlint not installed (the test extra installs it where it has a wheel)")
    return found


def lint(project: Path, workflow: str) -> subprocess.CompletedProcess[str]:
    """actionlint over ``workflow``, written into a project of its own at ``project``."""
    (project / ".git").mkdir(exist_ok=True)  # actionlint finds the project (and ./) by it
    path = project / ".github" / "workflows" / "tests.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(workflow, encoding="utf-8")
    command = [actionlint_command(), "-no-color", "-oneline", "-shellcheck=", "-pyflakes="]
    return subprocess.run(
        [*command, str(path.relative_to(project))],
        cwd=project, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_the_workflow_in_docs_ci_md_lints_clean(tmp_path: Path) -> None:
    done = lint(tmp_path, workflow_text())
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_workflow_passes_the_action_only_inputs_it_declares(tmp_path: Path) -> None:
    """With the action as a local ``./`` action, actionlint reads action.yml and checks every
    ``with:`` of the workflow against its inputs."""
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    workflow = workflow_text()
    assert workflow.count(f"uses: {ACTION}") == 2
    local = workflow.replace(f"uses: {ACTION}", "uses: ./")
    # Premise: actionlint does read action.yml: an input it does not declare is reported.
    wrong = lint(tmp_path, local.replace("shard: ${{ matrix.shard }}/4", "shardz: 1/4"))
    assert wrong.returncode == 1
    assert 'input "shardz" is not defined in action "truegreen" defined at "./"' in wrong.stdout

    done = lint(tmp_path, local)

    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_action_yml_is_a_composite_action_as_github_reads_it(tmp_path: Path) -> None:
    data = action()
    assert REQUIRED_KEYS <= set(data) <= ACTION_KEYS
    inputs = data["inputs"]
    for name, spec in inputs.items():
        assert set(spec) <= {"description", "required", "default", "deprecationMessage"}, name
        assert spec.get("description"), f"input {name} has no description"
        assert isinstance(spec.get("required", False), bool), name
        assert isinstance(spec.get("default", ""), str), f"input {name}: default not a string"
    assert data["runs"]["using"] == "composite"
    steps = data["runs"]["steps"]
    ids = {step["id"] for step in steps if "id" in step}
    for step in steps:
        assert ("run" in step) != ("uses" in step), step.get("name")
        if "run" in step:
            assert step.get("shell") == "bash", f"{step.get('name')}: a run step needs a shell"
    bash = shutil.which("bash")
    for index, step in enumerate(steps):
        if "run" in step and bash is not None:
            script = tmp_path / f"step-{index}.sh"  # read by bash -n, which runs nothing
            script.write_text(step["run"], encoding="utf-8")
            parsed = subprocess.run([bash, "-n", str(script)], capture_output=True, text=True,
                                    check=False)  # fmt: skip
            assert parsed.returncode == 0, f"{step.get('name')}: {parsed.stderr}"
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert set(re.findall(r"\binputs\.([\w-]+)", text)) <= set(inputs)
    assert set(re.findall(r"\bsteps\.([\w-]+)\.outputs", text)) <= ids


def test_the_action_runs_and_uploads_what_the_docs_and_the_tree_guard_test_say() -> None:
    """The shard step is the command the tree guard's test runs in a real checkout; the
    manifest and the metrics are uploaded."""
    steps = action()["runs"]["steps"]
    script = next(step["run"] for step in steps if step.get("id") == "run")
    command = " ".join(script.replace("\\\n", " ").replace('"', "").split())
    run_flags = " ".join(CI_STEPS["truegreen-run"][1:-1])  # truegreen run ... --
    assert f"python -m {run_flags.replace('1200', '$DEADLINE')} --" in command
    assert "--truegreen-manifest=manifests/" in command
    uploaded = {
        step["with"]["path"]
        for step in steps
        if step.get("uses", "").startswith("actions/upload-artifact@")
    }
    assert uploaded == {"manifests/", "metrics/"}


def test_the_workflow_runs_a_matrix_and_ends_each_shard_before_the_job_s_timeout() -> None:
    jobs = yaml.safe_load(workflow_text())["jobs"]
    using = {
        name: step["with"]
        for name, job in jobs.items()
        for step in job["steps"]
        if step.get("uses") == ACTION
    }
    assert using["test"].get("mode", "test") == "test"
    assert using["verify-shards"]["mode"] == "verify"
    assert set(jobs["test"]["strategy"]["matrix"]) == {"os", "python", "shard"}
    assert jobs["test"]["strategy"]["fail-fast"] is False
    # The same run names in both jobs: the verify job's matrix is the test job's without shard.
    assert using["test"]["name"] == using["verify-shards"]["name"]
    shards = jobs["test"]["strategy"]["matrix"]["shard"]
    assert using["verify-shards"]["shards"] == len(shards)
    assert using["test"]["shard"] == f"${{{{ matrix.shard }}}}/{len(shards)}"
    verify_matrix = jobs["verify-shards"]["strategy"]["matrix"]
    assert verify_matrix == {k: v for k, v in jobs["test"]["strategy"]["matrix"].items()
                             if k != "shard"}  # fmt: skip
    for name, job in jobs.items():
        assert "timeout-minutes" in job, f"job {name} has no timeout-minutes"
    deadline = int(using["test"]["deadline"])
    assert deadline < 60 * jobs["test"]["timeout-minutes"]
