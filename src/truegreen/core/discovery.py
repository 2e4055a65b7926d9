"""``truegreen ablate --discover``: claims derived from what each negative test caught.

The tracing run (:mod:`truegreen.plugin.discovery`) reports, for each passing test, every
exception it caught, with the traceback from the catching frame inward, each frame marked
as the project's own source, a test file, the standard library or a dependency. Here each
caught exception becomes a claim, or the reason it cannot:

- raised by a ``raise`` statement in the project's source, directly in the body of an
  ``if`` with no ``else``: replace the ``if``'s condition with ``False``, so the guard
  never fires and the code goes on after it;
- any other ``raise`` (no ``if`` around it, or an ``if`` with an ``else`` that the guard
  made False would run instead, or a guard that is not an exactly-once expression of its
  file): delete the ``raise`` statement; failing that, the guard (``True`` for a raise in
  the ``else``);
- anything else is not derivable: the exception came from the standard library, from a
  dependency, from a line of the project that is not a ``raise`` (a subscript, a call into
  a builtin), or from the test's own code; or neither anchor occurs exactly once.

Each claim is an exactly-once anchor, as an ``Ablation:`` record's is, and
:func:`add_records` writes killed claims into the tests' docstrings as such records.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from dataclasses import dataclass
from typing import Callable, Optional

from truegreen.core.claims import Claim, read_records
from truegreen.core.snippets import SnippetError, find_expressions, find_statements, offsets

PROJECT = "project"
# The "exception types" of the early-outs a test took: `if ...: return None`, and a loop's
# `if ...:` / `continue` in a function that then returned a falsy result
EARLY_RETURN = "early return"
EARLY_CONTINUE = "early continue"
TEST = "test"
STDLIB = "stdlib"
DEPENDENCY = "dependency"

_TEST_DIRS = frozenset({"tests", "test", "testing"})


def is_test_path(relative: str) -> bool:
    """Whether a file of the project (a path relative to its root) is test code: under a
    ``tests``/``test``/``testing`` directory, or a ``test_*.py``, ``*_test.py`` or
    ``conftest.py``."""
    parts = relative.replace(os.sep, "/").split("/")
    name = parts[-1]
    if any(part in _TEST_DIRS for part in parts[:-1]):
        return True
    return name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")


@dataclass(frozen=True)
class Frame:
    path: str  # absolute
    line: int
    kind: str  # PROJECT, TEST, STDLIB or DEPENDENCY


@dataclass(frozen=True)
class Caught:
    """One exception a passing test caught: its type and its frames, catcher first."""

    test: str
    type: str
    frames: tuple[Frame, ...]


@dataclass(frozen=True)
class Derived:
    """What one caught exception gave: a claim, or why there is none. ``where`` is the
    line the test should be sensitive to (``path:line``), ``raise_text`` the statement."""

    caught: Caught
    claim: Optional[Claim]
    why: str = ""
    where: str = ""
    raise_text: str = ""


Sources = Callable[[str], Optional[str]]  # absolute path -> its text, None if unreadable


def squash(text: str) -> str:
    return " ".join(text.split())


class _Index:
    """A file's syntax, indexed once for the many exceptions caught in it: the innermost
    statement spanning each line, and the node whose statement list holds each statement."""

    def __init__(self, source: str) -> None:
        self.tree = ast.parse(source)
        self.statements: dict[int, ast.stmt] = {}
        self.parents: dict[int, tuple[ast.AST, str]] = {}  # id(statement) -> (node, list)
        for node in ast.walk(self.tree):  # level by level: a deeper statement comes later
            if isinstance(node, ast.stmt):
                for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                    self.statements[line] = node
            for name in ("body", "orelse", "finalbody"):
                value = getattr(node, name, None)
                if isinstance(value, list):
                    for item in value:
                        self.parents[id(item)] = (node, name)

    def statement_at(self, line: int) -> Optional[ast.stmt]:
        """The innermost statement that spans ``line``."""
        return self.statements.get(line)

    def parent(self, child: ast.stmt) -> tuple[Optional[ast.AST], str]:
        """The node whose statement list holds ``child``, and that list's name."""
        return self.parents.get(id(child), (None, ""))


def quotable(text: str) -> bool:
    """Whether a snippet can be quoted in a record: one line, and a backtick quote fits."""
    return "\n" not in text and "``" not in text and not text.endswith("`")


def _count(find: Callable[[str, str], list[object]], source: str, snippet: str) -> int:
    try:
        return len(find(source, snippet))
    except (SnippetError, SyntaxError):
        return 0


_LIBRARIES = (
    re.compile(r"[/\\](?:site-packages|dist-packages)[/\\](.+)$"),
    re.compile(r"[/\\](?:python\d+\.\d+|Lib)[/\\](.+)$"),
)


def _short(path: str) -> str:
    """A library file as its import path shows it: ``json/decoder.py``."""
    for pattern in _LIBRARIES:
        found = pattern.search(path)
        if found:
            return found.group(1).replace("\\", "/")
    return path


def _relative(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def _falsy_assert(node: ast.Assert) -> bool:
    """``assert not f(x)``, ``assert f(x) is None``, ``assert f(x) is False``."""
    test = node.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Call)
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Call)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value in (None, False)
    )


def falsy_tests(source: str) -> frozenset[int]:
    """The first lines (``def`` and decorators) of the functions of ``source`` that assert a
    call's result is falsy: ``assert not f(x)``, ``assert f(x) is None`` or ``assert f(x) is
    False`` (negative tests of an early-out ``return``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, kinds) and any(
            isinstance(n, ast.Assert) and _falsy_assert(n) for n in ast.walk(node)
        ):
            lines.update((node.lineno, *(d.lineno for d in node.decorator_list)))
    return frozenset(lines)


def falsy_assert_lines(source: str) -> frozenset[int]:
    """Every line of ``source`` that a falsy assertion of a call spans: an early-out taken in
    a call made on one of them led to the answer the test checks; one taken in a call made
    elsewhere in the test (building its input) did not."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    return frozenset(
        line
        for n in ast.walk(tree)
        if isinstance(n, ast.Assert) and _falsy_assert(n)
        for line in range(n.lineno, (n.end_lineno or n.lineno) + 1)
    )


def asserts_a_falsy_result(source: str, line: int) -> bool:
    """Whether the function defined at ``line`` of ``source`` asserts a falsy call result."""
    return line in falsy_tests(source)


def _early_out(node: ast.AST) -> bool:
    """An ``if`` with no ``else`` whose body is one ``return`` or ``continue`` (an early-out)."""
    return (
        isinstance(node, ast.If)
        and not node.orelse
        and len(node.body) == 1
        and isinstance(node.body[0], (ast.Return, ast.Continue))
    )


def _early_outs(source: str, kind: type, own_line: bool = False) -> frozenset[int]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    return frozenset(
        n.body[0].lineno  # type: ignore[attr-defined]
        for n in ast.walk(tree)
        if _early_out(n)
        and isinstance(n.body[0], kind)  # type: ignore[attr-defined]
        and not (own_line and n.body[0].lineno == n.lineno)  # type: ignore[attr-defined]
    )


def early_returns(source: str) -> frozenset[int]:
    """The lines of ``source``'s early-out returns: the ``return`` of an ``if ...: return
    ...`` with no ``else``."""
    return _early_outs(source, ast.Return)


def early_continues(source: str) -> frozenset[int]:
    """The lines of ``source``'s early-out continues that stand on a line of their own: the
    ``continue`` of an ``if ...:`` / ``continue`` with no ``else`` (on the ``if``'s line, a
    trace cannot tell whether it was taken)."""
    return _early_outs(source, ast.Continue, own_line=True)


# Context managers that swallow an exception, besides the raises contexts that the tracing run
# watches itself (``pytest.raises``, ``assertRaises``): code that enters one catches.
_SUPPRESSORS = frozenset({"suppress"})


def _callee(call: ast.Call) -> str:
    """The name a call calls: ``f`` of ``f(x)`` and of ``m.f(x)``."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _catches(function: ast.AST) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.ExceptHandler):
            return True
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
            isinstance(item.context_expr, ast.Call) and _callee(item.context_expr) in _SUPPRESSORS
            for item in node.items
        ):
            return True
        # the function form, pytest.raises(E, f, ...): caught in pytest's code on pytest < 8.4
        if isinstance(node, ast.Call) and _callee(node) == "raises" and len(node.args) > 1:
            return True
    return False


def catching_functions(source: str) -> Optional[frozenset[str]]:
    """The names of the functions of ``source`` that catch an exception themselves (an
    ``except``, ``with suppress(...)``, the function form of ``pytest.raises``), each with
    the functions it is nested in (a fixture returning a helper that catches); None when
    ``source`` does not parse. Code at module level runs at import, not in a test: it is not
    counted."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    return frozenset(n.name for n in ast.walk(tree) if isinstance(n, kinds) and _catches(n))


def mentioned(source: str) -> frozenset[str]:
    """Every name the functions of ``source`` use: names, attributes and parameters (a
    fixture is asked for by parameter)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    names: set[str] = set()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return frozenset(names)


@functools.lru_cache(maxsize=16)
def _index(source: str) -> _Index:
    """A file's index, made once for the many exceptions caught in it (never changed)."""
    return _Index(source)


def derive(caught: Caught, sources: Sources, root: str) -> Derived:
    """The claim of one caught exception, or why there is none (paths relative to ``root``)."""
    if not caught.frames:
        return Derived(caught, None, f"{caught.type} has no traceback to follow")
    inner = caught.frames[-1]
    project = [f for f in caught.frames if f.kind == PROJECT]
    if inner.kind != PROJECT:
        where = {STDLIB: "the standard library", DEPENDENCY: "a dependency",
                 TEST: "the test's own code"}[inner.kind]  # fmt: skip
        place = _relative(inner.path, root) if inner.kind == TEST else _short(inner.path)
        why = f"{caught.type} raised in {where} ({place}:{inner.line})"
        if inner.kind == TEST:
            why = f"{caught.type} raised in the test's own code or by a builtin it called " \
                  f"({place}:{inner.line})"  # fmt: skip
        if project:
            last = project[-1]
            why += f", called from {_relative(last.path, root)}:{last.line}"
        elif inner.kind != TEST:
            why += ", not through the project's source"
        return Derived(caught, None, why)
    path = _relative(inner.path, root)
    where = f"{path}:{inner.line}"
    source = sources(inner.path)
    if source is None:
        return Derived(caught, None, f"{where}: the file cannot be read", where)
    anchor, why, text = _anchored(source, path, inner.line, caught.type)
    claim = Claim(caught.test, path, anchor[0], anchor[1], 0) if anchor else None
    return Derived(caught, claim, why, where, text)


# (snippet, replacement or None for a deletion), or None; why there is none; the statement
Anchored = tuple[Optional[tuple[str, Optional[str]]], str, str]


@functools.lru_cache(maxsize=4096)
def _anchored(source: str, path: str, line: int, kind: str) -> Anchored:
    """The anchor of an exception of type ``kind`` (or an early-out) caught at ``line`` of
    ``source``: the same for every test that caught it there (parametrized cases by the
    hundred), so made once."""
    where = f"{path}:{line}"
    try:
        index = _index(source)
    except (SyntaxError, ValueError):
        return None, f"{where}: the file does not parse", ""
    statement = index.statement_at(line)
    text = squash(ast.get_source_segment(source, statement) or "") if statement else ""
    if kind in (EARLY_RETURN, EARLY_CONTINUE):
        return _early_out_anchor(index, source, statement, kind, where, text)
    if not isinstance(statement, ast.Raise):
        shown = text if len(text) <= 60 else text[:57] + "..."
        return None, f"{kind} not raised by a raise statement: {where} `{shown}`", ""
    parent, branch = index.parent(statement)
    condition = parent.test if isinstance(parent, ast.If) else None
    guarded = condition is not None and branch in ("body", "orelse")
    # The guard made False skips the raise and goes on after the `if`; with an `else` (or
    # for a raise in the `else`) it would run the other branch instead, which may raise
    # too: then the raise itself is deleted, and the guard is the last resort.
    alone = guarded and branch == "body" and not getattr(parent, "orelse", None)
    tried: list[str] = []
    order = ("guard", "raise") if alone else ("raise", "guard") if guarded else ("raise",)
    for anchor in order:
        if anchor == "guard" and condition is not None:
            guard = squash(ast.get_source_segment(source, condition) or "")
            count = _count(find_expressions, source, guard)  # type: ignore[arg-type]
            if count == 1 and quotable(guard):
                return (guard, "False" if branch == "body" else "True"), "", text
            tried.append(f"the guard `{guard}` occurs {count} times" if count != 1
                         else f"the guard `{guard}` cannot be quoted")  # fmt: skip
        else:
            count = _count(find_statements, source, text)  # type: ignore[arg-type]
            if count == 1 and quotable(text):
                return (text, None), "", text
            tried.append(f"`{text}` occurs {count} times" if count != 1
                         else f"`{text}` cannot be quoted")  # fmt: skip
    return None, f"no exactly-once anchor at {where}: " + "; ".join(tried), text


def _early_out_anchor(
    index: _Index, source: str, statement: Optional[ast.stmt], kind: str, where: str, text: str
) -> Anchored:
    """The claim of an early-out return or continue a test took: its guard made False, so
    the code goes on past it (the ``return`` or ``continue`` alone is never deleted: the code
    after it would run anyway, and a function of one ``if`` would lose its body)."""
    statement_kind = ast.Continue if kind == EARLY_CONTINUE else ast.Return
    parent = index.parent(statement)[0] if isinstance(statement, statement_kind) else None
    if parent is None or not _early_out(parent):
        what = "continue" if statement_kind is ast.Continue else "return"
        return None, f"{where} is not an early-out {what} `{text}`", ""
    guard = squash(ast.get_source_segment(source, parent.test) or "")  # type: ignore[attr-defined]
    count = _count(find_expressions, source, guard)  # type: ignore[arg-type]
    if count == 1 and quotable(guard):
        return (guard, "False"), "", text
    why = (
        f"the guard `{guard}` occurs {count} times"
        if count != 1
        else f"the guard `{guard}` cannot be quoted"
    )
    return None, f"no exactly-once anchor at {where}: {why}", text


# -- writing records --------------------------------------------------------------------


class NotWritten(ValueError):
    """A record that cannot be added to a test; the message says why."""


def _quote(text: str) -> str:
    return f"``{text}``" if "`" in text else f"`{text}`"


def clause(claim: Claim) -> str:
    """The record of one claim, as a person would write it."""
    if claim.new is None:
        return f"Ablation: delete {_quote(claim.snippet)} in {_quote(claim.path)}."
    return (
        f"Ablation: replace {_quote(claim.snippet)} with {_quote(claim.new)} in "
        f"{_quote(claim.path)}."
    )


def _function(tree: ast.Module, name: str) -> Optional[ast.AST]:
    """The test function (``test_x``) or method (``TestX::test_x``) named ``name``."""
    scope: list[ast.stmt] = tree.body
    found: Optional[ast.AST] = None
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for part in name.split("::"):
        node = next((n for n in scope if isinstance(n, kinds) and n.name == part), None)
        if node is None:
            return None
        found, scope = node, node.body
    return found


_PREFIX = re.compile(r"^([rRuU]?)(\"\"\"|''')")


def add_records(source: str, prefix: str, function: str, claims: list[Claim]) -> str:
    """``source`` with a record of each claim added to the docstring of ``function``
    (``test_x`` or ``TestX::test_x``) of the test file ``prefix``; a docstring is added
    when there is none. Nothing else of the file changes; a claim the test's records
    already hold is skipped. :class:`NotWritten` when it cannot be done safely."""
    tree = ast.parse(source)
    node = _function(tree, function)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise NotWritten(f"{prefix}::{function}: expected a test function, found none")
    nodeid = f"{prefix}::{function}"
    held = {(c.path, c.snippet, c.new) for c in read_records(source, prefix)[0] if c.test == nodeid}
    wanted = []  # each anchor once: the claims of a parametrized test's cases are the same
    for claim in claims:
        if (claim.path, claim.snippet, claim.new) not in held:
            held.add((claim.path, claim.snippet, claim.new))
            wanted.append(claim)
    if not wanted:
        return source
    lines = source.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    first = node.body[0]
    indent = " " * first.col_offset
    if first.lineno == node.lineno:
        raise NotWritten(f"{nodeid}: its body is on the line of its `def`")
    texts = [clause(c) for c in wanted]
    docstring = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    if not docstring:
        body = newline.join(f"{indent}{t}" if i else t for i, t in enumerate(texts))
        if '"""' in body or "\\" in body:
            raise NotWritten(f"{nodeid}: the record cannot be quoted in a docstring")
        lines.insert(first.lineno - 1, f'{indent}"""{body}"""{newline}')
        return _checked("".join(lines), prefix, nodeid, wanted)
    start = lines[first.lineno - 1]
    opening = _PREFIX.match(start[first.col_offset :])
    if opening is None:
        raise NotWritten(f"{nodeid}: its docstring is not a triple-quoted string")
    raw, quote = opening.group(1).lower() == "r", opening.group(2)
    end_line = first.end_lineno or first.lineno
    last = lines[end_line - 1]
    close = first.end_col_offset or 0
    if last[close - 3 : close] != quote:
        raise NotWritten(f"{nodeid}: its docstring does not end where expected")
    added = []
    for text in texts:
        if quote in text or (raw and "\\" in text):
            raise NotWritten(f"{nodeid}: the record cannot be quoted in its docstring")
        added.append(indent + (text if raw else text.replace("\\", "\\\\")) + newline)
    before, after = last[: close - 3], last[close - 3 :]
    if before.strip():  # the closing quotes follow text: they go to a line of their own
        new = [before + newline, newline, *added, indent + after]
    else:
        new = [] if end_line > first.lineno and not lines[end_line - 2].strip() else [newline]
        new += [*added, last]
    lines[end_line - 1 : end_line] = new
    return _checked("".join(lines), prefix, nodeid, wanted)


def _checked(source: str, prefix: str, nodeid: str, wanted: list[Claim]) -> str:
    """``source`` when it parses and its records of ``nodeid`` hold every wanted claim."""
    try:
        held = {(c.path, c.snippet, c.new) for c in read_records(source, prefix)[0]
                if c.test == nodeid}  # fmt: skip
    except SyntaxError as exc:
        raise NotWritten(f"{nodeid}: the rewritten file would not parse ({exc.msg})") from None
    missing = [c for c in wanted if (c.path, c.snippet, c.new) not in held]
    if missing:
        raise NotWritten(f"{nodeid}: the record would not read back as written")
    return source


# -- switched mutants: many claims of one file in one source ------------------------------

SWITCH = '__import__("truegreen.guards.mutant", None, None, ["on"]).on'


def switched(source: str, claims: list[tuple[int, Claim]]) -> tuple[str, list[int]]:
    """``source`` with each claim in it behind its switch (``on(N)``, N its number): a
    replaced expression becomes ``(NEW if on(N) else (OLD))``, a deleted statement that
    starts its line ``if not on(N): STATEMENT``. With every switch off it runs as the file
    does, and with one on as that claim's mutant (two replacements of one expression nest).
    Also the numbers placed: a claim whose anchor is not exactly once, overlaps another's,
    or is a statement sharing its line (``if x: raise E``) is left out, to run alone."""
    original = source
    edits: dict[tuple[int, int], list[tuple[int, Optional[str]]]] = {}
    placed: list[int] = []
    for number, claim in claims:
        try:
            find = find_statements if claim.new is None else find_expressions
            found = find(source, claim.snippet)
        except (SnippetError, SyntaxError):
            continue
        if len(found) != 1:
            continue
        start, end = offsets(original, found[0])
        same = edits.get((start, end))
        if same is not None and claim.new is not None and same[0][1] is not None:
            same.append((number, claim.new))  # another replacement of the same expression
            placed.append(number)
            continue
        if any(start < e and s < end for s, e in edits):
            continue
        if claim.new is None and original[original.rfind("\n", 0, start) + 1 : start].strip():
            continue
        edits[(start, end)] = [(number, claim.new)]
        placed.append(number)
    for (start, end), switches in sorted(edits.items(), reverse=True):
        new = original[start:end]
        for number, replacement in switches:
            if replacement is None:
                new = f"if not {SWITCH}({number}): {new}"
            else:
                new = f"({replacement} if {SWITCH}({number}) else ({new}))"
        source = source[:start] + new + source[end:]
    try:
        ast.parse(source)
    except SyntaxError:
        return source, []
    return source, placed
