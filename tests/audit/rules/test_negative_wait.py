"""TG407 negative-wait: which calls are waits."""

from __future__ import annotations

from pathlib import Path

from truegreen.audit import registry
from truegreen.audit.base import Project
from truegreen.audit.engine import check_source


def flagged(source: str, tmp_path: Path) -> list[int]:
    path = tmp_path / "tests" / "test_x.py"
    rule = registry.rule("TG407")
    return [
        f.line for f in check_source(Project(tmp_path), path, "tests/test_x.py", source, [rule])
    ]


ASSERT = "def test_it(proc, ready):\n    assert not {}\n"


def test_a_wait_that_returns_an_exit_status_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `node.keywords or not node.args` with `False` in
    `src/truegreen/audit/rules/negative_wait.py`."""
    assert flagged(ASSERT.format("ready.wait(0.1)"), tmp_path) == [2]  # premise
    assert flagged(ASSERT.format("proc.wait()"), tmp_path) == []
    assert flagged(ASSERT.format("proc.wait(timeout=5)"), tmp_path) == []


def test_waitpid_and_a_bare_poll_are_not_waits(tmp_path: Path) -> None:
    """Ablation: replace `r"(?i)^_*(?:.*wait(?!pid|status|4|3).*|poll_?\\w+|.*eventually.*)$"`
    with `r"(?i)^_*(?:.*wait.*|poll\\w*|.*eventually.*)$"` in
    `src/truegreen/audit/rules/negative_wait.py`."""
    assert flagged(ASSERT.format("poll_until(ready, 1)"), tmp_path) == [2]  # premise
    assert flagged(ASSERT.format("os.waitpid(0, 0)"), tmp_path) == []
    assert flagged(ASSERT.format("proc.poll()"), tmp_path) == []


def test_a_wait_compared_with_true_is_not_flagged(tmp_path: Path) -> None:
    """Ablation: replace `_is_false(test.comparators[0])` with `True` in
    `src/truegreen/audit/rules/negative_wait.py`."""
    source = "def test_it(ready):\n    assert wait_until(ready) is {}\n"
    assert flagged(source.format("False"), tmp_path) == [2]  # premise
    assert flagged(source.format("True"), tmp_path) == []
