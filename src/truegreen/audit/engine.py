"""One parse and one walk per file, dispatching each node to the rules that asked for its type."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from truegreen.audit.base import SCOPES, FileContext, Finding, Project, Rule

Visit = Callable[[ast.AST], Iterable[Finding]]


def check_source(
    project: Project,
    path: Path,
    relpath: str,
    source: str,
    rules: Sequence[type[Rule]],
) -> list[Finding]:
    """Every finding of ``rules`` in one file's text (a syntax error raises SyntaxError)."""
    tree = ast.parse(source, filename=str(path))
    ctx = FileContext(project, path, relpath, source, tree)
    active = [
        rule(ctx)
        for rule in rules
        if ctx.kind in rule.kinds
        and (not rule.triggers or any(text in source for text in rule.triggers))
    ]
    findings: list[Finding] = []
    dispatch: dict[type[ast.AST], list[Visit]] = {}
    for rule in active:
        findings.extend(rule.begin())
        for node_type in rule.nodes:
            dispatch.setdefault(node_type, []).append(rule.visit)
    if dispatch:
        _walk(tree, ctx, dispatch, findings)
    for rule in active:
        findings.extend(rule.end())
    return findings


def _walk(
    root: ast.AST,
    ctx: FileContext,
    dispatch: dict[type[ast.AST], list[Visit]],
    findings: list[Finding],
) -> None:
    scopes = ctx.scopes
    record_import = ctx.record_import
    imports = (ast.Import, ast.ImportFrom)
    iter_child_nodes = ast.iter_child_nodes

    def walk(node: ast.AST) -> None:
        kind = type(node)
        if kind in imports:
            record_import(node)  # type: ignore[arg-type]
        for visit in dispatch.get(kind, ()):
            findings.extend(visit(node))
        if kind in SCOPES:
            scopes.append(node)
            for child in iter_child_nodes(node):
                walk(child)
            scopes.pop()
        else:
            for child in iter_child_nodes(node):
                walk(child)

    walk(root)
