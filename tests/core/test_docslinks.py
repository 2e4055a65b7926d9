"""Markdown links and GitHub anchors: what counts as a link, what a heading's anchor is."""

from __future__ import annotations

from typing import Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st

from truegreen.core.docslinks import (
    Broken,
    Link,
    anchors,
    check_pages,
    headings,
    links,
    slug,
    strip_code,
)

# Markdown-ish text: the characters that open and close code, links and headings, often.
MARKDOWN = st.text(alphabet=st.sampled_from(list("`~#[]()<>!-=*_ \n\\abc1.md")), max_size=200)


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Hello World", "hello-world"),
        ("Exit statuses (all verbs)", "exit-statuses-all-verbs"),
        ("`truegreen run`: the sealed runner", "truegreen-run-the-sealed-runner"),
        ("What's *new* in **0.1**?", "whats-new-in-01"),
        ("snake_case and __bold__ _it_", "snake_case-and-bold-it"),
        ("A & B", "a--b"),
        ("Ünïcode ✨ emoji", "ünïcode--emoji"),
        ("[Linked](other.md) title", "linked-title"),
        ("  Trailing  ", "trailing"),
        ("pre-existing -- dashes", "pre-existing----dashes"),
        ("2. \\<nodejs.org> access", "2-nodejsorg-access"),
        ("Links like <https://x.invalid/a> show", "links-like-httpsxinvalida-show"),
        ("`assert.throws(fn[, error][, message])`", "assertthrowsfn-error-message"),
        ("Use <kbd>Ctrl</kbd>", "use-ctrl"),
    ],
)
def test_a_heading_slugs_as_github_makes_it(heading: str, expected: str) -> None:
    assert slug(heading) == expected


def test_repeated_headings_are_numbered_and_explicit_anchors_count() -> None:
    page = "# Usage\n## Usage\n## Usage\n<a name=\"legacy\"></a>\n<h3 id='custom'>x</h3>\n"
    assert anchors(page) == {"usage", "usage-1", "usage-2", "legacy", "custom"}


def test_a_heading_named_like_a_numbered_repeat_takes_the_next_free_number() -> None:
    assert anchors("# a\n# a-1\n# a\n") == {"a", "a-1", "a-2"}


def test_setext_headings_count_and_a_thematic_break_does_not() -> None:
    page = "Title\n=====\n\nSection\n-------\n\ntext\n\n---\n\n- item\n---\n"
    assert headings(page) == ["Title", "Section"]


def test_headings_inside_code_and_front_matter_are_not_headings() -> None:
    page = "---\ntitle: x\n---\n```md\n# fenced\n```\n~~~~\n# tilde\n~~~~\n# real\n"
    assert headings(page) == ["real"]


def test_every_kind_of_link_is_found_with_its_line() -> None:
    page = (
        'See [a](a.md) and ![img](pic.png "title").\n'
        "A [wrapped\nlink](b.md#part) and [c](<with space.md>).\n"
        '<a href="html.md">x</a> <img src="img.svg">\n'
        "[ref]: defined.md#anchor\n"
        "[in page](#here)\n"
    )
    assert links(page) == [
        Link(1, "a.md"),
        Link(1, "pic.png"),
        Link(3, "b.md#part"),
        Link(3, "with space.md"),
        Link(4, "html.md"),
        Link(4, "img.svg"),
        Link(5, "defined.md#anchor"),
        Link(6, "#here"),
    ]


def test_links_in_code_comments_and_escapes_are_not_links() -> None:
    """Ablation: delete `text = _COMMENT.sub(lambda m: _blank(m.group(0)), text)`
    in `src/truegreen/core/docslinks.py`."""
    page = (
        "Use `[x](missing.md)` inline, ``[y](a`b.md)`` doubled.\n"
        "```\n[z](fenced.md)\n```\n"
        "<!-- [w](commented.md) -->\n"
        "\\[not\\](a link)\n"
        "[real](real.md)\n"
    )
    assert "[w](commented.md)" in page  # premise: the commented link is on the page
    assert links(page) == [Link(7, "real.md")]


def test_an_unclosed_backtick_is_literal_and_the_link_after_it_counts() -> None:
    assert links("a ` b [x](x.md)\n") == [Link(1, "x.md")]


SITE = {
    "README.md": (
        "# Project\n"
        "[guide](docs/guide.md) [setup](docs/guide.md#setup) [top](#project)\n"
        "[web](https://example.invalid/x.md) [mail](mailto:a@b.invalid) [root](/docs/guide.md)\n"
        "[code](src/app.py#L10) [dir](docs/) [query](docs/guide.md?plain=1#setup)\n"
        "[encoded](docs/guide.md#f%C3%BCr-alle)\n"
    ),
    "docs/guide.md": "# Guide\n## Setup\n## Für alle\n[back](../README.md#project)\n",
}
FILES = {"README.md", "docs/guide.md", "docs", "src/app.py", "src"}


def _check(pages: dict[str, str]) -> list[Broken]:
    def read(path: str) -> Optional[str]:
        return {**SITE, "src/app.py": "x = 1\n"}.get(path)

    return check_pages(pages, FILES.__contains__, read)


def test_a_clean_site_reports_nothing() -> None:
    assert len(links(SITE["README.md"])) == 10  # premise: every kind of link is there
    assert _check(SITE) == []


def test_missing_files_and_anchors_are_each_reported_with_file_and_line() -> None:
    pages = {
        "docs/new.md": (
            "# New\n"
            "[gone](gone.md) [up](../README.md#nowhere)\n"
            "[self](#new) [self-miss](#old)\n"
            "[ref]: guide.md#setup-1\n"
        )
    }
    assert _check(pages) == [
        Broken("docs/new.md", 2, "../README.md#nowhere",
               "no heading or anchor #nowhere in README.md"),
        Broken("docs/new.md", 2, "gone.md", "no such file: docs/gone.md"),
        Broken("docs/new.md", 3, "#old", "no heading or anchor #old on this page"),
        Broken("docs/new.md", 4, "guide.md#setup-1",
               "no heading or anchor #setup-1 in docs/guide.md"),
    ]  # fmt: skip


def test_an_anchor_into_a_file_that_is_not_markdown_is_not_checked() -> None:
    """Ablation: replace `not resolved.lower().endswith(_MARKDOWN)` with `False`
    in `src/truegreen/core/docslinks.py`."""
    pages = {"a.md": "[code](src/app.py#L10)\n"}
    assert "src/app.py" in FILES  # premise: the file exists, only the anchor is unchecked
    assert _check(pages) == []


def test_external_links_are_never_checked() -> None:
    """Ablation: replace `not target or is_external(target)` with `not target`
    in `src/truegreen/core/docslinks.py`."""
    pages = {
        "a.md": "[w](https://example.invalid/x) [m](mailto:x@y.invalid) [p](//cdn.invalid/x)\n"
    }
    assert len(links(pages["a.md"])) == 3  # premise: all three are links
    assert _check(pages) == []


@given(MARKDOWN)
def test_stripping_code_keeps_every_offset_and_line(text: str) -> None:
    stripped = strip_code(text)
    assert len(stripped) == len(text)
    assert [i for i, c in enumerate(stripped) if c == "\n"] == [
        i for i, c in enumerate(text) if c == "\n"
    ]


@given(MARKDOWN)
def test_every_link_found_is_on_a_line_of_the_page(text: str) -> None:
    lines = text.split("\n")
    for link in links(text):
        assert 1 <= link.line <= len(lines)
        assert link.target in "\n".join(lines[link.line - 1 :])
    assert isinstance(anchors(text), frozenset)
