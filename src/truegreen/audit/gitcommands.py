"""git commands written in a test, as their words: argv lists, command strings, helper calls.

A test runs git in one of three shapes: an argv list or tuple (``["git", "init", "-q"]``,
handed to ``subprocess`` or a helper), a command string handed to a call (``run("git init")``,
``wd("git config user.name x")``, ``shlex.split("git init")``), or a helper named for git
called with the subcommand first (``git("init")``, ``self.git("config", "user.name", "x")``).
:func:`git_command` reads each into :class:`GitCommand`: the subcommand and the words after it.
A word the source does not spell out (a variable, a call) is ``None``.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Optional

# git's global options that take a value as the next word (``git -C dir init``)
VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})
# a program word that is git: ``git``, ``/usr/bin/git``, ``git.exe``
GIT_PROGRAM = re.compile(r"(?:.*[/\\])?git(?:\.exe)?", re.IGNORECASE)
# a name that holds git's path or runs it: GIT, git_exe, self.git, run_git
GIT_NAME = re.compile(r"(?:^|_)git(?:$|_)", re.IGNORECASE)
PLACEHOLDER = "\x00"  # a formatted value inside a command string
# calls whose string arguments are text to show, not commands to run
SHOWS = frozenset({"print", "write", "echo", "debug", "info", "warning", "warn", "error",
                   "exception", "critical", "log", "fail", "skip", "xfail", "append", "extend",
                   "add", "format", "startswith", "endswith", "find", "index", "count",
                   "replace"})  # fmt: skip


@dataclass(frozen=True)
class GitCommand:
    """One git command: ``config`` (the ``-c key=value`` given before the subcommand),
    ``subcommand`` and ``args`` (``None`` for a word the source does not spell out);
    ``open_ended`` when the source may add words it does not show (``*args``)."""

    config: tuple[str, ...]
    subcommand: str
    args: tuple[Optional[str], ...]
    open_ended: bool = False


def _name(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):  # shutil.which("git"), str(GIT)
        for arg in node.args:
            word = _word(arg)
            if word is not None:
                return word
            name = _name(arg)
            if name is not None:
                return name
    return None


def _word(node: ast.AST) -> Optional[str]:
    """A literal word; an f-string's text with each formatted value a placeholder
    (``f"--initial-branch={name}"``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            str(part.value) if isinstance(part, ast.Constant) else PLACEHOLDER
            for part in node.values
        )
    return None


def _is_git(node: ast.AST) -> bool:
    word = _word(node)
    if word is not None:
        return GIT_PROGRAM.fullmatch(word) is not None
    name = _name(node)
    return name is not None and (
        GIT_NAME.search(name) is not None or GIT_PROGRAM.fullmatch(name) is not None
    )


def _parse(words: Sequence[Optional[str]], open_ended: bool) -> Optional[GitCommand]:
    """``words`` after the program: global options, then the subcommand and its words."""
    config: list[str] = []
    n = 0
    while n < len(words):
        word = words[n]
        if word is None:
            return None  # a global option or subcommand the source does not show
        if word in VALUED:
            if word == "-c" and n + 1 < len(words) and words[n + 1] is not None:
                config.append(str(words[n + 1]))
            n += 2
            continue
        if word.startswith("-"):
            if word.startswith("-c") and len(word) > 2:
                config.append(word[2:])
            n += 1
            continue
        return GitCommand(tuple(config), word, tuple(words[n + 1 :]), open_ended)
    return None


def from_sequence(node: ast.List | ast.Tuple) -> Optional[GitCommand]:
    """An argv list or tuple whose program is git."""
    elements = node.elts
    if not elements or not _is_git(elements[0]):
        return None
    words: list[Optional[str]] = []
    open_ended = False
    for element in elements[1:]:
        if isinstance(element, ast.Starred):
            open_ended = True
            continue
        words.append(_word(element))
    return _parse(words, open_ended)


def _split(node: ast.AST) -> Optional[list[Optional[str]]]:
    """A command string (a literal, or an f-string whose formatted values become ``None``
    words) split as a shell would."""
    text = _word(node)
    if text is None:
        return None
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    return [None if PLACEHOLDER in word else word for word in words]


def from_string(node: ast.AST) -> Optional[GitCommand]:
    """A command string that starts with git (``"git init -q"``, ``f"git -C {d} init"``)."""
    text = _word(node)
    if text is None or "git" not in text.lower():  # most strings: no split needed
        return None
    words = _split(node)
    if not words or words[0] is None or GIT_PROGRAM.fullmatch(words[0]) is None:
        return None
    return _parse(words[1:], False)


def from_helper(call: ast.Call) -> Optional[GitCommand]:
    """A call of a helper named for git with the subcommand first: ``git("init")``,
    ``git("config", "user.name", "x")``, ``self.git("init -q")``."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else None
    if isinstance(call.func, ast.Name):
        name = call.func.id
    if name is None or GIT_NAME.search(name) is None:
        return None
    args = list(call.args)
    while args and not isinstance(args[0], (ast.Constant, ast.JoinedStr, ast.Starred)):
        args.pop(0)  # git(repo, "init"): the repository the helper runs in
    if not args:
        return None
    first = _split(args[0])
    if not first or first[0] is None:
        return None
    words: list[Optional[str]] = list(first)
    open_ended = any(isinstance(a, ast.Starred) for a in args)
    for arg in args[1:]:
        if not isinstance(arg, ast.Starred):
            words.append(_word(arg))
    return _parse(words, open_ended)


def commands(node: ast.AST) -> Iterator[tuple[ast.AST, GitCommand]]:
    """The git commands a node writes, each with the node that spells it: a list or tuple
    is an argv; a call hands command strings (its arguments, or a string it splits:
    ``"git init".split()``) or is a git helper's."""
    if isinstance(node, (ast.List, ast.Tuple)):
        found = from_sequence(node)
        if found is not None:
            yield node, found
        return
    if not isinstance(node, ast.Call):
        return
    helper = from_helper(node)
    if helper is not None:
        yield node, helper
        return
    callee = node.func.attr if isinstance(node.func, ast.Attribute) else None
    if isinstance(node.func, ast.Name):
        callee = node.func.id
    if callee in SHOWS:
        return
    strings = [*node.args, *(k.value for k in node.keywords)]
    if isinstance(node.func, ast.Attribute) and callee == "split":
        strings.append(node.func.value)
    for arg in strings:
        if isinstance(arg, (ast.Constant, ast.JoinedStr)):
            found = from_string(arg)
            if found is not None:
                yield arg, found
