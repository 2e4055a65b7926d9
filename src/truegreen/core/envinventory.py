"""The environment inventory: each variable the source reads, and what the seal does with it.

A variable the seal neither clears, sets nor keeps on purpose reaches the tests as the
machine has it. The day a developer exports it, a test starts to depend on their machine;
until then nothing shows it. The verdicts come from the session's own
:class:`~truegreen.core.hermetic.Seal`, the one the plugin applies, never a second copy of
its rules: what the configuration declares is told apart from what the seal does anyway by
asking the same code with the declarations left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from truegreen.core import formats
from truegreen.core.config import Config
from truegreen.core.hermetic import Seal, seal_for

UNCOVERED = "uncovered"
CLEARED = "cleared"  # clear-env, clear-env-prefixes
SET = "set"  # set-env
KEPT = "kept"  # keep-env
SEALED = "sealed"  # what the seal clears or sets with no declaration
# In the report's order: what needs a decision first.
VERDICTS = (UNCOVERED, CLEARED, SET, KEPT, SEALED)
HEADINGS = {
    UNCOVERED: "not covered: the tests see these as the machine that runs them has them",
    CLEARED: "cleared (clear-env, clear-env-prefixes)",
    SET: "set (set-env)",
    KEPT: "kept on purpose (keep-env)",
    SEALED: "sealed by default (cleared or set by truegreen's seal)",
}
SHOWN_SITES = 3  # sites listed per variable in the text report
SHOWN_ENV = 60  # characters of an env= argument shown in the text report
# Variables a suite needs as the machine has them (clearing PATH breaks every program the
# tests start): advice for the snippet, which suggests keep-env for these instead of clear-env.
# Not a rule of the seal: the verdicts never read it.
PASS_THROUGH = frozenset(
    {
        "PATH", "PATHEXT", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTEST_CURRENT_TEST",
        "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "TMPDIR", "TEMP", "TMP",
        "SYSTEMROOT", "WINDIR", "COMSPEC", "USER", "USERNAME", "LOGNAME", "SHELL", "PWD",
    }
)  # fmt: skip

VARIABLE = "variable"
PREFIX = "prefix"
COMPUTED = "computed"
WHOLE = "whole"


@dataclass(frozen=True)
class Site:
    """One place in one file where the source reads the environment."""

    kind: str  # VARIABLE, PREFIX, COMPUTED or WHOLE
    name: str  # the variable, the prefix, the expression, or what the child gets
    path: str
    line: int
    how: str


@dataclass(frozen=True)
class Entry:
    """One variable (or prefix) read, its verdict, why, and every place it is read."""

    kind: str  # VARIABLE or PREFIX
    name: str
    verdict: str
    reason: str
    sites: tuple[Site, ...]


@dataclass(frozen=True)
class Inventory:
    entries: tuple[Entry, ...]
    computed: tuple[Site, ...]
    whole: tuple[Site, ...]
    files: int
    config: Config
    skipped: tuple[tuple[str, str], ...] = ()  # (path, why) of files that did not parse

    @property
    def uncovered(self) -> list[Entry]:
        return [e for e in self.entries if e.verdict == UNCOVERED]


class Verdicts:
    """The seal's answer for a name, with the configuration's declarations told apart."""

    def __init__(self, config: Config, *, devnull: str, windows: bool) -> None:
        self.config = config
        self.seal = seal_for(config, devnull=devnull, windows=windows)
        bare = config._replace(keep_env=(), clear_env=(), clear_env_prefixes=(), set_env=())
        self.default = seal_for(bare, devnull=devnull, windows=windows)
        self.declared = {name for name, _ in config.set_env}

    @staticmethod
    def _sets(seal: Seal) -> set[str]:
        return {name for name, _ in seal.fixed} | {name for name, _ in seal.templated}

    def of(self, kind: str, name: str) -> tuple[str, str]:
        """(verdict, reason) for a variable, or for every variable under a prefix."""
        if not self.config.hermetic:
            return UNCOVERED, "hermetic = false: nothing is sealed"
        if kind == VARIABLE and name in self._sets(self.seal):
            if name in self.declared:
                return SET, "set-env"
            return SEALED, "set by the seal"
        if kind == VARIABLE and name in self.config.keep_env:
            return KEPT, "keep-env"
        why = self.seal.reason(name)  # a prefix: only a cleared prefix covers all under it
        if why is None:
            return UNCOVERED, ""
        if self.default.reason(name) is None:
            return CLEARED, why
        return SEALED, why


def _place(site: Site) -> tuple[str, int]:
    return site.path, site.line


def build(
    sites: Iterable[Site],
    verdicts: Verdicts,
    files: int,
    skipped: Sequence[tuple[str, str]] = (),
) -> Inventory:
    """Group the sites by variable and judge each."""
    named: dict[tuple[str, str], list[Site]] = {}
    computed: list[Site] = []
    whole: list[Site] = []
    for site in sites:
        if site.kind == COMPUTED:
            computed.append(site)
        elif site.kind == WHOLE:
            whole.append(site)
        else:
            named.setdefault((site.kind, site.name), []).append(site)
    entries = []
    for (kind, name), found in named.items():
        verdict, reason = verdicts.of(kind, name)
        where = tuple(sorted(found, key=_place))
        entries.append(Entry(kind, name, verdict, reason, where))
    entries.sort(key=lambda e: (VERDICTS.index(e.verdict), e.name, e.kind))
    return Inventory(
        tuple(entries),
        tuple(sorted(computed, key=_place)),
        tuple(sorted(whole, key=_place)),
        files,
        verdicts.config,
        tuple(skipped),
    )


def _toml_list(names: Iterable[str]) -> str:
    return "[" + ", ".join(json.dumps(n) for n in names) + "]"


def snippet(inventory: Inventory) -> list[str]:
    """The ``[tool.truegreen]`` lines that cover every uncovered variable: cleared, or kept
    on purpose when the tests need the machine's (``PATH``); the table's existing names kept.
    To paste, or to turn into ``set-env`` entries."""
    config = inventory.config
    if not config.hermetic:
        return ["[tool.truegreen]", "hermetic = true"]
    prefixes = [e.name for e in inventory.uncovered if e.kind == PREFIX]
    variables = [e.name for e in inventory.uncovered
                 if e.kind == VARIABLE and not e.name.startswith(tuple(prefixes))]  # fmt: skip
    names = [n for n in variables if n not in PASS_THROUGH]
    kept = [n for n in variables if n in PASS_THROUGH]
    lines = ["[tool.truegreen]"]
    if names:
        lines.append(f"clear-env = {_toml_list([*config.clear_env, *names])}")
    if kept:
        lines.append(f"keep-env = {_toml_list([*config.keep_env, *kept])}")
    if prefixes:
        lines.append(f"clear-env-prefixes = {_toml_list([*config.clear_env_prefixes, *prefixes])}")
    if names:
        pairs = ", ".join(f'{n} = "..."' for n in names[:2])
        lines.append(f"# or, for a variable the code needs set: set-env = {{{pairs}}}")
    return lines


def _where(sites: Sequence[Site], limit: Optional[int] = SHOWN_SITES) -> str:
    shown = sites if limit is None else sites[:limit]
    text = ", ".join(f"{s.path}:{s.line}" for s in shown)
    if limit is not None and len(sites) > limit:
        text += f", and {len(sites) - limit} more"
    return text


def text(inventory: Inventory) -> str:
    """The report a person reads: uncovered first, then each covered group."""
    entries = inventory.entries
    count = len(entries)
    uncovered = inventory.uncovered
    out = [
        f"truegreen env-inventory: {count} variable{'s' * (count != 1)} read in "
        f"{inventory.files} file{'s' * (inventory.files != 1)}; "
        + (f"{len(uncovered)} not covered by the seal" if uncovered else "every one covered")
    ]
    for verdict in VERDICTS:
        group = [e for e in entries if e.verdict == verdict]
        if not group:
            continue
        out += ["", f"{HEADINGS[verdict]} ({len(group)}):"]
        for entry in group:
            name = f"{entry.name}* (prefix)" if entry.kind == PREFIX else entry.name
            why = f" [{entry.reason}]" if entry.reason and verdict != UNCOVERED else ""
            out.append(f"  {name}{why}: {_where(entry.sites)}")
            if entry.kind == PREFIX or any(s.how.startswith("settings") for s in entry.sites):
                out[-1] += f" ({entry.sites[0].how})"
    if uncovered:
        out += ["", "to cover them, in pyproject.toml (names already declared kept):"]
        out += ["  " + line for line in snippet(inventory)]
    if inventory.computed:
        out += ["", f"names computed at run time, not judged ({len(inventory.computed)}):"]
        out += [f"  {s.path}:{s.line}: {s.how}: {s.name}" for s in inventory.computed]
    for site in inventory.whole:
        env = site.name if len(site.name) <= SHOWN_ENV else site.name[: SHOWN_ENV - 3] + "..."
        out.append(f"the whole environment, passed to a child at {site.path}:{site.line} "
                   f"({site.how}, env={env})")  # fmt: skip
    return "\n".join(out)


def as_json(inventory: Inventory, *, version: str, config_file: Optional[str]) -> str:
    def site(s: Site) -> dict[str, Any]:
        return {"path": s.path, "line": s.line, "how": s.how}

    document = {
        formats.FORMAT_KEY: formats.ENV_INVENTORY,
        "version": version,
        "config_file": config_file,
        "files": inventory.files,
        "variables": [
            {
                "name": e.name,
                "kind": e.kind,
                "verdict": e.verdict,
                "reason": e.reason,
                "sites": [site(s) for s in e.sites],
            }
            for e in inventory.entries
        ],
        "uncovered": [e.name for e in inventory.uncovered],
        "suggested": "\n".join(snippet(inventory)) if inventory.uncovered else None,
        "computed": [{**site(s), "expression": s.name} for s in inventory.computed],
        "whole_environment": [{**site(s), "env": s.name} for s in inventory.whole],
        "skipped": [{"path": p, "why": w} for p, w in inventory.skipped],
    }
    return json.dumps(document, indent=2)
