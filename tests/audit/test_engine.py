"""The one walk: every node in pre-order with its scopes, and rules skipped on a plain read."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from truegreen.audit.base import FileContext, Finding, Project, Rule
from truegreen.audit.engine import check_source

LEAVES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
ALL_NODES = tuple(
    kind for kind in vars(ast).values()
    if isinstance(kind, type) and issubclass(kind, ast.AST) and not issubclass(kind, LEAVES)
)  # fmt: skip
SOURCE = """
import os as system
from pathlib import Path


class TestThing:
    def test_method(self, tmp_path):
        value = [x * 2 for x in range(3) if x]
        lambda y: y + 1
        return {"k": value, **{}}


async def helper(*args, key=None, **kwargs):
    async with lock() as held:
        await held
    try:
        pass
    except (OSError, ValueError) as error:
        raise RuntimeError(f"{error!r:>10}") from error
"""


class Records(Rule):
    """Every node the walk reaches, with the names of the scopes around it."""

    code, name = "TG998", "records"
    kinds = frozenset({"test", "conftest", "source"})
    nodes = ALL_NODES
    seen: ClassVar[list[tuple[str, tuple[str, ...]]]] = []

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        scopes = tuple(getattr(s, "name", "lambda") for s in self.ctx.scopes)
        Records.seen.append((type(node).__name__, scopes))
        return iter(())


def reference(tree: ast.AST) -> list[str]:
    """Pre-order through ``ast.iter_child_nodes``, the order the engine promises."""
    names = [] if isinstance(tree, LEAVES) else [type(tree).__name__]
    for child in ast.iter_child_nodes(tree):
        names += reference(child)
    return names


def walk(source: str, rules: list[type[Rule]]) -> list[Finding]:
    return check_source(Project(Path("/p")), Path("/p/test_x.py"), "test_x.py", source, rules)


def test_it_visits_every_node_in_pre_order_like_iter_child_nodes() -> None:
    Records.seen = []
    walk(SOURCE, [Records])
    assert [kind for kind, _ in Records.seen] == reference(ast.parse(SOURCE))


def test_it_keeps_the_enclosing_scopes() -> None:
    Records.seen = []
    walk(SOURCE, [Records])
    scopes = {kind: where for kind, where in Records.seen if kind in ("ListComp", "BinOp", "Await")}
    assert scopes == {
        "ListComp": ("TestThing", "test_method"),
        "BinOp": ("TestThing", "test_method", "lambda"),
        "Await": ("helper",),
    }


def test_a_long_expression_does_not_exhaust_the_stack() -> None:
    Records.seen = []
    source = "total = " + " + ".join(["1"] * 1500) + "\n"  # deeper than the recursion limit
    walk(source, [Records])
    assert len(Records.seen) == 3 + 1499 + 1500  # Module, Assign, Name, BinOps, Constants


class NeedsAWord(Rule):
    code, name = "TG996", "needs-a-word"
    kinds = frozenset({"test"})
    triggers = ("needle",)
    made: ClassVar[int] = 0

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        NeedsAWord.made += 1

    def begin(self) -> Iterator[Finding]:
        yield self.finding(1, "ran")


def test_a_rule_whose_trigger_text_is_absent_is_not_run() -> None:
    """Ablation: replace `not cls.triggers or any(text in source for text in cls.triggers)`
    with `True` in `src/truegreen/audit/base.py`."""
    NeedsAWord.made = 0
    assert [f.message for f in walk("x = 'needle'\n", [NeedsAWord])] == ["ran"]  # premise
    assert walk("x = 'haystack'\n", [NeedsAWord]) == []
    assert NeedsAWord.made == 1


def test_may_name_is_true_wherever_qualname_could_end_in_the_name() -> None:
    source = "import time\nfrom time import sleep as nap\ntime.sleep\nnap\nsleep\nwait\nf().sleep\n"
    tree = ast.parse(source)
    ctx = FileContext(Project(Path("/p")), Path("/p/test_x.py"), "test_x.py", source, tree)
    for statement in tree.body[:2]:
        ctx.record_import(statement)  # type: ignore[arg-type]
    values = [statement.value for statement in tree.body[2:]]  # type: ignore[attr-defined]
    last = frozenset({"sleep"})
    assert [ctx.may_name(value, last) for value in values] == [True, True, True, False, True]
    assert [ctx.qualname(v) for v in values[:4]] == ["time.sleep", "time.sleep", "sleep", "wait"]


class SeesSomeCalls(Rule):
    code, name = "TG995", "sees-some-calls"
    kinds = frozenset({"test"})
    nodes = (ast.Call,)
    calls = frozenset({"sleep"})

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        yield self.finding(node, "seen")


def test_a_rule_with_callees_sees_only_those_calls_under_any_import_name() -> None:
    """Ablation: replace `node_type is ast.Call and rule.calls` with `False` in
    `src/truegreen/audit/engine.py`."""
    source = (
        "import time\nfrom time import sleep as nap\n"
        "time.sleep(1)\nnap(2)\nprint(3)\nlen([])\n(lambda: 0)()\n"
    )
    assert [f.line for f in walk(source, [SeesSomeCalls])] == [3, 4]


class HandlesCallsApart(Rule):
    code, name = "TG994", "handles-calls-apart"
    kinds = frozenset({"test"})
    nodes = (ast.Call, ast.Name)

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        yield self.finding(node, f"visit {type(node).__name__}")

    def visit_Call(self, node: ast.Call) -> list[Finding]:
        return [self.finding(node, "visit_Call")]


def test_a_rule_method_named_for_a_node_type_gets_that_type_and_visit_the_rest() -> None:
    found = [(f.col, f.message) for f in walk("f(x)\n", [HandlesCallsApart])]
    assert found == [(1, "visit_Call"), (1, "visit Name"), (3, "visit Name")]
