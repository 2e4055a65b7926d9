"""The ``[tool.truegreen.audit]`` table checked into plain values, and rule selectors matched."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional

from truegreen.audit.base import Rule
from truegreen.core.errors import ConfigError

TABLE = "[tool.truegreen.audit]"
KEYS = ("select", "extend-select", "ignore", "per-file-ignores", "exclude", "seams")
SELECTOR = "a list of rule codes, code prefixes such as 'TG4', rule names, or 'ALL'"


def defaults() -> dict[str, Any]:
    """The settings of a project without the table: every key present, so rules can index."""
    return {"select": None, "ignore": (), "per-file-ignores": {}, "exclude": (), "seams": {}}


def describe(found: object) -> str:
    kinds = {bool: "a boolean", str: "a string", int: "an integer", float: "a float"}
    kind = kinds.get(type(found)) or ("a table" if isinstance(found, dict) else "a list")
    return f"{found!r} ({kind})"


def _strings(where: str, raw: object, expected: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(item, str) and item for item in raw):
        raise ConfigError(f"{where}: expected {expected}, found {describe(raw)}")
    return tuple(raw)


def known_selector(selector: str, rules: Sequence[type[Rule]]) -> bool:
    """Whether ``selector`` names ``ALL``, a rule's code or name, or a prefix of a code."""
    upper = selector.upper()
    if upper == "ALL":
        return True
    return any(r.name == selector or (upper.startswith("TG") and r.code.startswith(upper))
               for r in rules)  # fmt: skip


def check_selectors(where: str, raw: object, rules: Sequence[type[Rule]]) -> tuple[str, ...]:
    """A list of selectors, each naming at least one known rule."""
    selectors = _strings(where, raw, SELECTOR)
    for selector in selectors:
        if not known_selector(selector, rules):
            names = [r.code for r in rules] + [r.name for r in rules]
            import difflib  # for a message only

            close = difflib.get_close_matches(selector, names, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{where}: expected {SELECTOR}, found {selector!r}{hint}")
    return selectors


def _table(where: str, raw: object, expected: str) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected {expected}, found {describe(raw)}")
    return raw


def check(table: Mapping[str, Any], source: str, rules: Sequence[type[Rule]]) -> dict[str, Any]:
    """Validate the table read from ``source``; one ConfigError line for the first problem."""
    settings = defaults()
    origin = f"{source}: {TABLE}"
    for key, raw in table.items():
        where = f"{origin} {key}"
        if key not in KEYS:
            import difflib  # for a message only

            close = difflib.get_close_matches(key, KEYS, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{origin}: expected a known key, found {key!r}{hint}")
        if key in ("select", "extend-select", "ignore"):
            settings[key] = check_selectors(where, raw, rules)
        elif key == "exclude":
            settings[key] = _strings(where, raw, "a list of path globs")
        elif key == "per-file-ignores":
            expected = "a table of path glob -> " + SELECTOR
            settings[key] = {
                glob: check_selectors(f"{where} {glob!r}", codes, rules)
                for glob, codes in _table(where, raw, expected).items()
            }
        else:
            expected = "a table of call family -> a list of path globs"
            settings[key] = {
                family: _strings(f"{where} {family!r}", globs, "a list of path globs")
                for family, globs in _table(where, raw, expected).items()
            }
    return settings


def names(selector: str, rule: type[Rule]) -> bool:
    """Whether a selector covers ``rule`` at all: its code, name, a prefix of it, or ALL."""
    upper = selector.upper()
    return (
        upper in ("ALL", rule.code)
        or selector == rule.name
        or (upper.startswith("TG") and rule.code.startswith(upper))
    )


def matches(selector: str, rule: type[Rule]) -> bool:
    """Whether one selector picks ``rule``; opt-in rules answer only to their code or name."""
    if rule.default:
        return names(selector, rule)
    return selector.upper() == rule.code or selector == rule.name


def choose(
    rules: Iterable[type[Rule]],
    select: Optional[Sequence[str]],
    ignore: Sequence[str],
    extend: Sequence[str] = (),
) -> list[type[Rule]]:
    """The rules a run uses: the selected (default rules when nothing is selected) and the
    ``extend`` ones (``extend-select``, added to whatever is selected), less the ignored. A
    syntax error is reported whatever is selected, unless ignored."""
    chosen = []
    for rule in rules:
        if select is None:
            picked = rule.default
        else:
            picked = rule.code == "TG000" or any(matches(s, rule) for s in select)
        picked = picked or any(matches(s, rule) for s in extend)
        if picked and not any(names(s, rule) for s in ignore):
            chosen.append(rule)
    return chosen


def path_matches(relpath: str, glob: str) -> bool:
    """A POSIX path relative to the root against a glob; a glob without ``/`` also matches
    the file's or any directory's own name, and a directory matches everything under it."""
    glob = glob.rstrip("/")
    if fnmatch.fnmatchcase(relpath, glob) or fnmatch.fnmatchcase(relpath, glob + "/*"):
        return True
    if "/" not in glob:
        return any(fnmatch.fnmatchcase(part, glob) for part in relpath.split("/"))
    return False
