"""Line suppressions: ``# truegreen: ignore[TG201,TG105] reason``, the reason required."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

MARK = "truegreen:"
_COMMENT = re.compile(r"#\s*truegreen:\s*ignore\[(?P<codes>[^\]]*)\](?P<rest>.*)")


@dataclass(frozen=True)
class Suppression:
    """One ``ignore`` comment: its 1-based line and column, the codes it names, its reason
    (the text after the bracket up to any further comment; empty when missing)."""

    line: int
    col: int
    codes: tuple[str, ...]
    reason: str


def parse(source: str) -> list[Suppression]:
    """Every suppression comment in ``source``: real comments only, never text in strings."""
    if MARK not in source:
        return []
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type != tokenize.COMMENT:
                continue
            match = _COMMENT.search(token.string)
            if match is None:
                continue
            codes = tuple(c.strip() for c in match.group("codes").split(",") if c.strip())
            reason = match.group("rest").split("#", 1)[0].strip()
            offset = match.start()
            found.append(Suppression(token.start[0], token.start[1] + offset + 1, codes, reason))
    except (tokenize.TokenError, SyntaxError):
        return found
    return found


def statement_ends(tree: ast.Module) -> dict[int, tuple[int, int]]:
    """For each line inside a multi-line statement (a compound statement's header only),
    the statement's first and last lines: where a suppression for the whole statement may
    sit (a formatter moves a trailing comment to the last line)."""
    spans: dict[int, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
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
