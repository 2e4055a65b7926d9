"""TG401 xfail-not-strict."""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from truegreen.audit.base import FileContext, Finding, Rule

XFAIL = frozenset({"xfail"})
TRUE = frozenset({"y", "yes", "t", "true", "on", "1"})  # pytest's own reading of an ini bool
# A reason that says the failure comes and goes: strict=True would fail the run whenever the
# test happens to pass, so the marker is lenient on purpose.
INTERMITTENT = re.compile(
    r"\b(?:intermittent(?:ly)?|flak(?:y|ey|iness)|sometimes|random(?:ly)?|rac(?:e|es|y)"
    r"|occasional(?:ly)?|not always)\b",
    re.IGNORECASE,
)
NO_REASON = (
    "a strict xfail with no reason: its XFAIL and XPASS lines in the report name no defect; "
    "add reason= naming it (an issue, the broken case)"
)


def _true(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() in TRUE


def _addopts_strict(addopts: Any) -> bool:
    """``-o xfail_strict=true`` (or ``--override-ini``) in ``addopts``."""
    if isinstance(addopts, str):
        try:
            words = shlex.split(addopts)
        except ValueError:
            words = addopts.split()
    elif isinstance(addopts, list):
        words = [str(word) for word in addopts]
    else:
        return False
    strict = False
    for n, word in enumerate(words):
        value = None
        if word in ("-o", "--override-ini") and n + 1 < len(words):
            value = words[n + 1]
        elif word.startswith(("--override-ini=", "-o")):
            value = word.split("=", 1)[1] if word.startswith("--") else word[2:]
        if value is not None:
            key, _, setting = value.partition("=")
            if key.strip() == "xfail_strict":
                strict = _true(setting)
    return strict


def xfail_is_strict(options: Mapping[str, Any]) -> bool:
    """Whether the pytest configuration makes every xfail strict: ``xfail_strict = true``,
    pytest 9's ``strict = true``, or ``-o xfail_strict=true`` in ``addopts``."""
    if "xfail_strict" in options:
        return _true(options["xfail_strict"])
    return _true(options.get("strict", False)) or _addopts_strict(options.get("addopts"))


class XfailNotStrict(Rule):
    """## What it does
    Flags `pytest.mark.xfail` without `strict=True`, as a decorator, in `pytestmark`, in
    `pytest.param(..., marks=...)` or handed to `add_marker`, when the pytest configuration
    does not make xfail strict (`xfail_strict = true`, pytest 9's `strict = true`, or
    `-o xfail_strict=true` in `addopts`). An explicit `strict=False` is flagged whatever the
    configuration says. An xfail whose reason says the failure is intermittent is not (see
    Known problems). A strict xfail (`strict=True`, or any xfail under a configuration that
    makes them strict) is flagged when it gives no `reason=`.

    ## Why is this bad?
    A lenient xfail passes whether the test fails or not. The day the defect it pins is fixed,
    the test turns XPASS, the run stays green, and the note that the code is broken outlives the
    bug. `strict=True` is the point: the fix makes the test fail and forces the marker to be
    removed with it.

    A strict xfail with no reason is the other half: the day the test starts to pass, the run
    fails on an XPASS that names no defect, and whoever meets it cannot tell which fix made it
    pass, whether the marker can go, or what it was protecting. The reason is the link from
    the marker to the defect (an issue number, the broken case in a few words); pytest prints
    it beside every XFAIL and XPASS.

    ## Example
    ```python
    @pytest.mark.xfail(reason="rounding bug #412")
    def test_total_rounds_half_up():
        assert total([0.5]) == 1
    ```

    ## Use instead
    ```python
    @pytest.mark.xfail(strict=True, reason="rounding bug #412")
    def test_total_rounds_half_up():
        assert total([0.5]) == 1
    ```
    Or set `xfail_strict = true` in the pytest configuration once, for every test.

    ## Known problems
    `xfail(run=False)` is not flagged (the test never runs, so it cannot pass). A `strict=`
    given a variable, or `**kwargs`, is taken as deliberate and stays silent. The imperative
    `pytest.xfail()` is not a marker and is not flagged. A reason held in a variable counts as
    given, and so does a condition (`xfail(sys.version_info < (3, 12), ...)`: pytest refuses a
    boolean condition without a reason, and reports a string condition's text as the reason).
    A strict xfail that names its defect only in a comment is flagged.

    An xfail whose `reason=` says the failure comes and goes (`intermittent`, `flaky`,
    `sometimes`, `random`, `race`, `occasionally`, `not always`, in any case) is not flagged,
    strict or not: `strict=True` would fail the run whenever the test happens to pass, so the
    advice would be wrong. Such a marker hides a flaky test (it is green whether the code
    works or not); the audit leaves that judgement to you. A reason held in a variable is not
    read, and a reason that uses one of those words for something else (`random.choice
    rounds wrong`) is taken as intermittent too.
    """

    code = "TG401"
    name = "xfail-not-strict"
    nodes = (ast.Call, ast.Attribute)
    triggers = ("xfail",)
    calls = XFAIL

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.strict = xfail_is_strict(ctx.project.pytest_options)
        self.called: set[int] = set()  # marker attributes that are the callee of a call

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        if isinstance(node, ast.Call):
            if not self.ctx.may_name(node.func, XFAIL) or (
                self.ctx.qualname(node.func) != "pytest.mark.xfail"
            ):
                return
            self.called.add(id(node.func))
            keywords = {k.arg: k.value for k in node.keywords}
            if None in keywords or _is_false(keywords.get("run")):
                return
            if _says_intermittent(keywords.get("reason")):
                return
            strict = keywords.get("strict")
            if strict is None and not self.strict:
                yield self.finding(
                    node,
                    "xfail without strict=True passes when the defect is fixed: add strict=True "
                    "or set xfail_strict = true",
                )
            elif _is_false(strict):
                yield self.finding(
                    node, "xfail(strict=False) stays green when the defect is fixed: make it strict"
                )
            elif (
                "reason" not in keywords and not node.args and (strict is None or _is_true(strict))
            ):
                yield self.finding(node, NO_REASON)

    def visit_Attribute(self, node: ast.Attribute) -> Iterable[Finding]:
        # a plain function, not a generator: it sees every attribute of the file
        if node.attr != "xfail" or id(node) in self.called:
            return ()
        return self._bare(node)

    def _bare(self, node: ast.Attribute) -> Iterator[Finding]:
        if self.ctx.qualname(node) == "pytest.mark.xfail":
            yield self.finding(
                node,
                NO_REASON
                if self.strict
                else "a bare xfail passes when the defect is fixed: use xfail(strict=True) or "
                "set xfail_strict = true",
            )


def _says_intermittent(reason: Any) -> bool:
    """Whether an xfail's ``reason=`` (a literal, or the literal parts of an f-string) says
    the failure is intermittent."""
    if isinstance(reason, ast.JoinedStr):
        return any(_says_intermittent(part) for part in reason.values)
    return (
        isinstance(reason, ast.Constant)
        and isinstance(reason.value, str)
        and INTERMITTENT.search(reason.value) is not None
    )


def _is_false(node: Any) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def _is_true(node: Any) -> bool:
    return isinstance(node, ast.Constant) and node.value is True
