"""Finding a Python snippet in a module by its syntax tree, and cutting it out.

``if raw is None: return None`` matches the two-line form, whatever the spacing or the
comments: statements are compared by their AST, positions ignored. A snippet must match
exactly once; no match is *stale*, several are *ambiguous* (with their lines).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import Optional

from truegreen.core.ablation import AMBIGUOUS, STALE, Unapplied
from truegreen.core.errors import UsageError

_BODIES = ("body", "orelse", "finalbody", "handlers")


class SnippetError(UsageError):
    """A snippet that is not Python, or a match that cannot be made."""

    slug = "snippet"


@dataclass(frozen=True)
class Span:
    """Source positions: 1-based lines, 0-based columns (as :mod:`ast` gives them)."""

    line: int
    col: int
    end_line: int
    end_col: int
    whole_block: bool = False  # the statements are all of their block: leave a ``pass``


def _dump(node: ast.AST) -> str:
    return ast.dump(node, annotate_fields=False, include_attributes=False)


def _parse(text: str, mode: str, what: str) -> ast.AST:
    try:
        return ast.parse(text.strip(), mode=mode)
    except SyntaxError as exc:
        raise SnippetError(f"{what}: expected Python, found {text!r} ({exc.msg})") from None


def _statement_lists(tree: ast.AST) -> list[list[ast.stmt]]:
    lists = []
    for node in ast.walk(tree):
        for name in _BODIES:
            value = getattr(node, name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                lists.append(value)
        if hasattr(ast, "match_case") and isinstance(node, ast.match_case):
            lists.append(node.body)
    return lists


def find_statements(source: str, snippet: str) -> list[Span]:
    """Every place where ``snippet``'s statements appear, in order, as a contiguous run."""
    wanted = [_dump(s) for s in _parse(snippet, "exec", "--delete").body]  # type: ignore[attr-defined]
    if not wanted:
        raise SnippetError(f"--delete: expected at least one statement, found {snippet!r}")
    spans = []
    for block, dumps in _blocks(source):
        for i in range(len(block) - len(wanted) + 1):
            if dumps[i : i + len(wanted)] == wanted:
                first, last = block[i], block[i + len(wanted) - 1]
                spans.append(
                    Span(
                        first.lineno,
                        first.col_offset,
                        last.end_lineno or last.lineno,
                        last.end_col_offset or 0,
                        whole_block=len(wanted) == len(block),
                    )
                )
    return sorted(set(spans), key=lambda s: (s.line, s.col))


def find_expressions(source: str, old: str) -> list[Span]:
    """Every expression in ``source`` equal to ``old``."""
    wanted = _dump(_parse(old, "eval", "--replace").body)  # type: ignore[attr-defined]
    return sorted(set(_expressions(source).get(wanted, ())), key=lambda s: (s.line, s.col))


# A file's statement blocks and expressions, by their dumps, for the last few sources: the
# claims of `ablate --discover` look up many snippets in one file.


@functools.lru_cache(maxsize=8)
def _blocks(source: str) -> list[tuple[list[ast.stmt], list[str]]]:
    return [(block, [_dump(s) for s in block]) for block in _statement_lists(ast.parse(source))]


@functools.lru_cache(maxsize=8)
def _expressions(source: str) -> dict[str, list[Span]]:
    found: dict[str, list[Span]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.expr):
            end = node.end_lineno or node.lineno
            span = Span(node.lineno, node.col_offset, end, node.end_col_offset or 0)
            found.setdefault(_dump(node), []).append(span)
    return found


def delete_lines(source: str, first: int, last: int) -> str:
    """Remove lines ``first``..``last``; a block left empty keeps a ``pass``."""
    lines = source.splitlines(keepends=True)
    if not 1 <= first <= last <= len(lines):
        raise SnippetError(f"--lines: expected A-B within 1-{len(lines)}, found {first}-{last}")
    removed = lines[first - 1]
    indent = removed[: len(removed) - len(removed.lstrip())]
    for keep in ("", f"{indent}pass\n"):
        result = "".join(lines[: first - 1]) + keep + "".join(lines[last:])
        try:
            ast.parse(result)
        except SyntaxError:
            continue
        return result
    raise SnippetError(f"--lines {first}-{last}: deleting them leaves no valid Python")


def choose(spans: list[Span], occurrence: Optional[int]) -> Span:
    """The one span to mutate; :class:`~truegreen.core.ablation.Unapplied` with the verdict
    ``stale`` (none, or no such occurrence) or ``ambiguous`` (several) otherwise."""
    if occurrence is not None:
        if 1 <= occurrence <= len(spans):
            return spans[occurrence - 1]
        raise Unapplied(STALE, f"--occurrence {occurrence} of {len(spans)} matches")
    if not spans:
        raise Unapplied(STALE, "the snippet matches nothing")
    if len(spans) > 1:
        lines = ", ".join(str(s.line) for s in spans)
        raise Unapplied(AMBIGUOUS, f"the snippet matches {len(spans)} places (lines {lines})")
    return spans[0]


def _char_col(text: str, byte_col: int) -> int:
    """ast columns count UTF-8 bytes."""
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))


def offsets(source: str, span: Span) -> tuple[int, int]:
    """Where ``span`` starts and ends in ``source``, as string indexes."""
    lines = source.splitlines(keepends=True)
    start = sum(len(t) for t in lines[: span.line - 1]) + _char_col(lines[span.line - 1], span.col)
    end = sum(len(t) for t in lines[: span.end_line - 1]) + _char_col(
        lines[span.end_line - 1], span.end_col
    )
    return start, end


def splice(source: str, span: Span, replacement: str) -> str:
    """``source`` with ``span`` replaced by ``replacement``."""
    start, end = offsets(source, span)
    return source[:start] + replacement + source[end:]


def delete(source: str, span: Span) -> str:
    """Remove the statements of ``span``; a block left empty keeps a ``pass``.

    Whole lines go when the statements own them; otherwise (``a = 1; b = 2``) the text of
    the statements becomes ``pass``. The result is checked to be valid Python.
    """
    lines = source.splitlines(keepends=True)
    head = lines[span.line - 1][: _char_col(lines[span.line - 1], span.col)]
    tail = lines[span.end_line - 1][_char_col(lines[span.end_line - 1], span.end_col) :]
    owns_lines = not head.strip() and (not tail.strip() or tail.strip().startswith("#"))
    if owns_lines:
        keep = f"{head}pass\n" if span.whole_block else ""
        result = "".join(lines[: span.line - 1]) + keep + "".join(lines[span.end_line :])
    else:
        result = splice(source, span, "pass")
    try:
        ast.parse(result)
    except SyntaxError as exc:
        raise SnippetError(
            f"deleting lines {span.line}-{span.end_line} leaves no valid Python ({exc.msg} at "
            f"line {exc.lineno})"
        ) from None
    return result
