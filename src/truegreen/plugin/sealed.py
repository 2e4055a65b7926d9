"""What a sealed test is given: the ``hermetic`` fixture's value, and what the seal notes of it.

Its own module, apart from the plugin that seals, so that the per-test fan-out and the
features that watch a sealed test (the failure hints) can name it without importing that
plugin.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

from truegreen.core.record import Record


class Hermetic(Record):
    """What the ``hermetic`` fixture hands a test: its sealed home, and helpers to establish state.

    A test that needs an identity, a dotfile or a token establishes it here,
    inside its own home, instead of borrowing the developer's.
    """

    # A Record, not a dataclass: see core/record.py. It changes as the test runs: unhashable.
    def __init__(
        self,
        home: Path,
        cleared: tuple[str, ...] = (),
        _before: Optional[dict[Any, Any]] = None,
        _after: Optional[dict[Any, Any]] = None,
        _undo: Optional[list[tuple[str, Any, Any]]] = None,
        _taken: Optional[Path] = None,
    ) -> None:
        self.home = home
        self.cleared = cleared
        self._before: dict[Any, Any] = {} if _before is None else _before
        self._after: dict[Any, Any] = {} if _after is None else _after
        self._undo: list[tuple[str, Any, Any]] = [] if _undo is None else _undo
        # The fresh directory the seal took for this test (``home`` unless a wider fixture set
        # HOME itself): handed on to the next test if this one left it untouched.
        self._taken = _taken

    def _fields(self) -> tuple[object, ...]:
        return (self.home, self.cleared, self._before, self._after, self._undo, self._taken)

    def __repr__(self) -> str:
        return f"Hermetic(home={self.home!r}, cleared={self.cleared!r})"

    def home_file(self, relative: str, text: str = "") -> Path:
        """Create ``~/relative`` in the sealed home with ``text`` and return its path."""
        path = self.home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def git_identity(
        self,
        name: str = "Test Author",
        email: str = "test-author@example.invalid",
        *,
        default_branch: Optional[str] = None,
    ) -> Path:
        """Give git an identity for this test only: ``~/.gitconfig`` in the sealed home.

        The file holds ``[user] name, email`` and nothing else, so git's other defaults stay
        the machine-independent ones the seal gave it; ``default_branch`` also writes
        ``[init] defaultBranch``, for a test that needs a named first branch. The seal points
        ``GIT_CONFIG_GLOBAL`` at the null device; this points it at the new file instead, for
        the rest of the test.
        """
        text = f"[user]\n\tname = {name}\n\temail = {email}\n"
        if default_branch is not None:
            text += f"[init]\n\tdefaultBranch = {default_branch}\n"
        path = self.home_file(".gitconfig", text)
        os.environ["GIT_CONFIG_GLOBAL"] = str(path)
        return path
