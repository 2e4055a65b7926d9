"""TG304 skip-on-which beyond its case file: the messages and what keeps it silent."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit import registry
from truegreen.audit.base import Finding, Project
from truegreen.audit.engine import check_source


def audit(source: str, tmp_path: Path) -> list[Finding]:
    path = tmp_path / "tests" / "test_x.py"
    return check_source(
        Project(tmp_path), path, "tests/test_x.py", source, [registry.rule("TG304")]
    )


GATE = "import shutil\nimport pytest\n\n\ndef test_it():\n    if {condition}:\n        {then}\n"


def test_it_says_what_to_run_instead(tmp_path: Path) -> None:
    source = GATE.format(condition='shutil.which("git") is None', then='pytest.skip("git")')
    assert [f.message for f in audit(source, tmp_path)] == [
        'the test is gated on shutil.which("git"), which runs nothing: a shim or a broken git '
        "passes it, and where git is missing the test is skipped for good; run `git --version` "
        "to decide instead"
    ]


def test_a_gate_that_needs_the_tool_absent_says_to_take_it_off_path(tmp_path: Path) -> None:
    source = GATE.format(condition='shutil.which("git")', then='pytest.skip("no git wanted")')
    assert [f.message for f in audit(source, tmp_path)] == [
        'the test runs only where shutil.which("git") finds nothing, so it is skipped wherever '
        "git is installed: take git off PATH for the test instead"
    ]


def test_which_without_a_skip_is_not_a_gate(tmp_path: Path) -> None:
    """Ablation: replace `self._skips(statement)` with `True` in
    `src/truegreen/audit/rules/skip_on_which.py`."""
    gated = GATE.format(condition='shutil.which("git") is None', then='pytest.skip("git")')
    assert len(audit(gated, tmp_path)) == 1  # premise: the same `if` with a skip is flagged
    source = GATE.format(condition='shutil.which("git") is None', then="return")
    assert audit(source, tmp_path) == []


def test_a_skip_in_a_function_nested_under_the_if_does_not_count(tmp_path: Path) -> None:
    """Ablation: replace `isinstance(node, NESTED)` with `False` in
    `src/truegreen/audit/rules/skip_on_which.py`."""
    gated = GATE.format(condition='shutil.which("git") is None', then='pytest.skip("git")')
    assert len(audit(gated, tmp_path)) == 1  # premise
    nested = GATE.format(
        condition='shutil.which("git") is None',
        then='later = lambda: pytest.skip("git")\n        assert later',
    )
    assert audit(nested, tmp_path) == []


def test_a_gate_on_something_else_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `self.ctx.qualname(node.func) == "shutil.which"` with `True` in
    `src/truegreen/audit/rules/skip_on_which.py`."""
    gated = GATE.format(condition='shutil.which("git") is None', then='pytest.skip("git")')
    assert len(audit(gated, tmp_path)) == 1  # premise
    other = GATE.format(condition='not os.path.isdir("/srv/data")', then='pytest.skip("data")')
    path = 'GIT = shutil.which("git")  # the program to run, found once\n'
    assert audit(other + path, tmp_path) == []


def test_a_gate_that_also_runs_the_tool_is_a_probe(tmp_path: Path) -> None:
    """Ablation: replace `which is None or self._probes(condition)` with `which is None` in
    `src/truegreen/audit/rules/skip_on_which.py`."""
    decorated = (
        "import shutil\nimport pytest\n\nTOOL = shutil.which('tool')\n\n\n"
        "@pytest.mark.skipif(TOOL is None{probe}, reason='tool')\ndef test_it():\n    pass\n"
    )
    assert len(audit(decorated.format(probe=""), tmp_path)) == 1  # premise
    probed = decorated.format(probe=" or not runs(TOOL, '--version')")
    assert audit(probed, tmp_path) == []
