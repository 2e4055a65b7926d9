"""The process tree, read from Linux ``/proc`` (elsewhere it reads as empty)."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up (network imports this)
if TYPE_CHECKING:
    from typing import Optional


def table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, state letter: ``Z`` for a zombie) of every process."""
    found: dict[int, tuple[int, str]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            found[int(entry)] = (int(fields[1]), fields[0])
        except (OSError, ValueError, IndexError):
            continue
    return found


def descendants(root: int, processes: Optional[dict[int, tuple[int, str]]] = None) -> list[int]:
    """Every process below ``root`` (zombies too), parents before their children; from
    ``processes`` (a :func:`table`) when given."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in (table() if processes is None else processes).items():
        children.setdefault(ppid, []).append(pid)
    found: list[int] = []
    seen = {root}
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                found.append(child)
                todo.append(child)
    return found
