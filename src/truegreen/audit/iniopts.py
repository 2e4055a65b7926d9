"""The pytest ini options as rules need them: lists of entries, addopts as arguments, and lines."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from truegreen.audit.base import Project

_SECTION = re.compile(r"^\s*\[(?:tool\.pytest\.ini_options|tool\.pytest|pytest|tool:pytest)\]")


def entries(value: Any) -> list[str]:
    """An ini option's entries: a TOML list as it is, an ini string one entry per line."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(item).strip() for item in value if str(item).strip()]
    return [line.strip() for line in str(value).splitlines() if line.strip()]


def addopts(project: Project) -> list[str]:
    """``addopts`` split into arguments as pytest splits them (shell words, per entry)."""
    words: list[str] = []
    for entry in entries(project.pytest_options.get("addopts")):
        try:
            words.extend(shlex.split(entry))
        except ValueError:
            words.extend(entry.split())
    return words


def option_values(words: Sequence[str], *names: str) -> list[str]:
    """Every value given to one of ``names`` (``--dist x``, ``--dist=x``, ``-dx``)."""
    found: list[str] = []
    for index, word in enumerate(words):
        for name in names:
            if word == name and index + 1 < len(words):
                found.append(words[index + 1])
            elif name.startswith("--") and word.startswith(name + "="):
                found.append(word[len(name) + 1 :])
            elif not name.startswith("--") and word.startswith(name) and len(word) > len(name):
                found.append(word[len(name) :])
    return found


def config_path(project: Project) -> str:
    """The pytest configuration file relative to the root, POSIX style; pyproject.toml when
    the project has none (where a fix would go)."""
    path: Optional[Path] = project.pytest_config_file
    if path is None:
        return "pyproject.toml"
    try:
        return path.relative_to(project.root).as_posix()
    except ValueError:
        return path.as_posix()


def config_line(project: Project, key: str, needle: Optional[str] = None) -> int:
    """The 1-based line of ``key`` in the pytest configuration file (and, with ``needle``,
    the first line from there on that contains it); 1 when it cannot be found."""
    path = project.pytest_config_file
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path else []
    except OSError:
        return 1
    section = next((n for n, line in enumerate(lines) if _SECTION.match(line)), 0)
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*[=:]")
    start = next((n for n in range(section, len(lines)) if pattern.match(lines[n])), None)
    if start is None:
        return 1
    if needle is not None:
        for offset, line in enumerate(lines[start:]):
            if needle in line:
                return start + offset + 1
    return start + 1
