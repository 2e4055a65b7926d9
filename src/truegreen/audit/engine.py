"""One parse and one walk per file, dispatching each node to the rules that asked for its type."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Optional

from truegreen.audit.base import SCOPES, FileContext, Finding, Project, Rule

Visit = Callable[[ast.AST], Iterable[Finding]]


def check_source(
    project: Project,
    path: Path,
    relpath: str,
    source: str,
    rules: Sequence[type[Rule]],
    tree: Optional[ast.Module] = None,
) -> list[Finding]:
    """Every finding of ``rules`` in one file's text (a syntax error raises SyntaxError);
    ``tree``, when given, is that text already parsed."""
    if tree is None:
        tree = ast.parse(source, filename=str(path))
    ctx = FileContext(project, path, relpath, source, tree)
    active = [rule(ctx) for rule in rules if ctx.kind in rule.kinds and rule.wants(source)]
    findings: list[Finding] = []
    dispatch: dict[type[ast.AST], list[Visit]] = {}
    by_callee: dict[str, list[Visit]] = {}
    for rule in active:
        findings.extend(rule.begin())
        for node_type, method in _handlers(type(rule)):
            visit = getattr(rule, method)
            if node_type is ast.Call and rule.calls:
                for last in rule.calls:
                    by_callee.setdefault(last, []).append(visit)
            else:
                dispatch.setdefault(node_type, []).append(visit)
    if dispatch or by_callee:
        _walk(tree, ctx, dispatch, findings, by_callee)
    for rule in active:
        findings.extend(rule.end())
    return findings


_HANDLERS: dict[type[Rule], tuple[tuple[type[ast.AST], str], ...]] = {}


def _handlers(rule: type[Rule]) -> tuple[tuple[type[ast.AST], str], ...]:
    """(node type, the rule's method for it) for each of its ``nodes``: ``visit_Call`` for a
    call when the rule has one, as in :class:`ast.NodeVisitor`, else ``visit``."""
    found = _HANDLERS.get(rule)
    if found is None:
        found = _HANDLERS[rule] = tuple(
            (kind, f"visit_{kind.__name__}" if hasattr(rule, f"visit_{kind.__name__}") else "visit")
            for kind in rule.nodes
        )
    return found


# Leaf singletons hung off nearly every expression (Load, Store, Add, Eq, ...): never walked
# into unless a rule asks for one of their types.
_LEAVES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})
# Fields the grammar fills with strings, numbers or flags (or lists of them), never with nodes.
_SCALAR_FIELDS = frozenset({"id", "attr", "name", "asname", "arg", "module", "level", "kind",
                            "type_comment", "is_async", "conversion", "names", "tag", "lineno",
                            "rest", "kwd_attrs", "str"})  # fmt: skip
_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def _fields(kind: type[ast.AST], skip: frozenset[str]) -> tuple[str, ...]:
    """The fields of a node type that can hold nodes, leaf singletons left out, *last field
    first* (the walk pushes them on a stack)."""
    fields = _FIELDS.get(kind)
    if fields is None:
        scalar = _SCALAR_FIELDS
        if kind in (ast.Constant, getattr(ast, "MatchSingleton", ast.Constant)):
            scalar = scalar | {"value"}
        if kind in (ast.Import, ast.ImportFrom):  # their names are alias nodes
            scalar = scalar - {"names"}
        if kind.__name__ == "TypeAlias":  # Python 3.12's `type X = ...` names it with a node
            scalar = scalar - {"name"}
        fields = _FIELDS[kind] = tuple(
            f for f in reversed(kind._fields) if f not in _LEAF_FIELDS and f not in scalar
        )
    return fields if not skip else tuple(reversed(kind._fields))


def _walk(
    root: ast.AST,
    ctx: FileContext,
    dispatch: dict[type[ast.AST], list[Visit]],
    findings: list[Finding],
    by_callee: Optional[dict[str, list[Visit]]] = None,
) -> None:
    """Pre-order, children in field order (as ``ast.iter_child_nodes``), keeping
    ``ctx.scopes``. An explicit stack rather than recursion: no depth limit on long
    expressions, and each node's fields are read directly rather than through the generators
    of :mod:`ast`, which cost about half as much as the parse itself. Fields are pushed last
    first and lists reversed, so nodes come off the stack in source order; anything that is
    not a node (``None`` in a dict's keys, a value of a field the grammar may one day add)
    is dropped when it comes off."""
    scopes = ctx.scopes
    record_import = ctx.record_import
    aliases = ctx.aliases
    attribute, name_type = ast.Attribute, ast.Name
    full = frozenset({"all"}) if any(issubclass(t, _LEAVES) for t in dispatch) else frozenset()
    # What the walk does with each node type, worked out at its first node: one lookup per
    # node. A type with no fields that hold nodes and no rule that visits it (a name, a
    # constant: two nodes in five) is _NOTHING, and costs only its lookup.
    plans: dict[type[Any], tuple[Any, ...]] = {}
    node_type = ast.AST
    leave = object()  # marks where a scope's children end
    stack: list[Any] = [root]
    push, extend, pop = stack.append, stack.extend, stack.pop
    while stack:
        node = pop()
        kind = type(node)
        plan = plans.get(kind)
        if plan is None:
            if node is leave:
                scopes.pop()
                continue
            if not issubclass(kind, node_type):
                continue
            plan = plans[kind] = _plan(kind, full, dispatch.get(kind), bool(by_callee))
        if plan is _NOTHING:
            continue
        fields, visits, role = plan
        if role is None:
            if visits:
                for visit in visits:
                    findings.extend(visit(node))
        else:
            if role is _IMPORT:
                record_import(node)
            if visits:
                for visit in visits:
                    findings.extend(visit(node))
            if role is _SCOPE:
                scopes.append(node)
                push(leave)
            elif role is _CALL:
                func = node.func
                if type(func) is attribute:
                    last = func.attr
                elif type(func) is name_type:
                    last = aliases.get(func.id, func.id).rpartition(".")[2]
                else:
                    last = ""
                visits = by_callee.get(last)  # type: ignore[union-attr]
                if visits:
                    for visit in visits:
                        findings.extend(visit(node))
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                extend(reversed(value))
            elif value is not None:
                push(value)


_NOTHING: tuple[Any, ...] = ()
_IMPORT, _CALL, _SCOPE = "import", "call", "scope"


def _plan(
    kind: type[ast.AST], full: frozenset[str], visits: Optional[list[Visit]], callees: bool
) -> tuple[Any, ...]:
    """(fields to push, the rules' visits, its role in the walk) for one node type."""
    fields = _fields(kind, full)
    if kind in (ast.Import, ast.ImportFrom):
        role: Optional[str] = _IMPORT
    elif kind is ast.Call and callees:
        role = _CALL
    elif kind in SCOPES:
        role = _SCOPE
    else:
        role = None
    if not fields and not visits and role is None:
        return _NOTHING
    return fields, visits, role
