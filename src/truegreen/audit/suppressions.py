"""Line suppressions: ``# truegreen: ignore[TG201,TG105] reason``, the reason required, and
ruff's ``# noqa: TG201, TG105 reason`` (a bare ``# noqa`` silences every code on its line)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

MARK = "truegreen:"
_COMMENT = re.compile(r"#\s*truegreen:\s*ignore\[(?P<codes>[^\]]*)\](?P<rest>.*)")
# As ruff reads it: ``noqa`` in any case after a ``#``; after a colon, codes (upper-case
# letters then digits) separated by commas or spaces, then the description; with no colon,
# a bare ``noqa`` for every code. Codes that do not parse (``f401``) make ruff ignore the
# comment, and so does this.
_NOQA = re.compile(r"#\s*noqa(?![A-Za-z0-9_])(?P<colon>\s*:)?", re.IGNORECASE)
_NOQA_CODES = re.compile(r"\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)[\s,]*(?P<rest>.*)")
_NOQA_HINT = re.compile(r"noqa", re.IGNORECASE)
# a noqa that may name a truegreen code: what TG001 looks for, before reading comments
_NOQA_OURS = re.compile(r"(?i:noqa)\s*:[^\n]*TG[0-9]")
ALL = "ALL"  # what a bare noqa comment names: every code


@dataclass(frozen=True)
class Suppression:
    """One ``ignore`` comment: its 1-based line and column, the codes it names, its reason
    (the text after the bracket up to any further comment; empty when missing)."""

    line: int
    col: int
    codes: tuple[str, ...]
    reason: str
    kind: str = "truegreen"  # or "noqa"


def may_suppress(source: str) -> bool:
    """Whether a file's text may hold a suppression of either kind (a cheap test first)."""
    return MARK in source or _NOQA_HINT.search(source) is not None


def _comments(source: str) -> Iterator[tuple[int, int, str]]:
    """Each real comment of ``source`` (never text in a string): line, column, text. A file
    that stops tokenizing gives the comments before the point where it stopped."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                yield token.start[0], token.start[1], token.string
    except (tokenize.TokenError, SyntaxError):
        return


def parse(source: str) -> list[Suppression]:
    """Every suppression comment in ``source``: real comments only, never text in strings."""
    if MARK not in source:
        return []
    found = []
    for line, column, text in _comments(source):
        match = _COMMENT.search(text)
        if match is None:
            continue
        codes = tuple(c.strip() for c in match.group("codes").split(",") if c.strip())
        reason = match.group("rest").split("#", 1)[0].strip()
        found.append(Suppression(line, column + match.start() + 1, codes, reason))
    return found


def noqa(source: str) -> list[Suppression]:
    """Every ``# noqa`` comment in ``source`` as ruff reads it: a bare one names ``ALL``."""
    if _NOQA_HINT.search(source) is None:
        return []
    found = []
    for line, column, text in _comments(source):
        match = _NOQA.search(text)
        if match is None:
            continue
        col = column + match.start() + 1
        if match.group("colon") is None:
            found.append(Suppression(line, col, (ALL,), "", "noqa"))
            continue
        listed = _NOQA_CODES.match(text, match.end())
        if listed is None:
            continue  # ruff warns and ignores the comment
        codes = tuple(re.split(r"[\s,]+", listed.group("codes")))
        reason = listed.group("rest").split("#", 1)[0].strip()
        found.append(Suppression(line, col, codes, reason, "noqa"))
    return found


def names_ours(source: str) -> bool:
    """Whether a file's text may hold a ``# noqa`` that names a truegreen code."""
    return _NOQA_OURS.search(source) is not None


def by_line(source: str) -> dict[int, list[str]]:
    """The codes (or names, or ``ALL``) each line's suppressions of either kind name."""
    lines: dict[int, list[str]] = {}
    for suppression in (*parse(source), *noqa(source)):
        lines.setdefault(suppression.line, []).extend(suppression.codes)
    return lines


def marked_lines(source: str) -> set[int]:
    """The lines (numbered as the tokenizer numbers them) whose text mentions ``truegreen:``
    or ``noqa``: the only lines a suppression can sit on."""
    return {
        n
        for n, line in enumerate(source.split("\n"), 1)
        if MARK in line or _NOQA_HINT.search(line) is not None
    }


_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)  # the nodes statements sit in


def _statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement, in the order :func:`ast.walk` gives them (breadth first), without
    walking into expressions (no statement is ever inside one)."""
    queue = deque([tree])
    while queue:
        node = queue.popleft()
        if isinstance(node, ast.stmt):
            yield node
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list and value and isinstance(value[0], _HOLDERS):
                queue.extend(value)


def statement_ends(tree: ast.Module) -> dict[int, tuple[int, int]]:
    """For each line inside a multi-line statement (a compound statement's header only),
    the statement's first and last lines: where a suppression for the whole statement may
    sit (a formatter moves a trailing comment to the last line)."""
    spans: dict[int, tuple[int, int]] = {}
    for node in _statements(tree):
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = body[0].lineno - 1
        else:
            end = node.end_lineno or node.lineno
        if end > start:
            for line in range(start, end + 1):
                spans[line] = (start, end)
    return spans
