"""Markdown links as data: what a page links to, what anchors it offers, which links are broken."""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Callable, Optional
from urllib.parse import unquote


@dataclass(frozen=True)
class Link:
    """One link target as written, at its 1-based line."""

    line: int
    target: str


@dataclass(frozen=True, order=True)
class Broken:
    """A link that leads nowhere: where it is written and what was missing."""

    path: str
    line: int
    target: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: broken link {self.target!r}: {self.problem}"


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_ESCAPE = re.compile(r"\\[\[\]()`\\<>#]")
# [text](target "title") and ![alt](target): one level of nested brackets in the text.
_INLINE = re.compile(
    r"!?\[(?:[^\[\]\n]|\n(?!\s*\n)|\[[^\[\]]*\])*\]"
    r"\(\s*(?:<([^<>\n]*)>|((?:[^\s()]|\([^\s()]*\))*))(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
_DEFINITION = re.compile(r"^ {0,3}\[(?!\^)[^\]\n]+\]:[ \t]*(?:<([^<>\n]*)>|(\S+))", re.M)
_HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']*)[\"']", re.I)
_HTML_ANCHOR = re.compile(r"<[a-z][a-z0-9]*\b[^>]*?\b(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.I)
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_MARKDOWN = (".md", ".markdown")


def _blank(text: str) -> str:
    """Spaces for every character but newlines, so offsets and line numbers survive."""
    return "\n".join(" " * len(line) for line in text.split("\n"))


def strip_code(text: str) -> str:
    """The page with fenced code blocks, code spans, HTML comments and backslash escapes
    blanked out: what is left is the text where a link is a link."""
    lines = text.split("\n")
    if lines[0].strip() == "---" and "---" in (line.strip() for line in lines[1:]):
        end = next(i for i, line in enumerate(lines) if i and line.strip() == "---")
        lines[: end + 1] = [_blank(line) for line in lines[: end + 1]]  # YAML front matter
    fence: Optional[str] = None
    for index, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                fence = match.group(1)
                lines[index] = _blank(line)
        else:
            closing = match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence)
            if closing and not match.group(2).strip():  # type: ignore[union-attr]
                fence = None
            lines[index] = _blank(line)
    text = "\n".join(lines)
    text = _COMMENT.sub(lambda m: _blank(m.group(0)), text)
    text = _ESCAPE.sub(lambda m: "  ", text)
    return _strip_spans(text)


_RUNS = re.compile(r"`+")
_BREAKS = re.compile(r"\n[ \t]*\n")


def _strip_spans(text: str) -> str:
    """Blank code spans: a run of n backticks up to the next run of exactly n, within a
    paragraph; an unmatched run is literal text."""
    runs = [(m.start(), m.end()) for m in _RUNS.finditer(text)]
    breaks = [m.start() for m in _BREAKS.finditer(text)]
    out: list[str] = []
    done = 0
    index = 0
    while index < len(runs):
        start, end = runs[index]
        width = end - start
        following = bisect.bisect_left(breaks, end)
        limit = breaks[following] if following < len(breaks) else len(text)
        closing = index + 1
        while closing < len(runs) and runs[closing][0] < limit:
            if runs[closing][1] - runs[closing][0] == width:
                break
            closing += 1
        if closing >= len(runs) or runs[closing][0] >= limit:
            index += 1  # no closing run: these backticks are literal
            continue
        out.append(text[done:start])
        out.append(_blank(text[start : runs[closing][1]]))
        done = runs[closing][1]
        index = closing + 1
    out.append(text[done:])
    return "".join(out)


def links(text: str, prose: Optional[str] = None) -> list[Link]:
    """Every link target on a page (inline, image, reference definition, HTML href/src),
    in order, outside code (``prose``: :func:`strip_code` of ``text``, if already made)."""
    prose = strip_code(text) if prose is None else prose
    found: list[tuple[int, str]] = []
    for pattern in (_INLINE, _DEFINITION):
        for match in pattern.finditer(prose):
            start = match.start(1) if match.group(1) is not None else match.start(2)
            found.append((start, text[start : match.end(1) if match.group(1) is not None
                                      else match.end(2)]))  # fmt: skip
    for match in _HTML_LINK.finditer(prose):
        found.append((match.start(1), text[match.start(1) : match.end(1)]))
    newlines = [m.start() for m in re.finditer("\n", text)]
    return [Link(bisect.bisect_left(newlines, at) + 1, target) for at, target in sorted(found)]


_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def _heading_text(raw: str) -> str:
    """A heading as GitHub renders it to plain text: code spans give their content as
    written; outside them links and images give their text, HTML tags and ``_`` emphasis
    markers vanish (``*`` and ``~`` are punctuation, which the slug drops anyway)."""
    out: list[str] = []
    last = 0
    for span in _SPAN.finditer(raw):
        out += [_plain(raw[last : span.start()]), span.group(2)]
        last = span.end()
    out.append(_plain(raw[last:]))
    return "".join(out).strip()


def _plain(text: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"!?\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = re.sub(r"<([A-Za-z][A-Za-z0-9+.-]*:[^>\s]*)>", r"\1", text)  # an autolink shows its URL
    text = re.sub(r"(?<!\\)<[^>]+>", "", text)
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)  # an escaped character is itself
    return re.sub(r"(?<![\w])(_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w])", r"\2", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (before duplicates are numbered): lower-case,
    every character but letters, digits, marks, ``-``, ``_`` and spaces dropped, each space
    a ``-``."""
    kept = []
    for char in _heading_text(heading).lower():
        if char in "-_ " or char.isalnum() or unicodedata.category(char)[0] in "MN":
            kept.append("-" if char == " " else char)
    return "".join(kept)


def headings(text: str, prose: Optional[str] = None) -> list[str]:
    """The text of every ATX and setext heading on a page, outside code, in order
    (``prose`` is :func:`strip_code` of ``text`` when the caller has it already)."""
    original = text.split("\n")
    lines = (strip_code(text) if prose is None else prose).split("\n")  # structure only
    found: list[str] = []
    for index, line in enumerate(lines):
        if _ATX.match(line):
            atx = _ATX.match(original[index])
            found.append((atx.group(2) if atx else "") or "")
        elif _SETEXT.match(line):
            first = index
            while first > 0 and _is_paragraph(lines[first - 1]):
                first -= 1
            if first < index:
                found.append(" ".join(p.strip() for p in original[first:index]))
    return found


def _is_paragraph(line: str) -> bool:
    """A line that can be the text of a setext heading (not blank, a heading, a list
    item, a table row or a quote)."""
    if not line.strip() or _ATX.match(line) or _SETEXT.match(line):
        return False
    return not re.match(r"^\s*(?:[-*+>]|\d+[.)])(?:\s|$)", line) and "|" not in line


def anchors(text: str, prose: Optional[str] = None) -> frozenset[str]:
    """Every fragment that lands somewhere on a page: heading slugs with GitHub's ``-1``,
    ``-2`` for repeats, and explicit ``<a name=...>`` / ``id=...`` anchors."""
    prose = strip_code(text) if prose is None else prose
    seen: dict[str, int] = {}
    found: set[str] = set()
    for heading in headings(text, prose):
        base = slug(heading)
        candidate = base
        while candidate in found:
            seen[base] = seen.get(base, 0) + 1
            candidate = f"{base}-{seen[base]}"
        found.add(candidate)
    found.update(match.group(1) for match in _HTML_ANCHOR.finditer(prose))
    return frozenset(found)


def is_external(target: str) -> bool:
    """A link to another site or scheme (``https:``, ``mailto:``, ``//host``): never checked."""
    return bool(_SCHEME.match(target)) or target.startswith("//")


def check_page(
    path: str,
    text: str,
    exists: Callable[[str], bool],
    anchors_of: Callable[[str], Optional[frozenset[str]]],
    prose: Optional[str] = None,
) -> Iterator[Broken]:
    """The broken links of one page.

    ``path`` is the page's POSIX path relative to the root; ``exists(p)`` says whether a
    root-relative path is a file or directory; ``anchors_of(p)`` gives a Markdown file's
    anchors (None when it cannot be read). A ``/``-prefixed target is relative to the root,
    as on GitHub.
    """
    here = PurePosixPath(path).parent
    for link in links(text, prose):
        target = link.target.strip()
        if not target or is_external(target):
            continue
        address, _, fragment = target.partition("#")
        address = unquote(address.split("?", 1)[0])
        if address:
            joined = (
                PurePosixPath(address.lstrip("/")) if address.startswith("/") else here / address
            )
            resolved = _normalise(joined)
            if not exists(resolved):
                yield Broken(path, link.line, target, f"no such file: {resolved}")
                continue
        else:
            resolved = path
        if not fragment or not resolved.lower().endswith(_MARKDOWN):
            continue
        offered = anchors_of(resolved)
        wanted = unquote(fragment)
        if offered is not None and wanted not in offered and wanted.lower() not in offered:
            where = "on this page" if resolved == path else f"in {resolved}"
            yield Broken(path, link.line, target, f"no heading or anchor #{wanted} {where}")


def _normalise(path: PurePosixPath) -> str:
    """``a/./b/../c`` as ``a/c``; a path that climbs above the root keeps its ``..``."""
    parts: list[str] = []
    for part in path.parts:
        if part in ("", "."):
            continue
        if part == ".." and parts and parts[-1] != "..":
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts) or "."


def check_pages(
    pages: Mapping[str, str],
    exists: Callable[[str], bool],
    read: Callable[[str], Optional[str]],
) -> list[Broken]:
    """Every broken link of ``pages`` (root-relative path to text), sorted by place; each
    page is stripped of code once, each target's anchors and existence worked out once."""
    prose: dict[str, str] = {path: strip_code(text) for path, text in pages.items()}
    found_anchors: dict[str, Optional[frozenset[str]]] = {}
    found_files: dict[str, bool] = {}

    def anchors_of(target: str) -> Optional[frozenset[str]]:
        if target not in found_anchors:
            text = pages[target] if target in pages else read(target)
            found_anchors[target] = None if text is None else anchors(text, prose.get(target))
        return found_anchors[target]

    def exists_once(target: str) -> bool:
        if target not in found_files:
            found_files[target] = target in pages or exists(target)
        return found_files[target]

    found: Iterable[Broken] = (
        broken
        for path, text in pages.items()
        for broken in check_page(path, text, exists_once, anchors_of, prose[path])
    )
    return sorted(found)
