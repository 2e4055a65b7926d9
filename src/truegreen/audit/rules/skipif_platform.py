"""TG302 skipif-platform."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional

from truegreen.audit.base import Finding, Rule
from truegreen.audit.hostos import mentions_host

_SKIPS = {
    "pytest.mark.skipif": True,  # skip when the condition holds
    "unittest.skipIf": True,
    "unittest.skipUnless": False,  # run only when it holds
}

# The spec the condition *runs on*, for the simple comparisons people write.
_SPECS = {"win32": "windows", "nt": "windows", "windows": "windows", "darwin": "macos",
          "macos": "macos", "linux": "linux", "posix": "posix"}  # fmt: skip


class SkipifPlatform(Rule):
    """## What it does
    Flags `pytest.mark.skipif(...)`, `unittest.skipIf(...)` and `unittest.skipUnless(...)`
    whose condition is about the host OS (`sys.platform`, `os.name`, `platform.system()`, a
    host flag such as `IS_WINDOWS`, or pytest's string conditions naming them).

    ## Why is this bad?
    An OS lane decides which files to import from the `platforms` marker. A test gated by a
    bare `skipif(sys.platform != "win32")` is never imported by the Windows lane and skipped
    by every other: it runs on no host at all and reports green everywhere (doctrine 003).

    ## Example
    ```python
    @pytest.mark.skipif(sys.platform != "win32", reason="Windows only")
    def test_detach_flags(): ...
    ```

    ## Use instead
    ```python
    @pytest.mark.platforms("windows")
    def test_detach_flags(): ...
    ```
    A condition that is not about the host (`os.geteuid() == 0`, a missing program, the
    Python version) stays a `skipif` beside the marker.

    ## Known problems
    The suggested spec is derived only from simple comparisons (`sys.platform == "win32"`,
    `os.name != "nt"`, `sys.platform.startswith("linux")`); otherwise the message names the
    marker without a spec.
    """

    code = "TG302"
    name = "skipif-platform"
    nodes = (ast.Call,)
    calls = frozenset({"skipif", "skipIf", "skipUnless"})
    triggers = ("skipif", "skipIf", "skipUnless")

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        assert isinstance(node, ast.Call)
        name = self.ctx.qualname(node.func)
        if name not in _SKIPS or not node.args:
            return
        condition = node.args[0]
        host = mentions_host(self.ctx, condition)
        if host is None:
            return
        runs_on = _runs_on(condition, skip_when_true=_SKIPS[name])
        spec = f'"{runs_on}"' if runs_on else "..."
        marker = f"@pytest.mark.platforms({spec})"
        yield self.finding(
            node,
            f"{name.rsplit('.', 1)[-1]} on the host OS ({host}) runs on no OS lane: "
            f"use {marker}; keep skipif only for conditions that are not about the host",
        )


def _runs_on(condition: ast.AST, *, skip_when_true: bool) -> Optional[str]:
    """``sys.platform == "win32"`` as a skip condition runs on ``not windows``."""
    holds_on: Optional[str] = None
    negated = False
    if isinstance(condition, ast.UnaryOp) and isinstance(condition.op, ast.Not):
        condition, negated = condition.operand, True
    if (
        isinstance(condition, ast.Compare)
        and len(condition.ops) == 1
        and isinstance(condition.comparators[0], ast.Constant)
        and isinstance(condition.ops[0], (ast.Eq, ast.NotEq))
    ):
        spec = _SPECS.get(str(condition.comparators[0].value).lower())
        if spec is None:
            return None
        negated ^= isinstance(condition.ops[0], ast.NotEq)
        holds_on = spec
    elif (
        isinstance(condition, ast.Call)
        and isinstance(condition.func, ast.Attribute)
        and condition.func.attr == "startswith"
        and condition.args
        and isinstance(condition.args[0], ast.Constant)
    ):
        holds_on = _SPECS.get(str(condition.args[0].value).lower())
    if holds_on is None:
        return None
    runs_where_it_holds = negated == skip_when_true
    return holds_on if runs_where_it_holds else f"not {holds_on}"
