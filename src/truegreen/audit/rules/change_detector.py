"""TG102 change-detector."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Optional

from truegreen.audit import graph
from truegreen.audit.base import Finding, Rule


class ChangeDetector(Rule):
    """## What it does
    Flags an assertion that pins a literal count, value or membership of a module-level
    constant of the code under test: `assert len(MODELS["x"]) == 8`,
    `assert CONFIG["_config_version"] == 21`, `assert "gemini-2.5-pro" in MODELS`.

    A constant is a name imported from the project's own packages (or read as an attribute
    of a project module) whose definition in the project's source is a module-level
    assignment of a literal or a literal container (followed through `from` re-exports,
    `from x import *` included, which binds what `x.__all__` lists or its public names).
    When the definition cannot be found, an `UPPER_CASE` name imported from the project
    counts as one.

    ## Why is this bad?
    The test restates data that is *expected* to change: a model catalog, a config version,
    the length of a table. It adds no coverage and fails on every routine update, so people
    learn to edit the number without thinking.

    ## Example
    ```python
    from app.catalog import DEFAULT_CONFIG, MODELS


    def test_catalog():
        assert len(MODELS["gemini"]) == 8
        assert DEFAULT_CONFIG["_config_version"] == 21
    ```

    ## Use instead
    ```python
    def test_every_provider_has_a_model():
        assert "gemini" in MODELS and len(MODELS["gemini"]) >= 1


    def test_migration_reaches_the_latest_version(tmp_path):
        raw = migrate(old_config(tmp_path))
        assert raw["_config_version"] == DEFAULT_CONFIG["_config_version"]
    ```

    ## Known problems
    Only `==` against a literal, `len(...) == literal` and `literal in ...` are checked, in
    test functions. Class attributes (an enum member's value: `httpx.codes.NOT_FOUND == 404`,
    a standard's number, with `codes` re-exported through `from ._status_codes import *`) are
    not module-level constants and are not checked. A constant first copied into a local
    variable is not followed. A key test written as a plumbing check (`"k" in C
    and len(C["k"]) >= 1`) stays silent; a bare `"k" in C` is flagged.
    """

    code = "TG102"
    name = "change-detector"
    kinds = frozenset({"test"})
    triggers = ("assert",)  # without one, the file has nothing to find
    nodes = (ast.Assert,)

    def visit(self, node: ast.AST) -> Iterator[Finding]:
        assert isinstance(node, ast.Assert)
        if self.ctx.test_function is None:
            return
        for compare in _comparisons(node.test):
            found = self._detects_change(compare, node.test)
            if found is not None:
                yield self.finding(
                    compare,
                    f"asserts a literal {found}: pin a relationship the code must keep "
                    f"(a computed value, a bound), not data expected to change",
                )

    def _detects_change(self, compare: ast.Compare, whole: ast.expr) -> Optional[str]:
        if len(compare.ops) != 1:
            return None
        left, op, right = compare.left, compare.ops[0], compare.comparators[0]
        if isinstance(op, ast.In):
            constant = self._constant(right)
            if constant is None or not _literal(left) or _also_indexed(whole, right, left):
                return None
            return f"membership in {constant}"
        if not isinstance(op, ast.Eq):
            return None
        for subject, value in ((left, right), (right, left)):
            if not _literal(value):
                continue
            if _is_len(subject):
                assert isinstance(subject, ast.Call)
                constant = self._constant(subject.args[0])
                if constant is not None and isinstance(value, ast.Constant):
                    return f"count of {constant}"
            else:
                constant = self._constant(subject)
                if constant is not None:
                    return f"value of {constant}"
        return None

    def _constant(self, node: ast.expr) -> Optional[str]:
        """The constant's dotted name when ``node`` is it or a subscript of it."""
        while isinstance(node, ast.Subscript):
            node = node.value
        dotted = self.ctx.qualname(node)
        project = self.ctx.project
        if dotted is None or "." not in dotted or not project.owns(dotted):
            return None
        modules = graph.graph(project)
        split = modules.split(dotted)
        if split is None:  # not in the project's source: the name is the only evidence
            return dotted if _upper(dotted.rpartition(".")[2]) else None
        module, attribute = split
        if "." in attribute:
            owner = attribute.split(".", 1)[0]
            if modules.resolve(module, owner) is not None:
                return None  # an attribute of a class or an object, not a module-level constant
            return dotted if _upper(dotted.rpartition(".")[2]) else None
        defined = modules.resolve(module, attribute)
        if defined is None:
            return None
        value = defined[0].assigned.get(defined[1])
        return dotted if value is not None and _literal(value) else None


def _comparisons(test: ast.expr) -> Iterator[ast.Compare]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for value in test.values:
            yield from _comparisons(value)
    elif isinstance(test, ast.Compare):
        yield test


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is not None and not isinstance(node.value, bool)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return bool(node.elts) and all(_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys) and all(
            k is not None and _literal(k) and _literal(v) for k, v in zip(node.keys, node.values)
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _literal(node.operand)
    return False


def _is_len(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
    )


def _upper(name: str) -> bool:
    bare = name.lstrip("_")
    return bool(bare) and bare.upper() == bare and any(c.isalpha() for c in bare)


def _also_indexed(whole: ast.expr, container: ast.expr, key: ast.expr) -> bool:
    """``"k" in C and len(C["k"]) >= 1``: the membership is the plumbing half of a bound."""
    wanted = ast.dump(container)
    key_dump = ast.dump(key)
    return any(
        isinstance(n, ast.Subscript)
        and ast.dump(n.value) == wanted
        and ast.dump(n.slice) == key_dump
        for n in ast.walk(whole)
    )
