"""A rule's documentation page and one-line summary, both read from its docstring."""

from __future__ import annotations

import inspect
import re

from truegreen.audit.base import Rule

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Known problems")


def body(rule: type[Rule]) -> str:
    """The docstring as Markdown: its ``## `` sections, dedented."""
    return inspect.cleandoc(rule.__doc__ or "")


def page(rule: type[Rule]) -> str:
    """The rule's whole page: a title with code, name and whether it is on by default."""
    state = "on by default" if rule.default else "opt-in: runs only when selected by code or name"
    return f"# {rule.code} {rule.name}\n\n{state}.\n\n{body(rule)}\n"


def summary(rule: type[Rule]) -> str:
    """The first sentence of "What it does", on one line."""
    match = re.search(r"## What it does\n(.*?)(?:\n## |\Z)", body(rule), re.S)
    text = " ".join((match.group(1) if match else body(rule)).split())
    in_code = False
    for n, char in enumerate(text):
        if char == "`":
            in_code = not in_code
        elif char in ".!?" and not in_code and (n + 1 == len(text) or text[n + 1] == " "):
            return text[: n + 1]
    return text
