"""The process tree, read from Linux ``/proc`` (elsewhere it reads as empty)."""

from __future__ import annotations

import os


def descendants(root: int) -> list[int]:
    """Every live process below ``root``, parents before their children."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
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
