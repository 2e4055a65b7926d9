"""Ablation records: the claims test docstrings and comments make about the gates they see.

A record starts with ``Ablation:`` (also ``Ablations:``, ``Ablation target:``,
``Ablation A1:``) and runs to the end of its paragraph. Each clause it holds is one
claim, checked singly:

- ``delete `SNIPPET` in `PATH``` (also "deleting ... in/from ...");
- ``replace `OLD` with `NEW` in `PATH``` (also "replacing ... with/by ...").

Code is quoted with single or double backticks. A record with no such clause is
*prose-only*: listed, never run.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Optional

_LABEL = re.compile(r"\bAblations?(?:\s+target|\s+[A-Z]\w*)?\s*:", re.I)
_CODE = r"(?P<q{n}>``|`)(?P<{name}>.+?)(?P=q{n})"
_DELETE = re.compile(
    r"\bdelet(?:e|ing)\s+(?:the\s+)?"
    + _CODE.format(n=1, name="snippet")
    + r"\s+(?:in|from)\s+"
    + _CODE.format(n=2, name="path"),
    re.S,
)
_REPLACE = re.compile(
    r"\breplac(?:e|ing)\s+"
    + _CODE.format(n=1, name="old")
    + r"\s+(?:with|by)\s+"
    + _CODE.format(n=2, name="new")
    + r"\s+in\s+"
    + _CODE.format(n=3, name="path"),
    re.S,
)


@dataclass(frozen=True)
class Claim:
    """One checkable clause: delete ``snippet`` (or replace it with ``new``) in ``path``."""

    test: str  # node id of the test function that holds the record
    path: str
    snippet: str
    new: Optional[str]  # None for a deletion
    line: int  # where the record is, in the test file

    @property
    def action(self) -> str:
        return "delete" if self.new is None else "replace"

    def describe(self) -> str:
        if self.new is None:
            return f"delete `{self.snippet}` in {self.path}"
        return f"replace `{self.snippet}` with `{self.new}` in {self.path}"


@dataclass(frozen=True)
class ProseRecord:
    """A record that names no checkable clause."""

    test: str
    line: int
    text: str


@dataclass(frozen=True)
class StrayRecord:
    """A record with a checkable clause that no test holds (on a module, a class, a helper
    function, or in a comment outside every test): it names no test to run, so it never runs."""

    path: str  # the test file, as pytest names it
    line: int
    where: str  # what holds it, in words: "the module's docstring", "class TestX", ...

    def describe(self) -> str:
        return (
            f"{self.path}:{self.line}: a record on {self.where} names no test to run; put it "
            "in the docstring or a comment of the test that checks it"
        )


def _squash(text: str) -> str:
    return " ".join(text.split())


def claims_in(text: str, test: str, line: int) -> tuple[list[Claim], list[ProseRecord]]:
    """The claims of every record in one docstring or comment block."""
    claims, prose = [], []
    for label in _LABEL.finditer(text):
        rest = text[label.end() :]
        paragraph = re.split(r"\n\s*\n", rest, maxsplit=1)[0]
        following = _LABEL.search(paragraph)
        if following:
            paragraph = paragraph[: following.start()]
        found = []
        for match in _DELETE.finditer(paragraph):
            found.append(Claim(test, match["path"].strip(), _squash(match["snippet"]), None, line))
        for match in _REPLACE.finditer(paragraph):
            found.append(
                Claim(
                    test, match["path"].strip(), _squash(match["old"]), _squash(match["new"]), line
                )
            )
        if found:
            claims.extend(found)
        else:
            prose.append(ProseRecord(test, line, _squash(paragraph)[:120]))
    return claims, prose


def _tests(tree: ast.Module, prefix: str) -> list[tuple[str, ast.AST]]:
    """(node id, function) of every test function and test method in a module."""
    found: list[tuple[str, ast.AST]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test"
        ):
            found.append((f"{prefix}::{node.name}", node))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                    item.name.startswith("test")
                ):
                    found.append((f"{prefix}::{node.name}::{item.name}", item))
    return found


class Unreadable(ValueError):
    """A file that cannot be read as Python source; the message says what was wrong."""


def python_source(data: bytes) -> str:
    """A Python file's text, decoded as Python decodes it (UTF-8 unless a coding cookie
    names another encoding); :class:`Unreadable` when it cannot be."""
    encoding = "utf-8"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # a bad cookie, or bytes that are not UTF-8 in the first lines
        if "encoding declaration" not in exc.msg:
            raise Unreadable(f"expected a known coding cookie, found {exc.msg}") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        found = data[exc.start : exc.start + 1]
        raise Unreadable(
            f"expected {exc.encoding.upper()} text, found byte {found!r} at offset {exc.start}"
        ) from None


def syntax_problem(exc: SyntaxError) -> str:
    """What is wrong with a file that does not parse, in one line."""
    where = f" at line {exc.lineno}" if exc.lineno else ""
    text = (exc.text or "").strip()
    return f"expected Python, found {exc.msg}{where}" + (f": {text!r}" if text else "")


Records = tuple[list[Claim], list[ProseRecord], list[StrayRecord]]


def read_file_records(data: bytes, prefix: str) -> Records:
    """:func:`read_records` of a test file's bytes; :class:`Unreadable` when they are not
    Python source."""
    source = python_source(data)
    try:
        return read_records(source, prefix)
    except SyntaxError as exc:
        raise Unreadable(syntax_problem(exc)) from None
    except ValueError as exc:  # NUL bytes, on older Pythons
        raise Unreadable(f"expected Python, found {exc}") from None
    except (RecursionError, MemoryError):  # the parser's stack, not the machine's memory
        raise Unreadable("expected Python, found code nested too deeply to parse") from None


def read_records(source: str, prefix: str) -> Records:
    """Every claim and prose-only record of the tests in one test file, and the records with a
    checkable clause that no test holds.

    ``prefix`` is the file's path as pytest names it (``tests/test_x.py``).
    """
    tree = ast.parse(source)
    comments: list[tuple[int, str]] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments.append((token.start[0], token.string.lstrip("#").strip()))
    claims: list[Claim] = []
    prose: list[ProseRecord] = []
    tests = _tests(tree, prefix)
    for test, node in tests:
        docstring = ast.get_docstring(node, clean=True)  # type: ignore[arg-type]
        if docstring:
            found, words = claims_in(docstring, test, node.lineno)  # type: ignore[attr-defined]
            claims += found
            prose += words
        first = node.lineno  # type: ignore[attr-defined]
        last = node.end_lineno or first  # type: ignore[attr-defined]
        block = "\n".join(text for line, text in comments if first <= line <= last)
        if block:
            found, words = claims_in(block, test, first)
            claims += found
            prose += words
    return claims, prose, _strays(tree, comments, tests, prefix)


def _holder(node: ast.AST) -> str:
    if isinstance(node, ast.Module):
        return "the module"
    if isinstance(node, ast.ClassDef):
        return f"class {node.name}"
    name = node.name  # type: ignore[attr-defined]
    return f"function {name} (not a test)"


def _strays(
    tree: ast.Module,
    comments: list[tuple[int, str]],
    tests: list[tuple[str, ast.AST]],
    prefix: str,
) -> list[StrayRecord]:
    """The records with a checkable clause outside every test function: each would never run."""
    spans = [(n.lineno, n.end_lineno or n.lineno) for _, n in tests]  # type: ignore[attr-defined]

    def in_a_test(line: int) -> bool:
        return any(first <= line <= last for first, last in spans)

    found: list[StrayRecord] = []
    holders = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(tree):
        if not isinstance(node, holders):
            continue
        line = node.body[0].lineno if isinstance(node, ast.Module) and node.body else 1
        line = getattr(node, "lineno", line)
        if not isinstance(node, ast.Module) and in_a_test(line):
            continue  # the test itself, or a helper inside it
        docstring = ast.get_docstring(node, clean=True)
        if docstring and claims_in(docstring, "", line)[0]:
            found.append(StrayRecord(prefix, line, _holder(node)))
    blocks: list[tuple[int, int, list[str]]] = []  # (first line, last line, texts)
    for line, text in comments:
        if in_a_test(line):
            continue
        if blocks and blocks[-1][1] == line - 1:
            blocks[-1] = (blocks[-1][0], line, [*blocks[-1][2], text])
        else:
            blocks.append((line, line, [text]))
    for first, _, texts in blocks:
        if claims_in("\n".join(texts), "", first)[0]:
            found.append(StrayRecord(prefix, first, "a comment outside every test"))
    return sorted(found, key=lambda stray: stray.line)
