"""Failure hints: what the seal took away that a failing test reached for, and the fix.

Plain data in, lines out. The plugin gathers what a sealed test reached for while it
ran; when the test fails, these lines go into its report (docs/hermetic.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PREFIX = "truegreen hint: "
SHOWN = 3  # names listed per hint before "and N more"


@dataclass(frozen=True)
class Reached:
    """What one sealed test reached for that its seal took away.

    ``missing``: files under the sealed home it opened to read and that do not exist,
    as ``~/``-relative paths; ``git``: verbs of the git commands it ran that need an
    identity, with none configured; ``cleared``: (name, reason) of each variable the seal
    removed for it and that it then read.
    """

    missing: tuple[str, ...] = ()
    git: tuple[str, ...] = ()
    cleared: tuple[tuple[str, str], ...] = ()


def home_relative(paths: Iterable[str], home: str, sep: str = "/") -> list[str]:
    """``/base/home/.config/app.toml`` -> ``~/.config/app.toml`` for each path under ``home``;
    sorted, others left out."""
    root = home.rstrip(sep) + sep
    return sorted(
        "~/" + path[len(root) :].replace(sep, "/") for path in paths if path.startswith(root)
    )


def _listed(names: Sequence[str]) -> str:
    shown = ", ".join(names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _declared_by(reason: str) -> str:
    """``declared (clear-env)`` -> ``clear-env``: the key that declared the variable."""
    if reason.startswith("declared (") and reason.endswith(")"):
        return reason[len("declared (") : -1]
    return reason


def hint_lines(reached: Reached) -> list[str]:
    """One line per kind of thing the test reached for, each ending with its fix."""
    lines = []
    if reached.missing:
        first = reached.missing[0][2:]
        lines.append(
            f"{PREFIX}it read {_listed(reached.missing)}, absent from its sealed home (every "
            f'test starts with an empty one); establish it in the test: hermetic.home_file("'
            f'{first}", ...)'
        )
    if reached.git:
        verbs = ", ".join(f"git {verb}" for verb in _unique(reached.git))
        lines.append(
            f"{PREFIX}it ran {verbs} with no git identity (the seal configures none); "
            "give it one in the test: hermetic.git_identity()"
        )
    if reached.cleared:
        names = _unique(name for name, _ in reached.cleared)
        reasons = ", ".join(_unique(_declared_by(reason) for _, reason in reached.cleared))
        lines.append(
            f"{PREFIX}it read {_listed(names)}, which the seal cleared ({reasons}); declare "
            "it with set-env or keep-env in [tool.truegreen], or set it in the test: "
            f'monkeypatch.setenv("{names[0]}", ...)'
        )
    return lines
