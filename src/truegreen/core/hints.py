"""Failure hints: what the seal took away that a failing test reached for, and the fix.

Plain data in, lines out. The plugin gathers what a sealed test reached for while it
ran; when the test fails, these lines go into its report (docs/hermetic.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

PREFIX = "truegreen hint: "
SHOWN = 3  # names listed per hint before "and N more"


class Reached(NamedTuple):
    """What one sealed test reached for that its seal took away.

    ``missing``: files under the sealed home it opened to read, that do not exist, and that
    its failure names (:func:`named_in`), as ``~/``-relative paths; ``git``: verbs of the git
    commands it ran that need an identity, with none configured; ``cleared``: (name, reason)
    of each variable the seal removed for it and that it then read; ``fixed``: (name, value)
    of each zone, locale or terminal variable the seal set and that it read with that value;
    ``unset``: each locale or terminal variable this machine set, the seal cleared, and it
    asked for in vain.
    """

    missing: tuple[str, ...] = ()
    git: tuple[str, ...] = ()
    cleared: tuple[tuple[str, str], ...] = ()
    fixed: tuple[tuple[str, str], ...] = ()
    unset: tuple[str, ...] = ()


def home_relative(paths: Iterable[str], home: str, sep: str = "/") -> list[str]:
    """``/base/home/.config/app.toml`` -> ``~/.config/app.toml`` for each path under ``home``;
    sorted, others left out."""
    root = home.rstrip(sep) + sep
    return sorted(
        "~/" + path[len(root) :].replace(sep, "/") for path in paths if path.startswith(root)
    )


def named_in(relative: Iterable[str], text: str, sep: str = "/") -> list[str]:
    """The ``~/``-relative paths among ``relative`` that ``text`` (a failure's) names by their
    path below the home, with either separator: ``~/.toolrc`` is named by ``.toolrc``, by
    ``~/.toolrc`` and by its full path. A read that failed and propagated names its file in
    the ``FileNotFoundError`` (full path); one a probe swallowed leaves no trace in the failure.
    """
    named = []
    for path in relative:
        below = path[2:]
        if below in text or (sep != "/" and below.replace("/", sep) in text):
            named.append(path)
    return named


# What a test reads in each variable the seal sets or clears for the zone, locale and terminal.
_TOPICS = (
    (("TZ",), "the time zone"),
    (("LANG", "LANGUAGE", "LC_"), "the locale"),
    (("TERM",), "the terminal type"),
    (("COLUMNS", "LINES"), "the terminal size"),
)


def topic(name: str) -> str:
    """``TZ`` -> ``the time zone``: what a test that reads ``name`` reads."""
    for names, what in _TOPICS:
        if name in names or (name.startswith("LC_") and "LC_" in names):
            return what
    return "the colour settings"  # NO_COLOR, FORCE_COLOR, CLICOLOR, PY_COLORS, ...


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


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
    if reached.fixed:
        names = [name for name, _ in reached.fixed]
        values = ", ".join(f"{name}={value}" for name, value in reached.fixed)
        lines.append(
            f"{PREFIX}the seal set {values}; this test read "
            f"{_and(_unique(topic(name) for name in names))}; if it expects "
            f"{'another value' if len(names) == 1 else 'other values'}, set "
            f"{'it' if len(names) == 1 else 'them'} in the test: {_setenv(names)}"
        )
    if reached.unset:
        names = list(reached.unset)
        lines.append(
            f"{PREFIX}the seal cleared {_listed(names)} (set on this machine); this test read "
            f"{_and(_unique(topic(name) for name in names))}; if it expects "
            f"{'a value' if len(names) == 1 else 'values'}, set "
            f"{'it' if len(names) == 1 else 'them'} in the test: {_setenv(names)}"
        )
    return lines


def _setenv(names: Sequence[str]) -> str:
    if "TZ" in names:  # the running process's zone changes only with tzset()
        return 'monkeypatch.setenv("TZ", ...) then time.tzset()'
    return f'monkeypatch.setenv("{names[0]}", ...)'
