"""Shard manifests: what one shard collected, selected and did, and the proof they add up.

A manifest is ``shard-K-of-N.json``; :func:`verify` takes every manifest of a run and
checks, one line each, that the shards are all there and complete, collected the same
tests, selected disjoint sets that cover what was eligible, never split a unit, all went
green, and ran every ``must-run`` test somewhere.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from truegreen.core.errors import ConfigError

FORMAT = 1
_NAME = re.compile(r"shard-(\d+)-of-(\d+)\.json\Z")


def manifest_name(k: int, n: int) -> str:
    return f"shard-{k}-of-{n}.json"


@dataclass(frozen=True)
class Check:
    """One verification: its name, whether it held, and what a reader needs to act."""

    name: str
    ok: bool
    detail: str = ""

    def line(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'} {self.name}" + (
            f": {self.detail}" if self.detail else ""
        )


_REQUIRED = {"format": int, "k": int, "n": int, "complete": bool}
# A shard that crashed may have written only the part above; the rest defaults to nothing.
_OPTIONAL: dict[str, tuple[type, Any]] = {
    "mode": (str, ""),
    "collected": (list, []),
    "collected_digest": (str, ""),
    "eligible": (list, []),
    "selected": (list, []),
    "units": (dict, {}),
    "outcomes": (dict, {}),
    "must_run": (list, []),
}


def load(path: Path) -> dict[str, Any]:
    """Read one manifest; anything malformed is a one-line ConfigError naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: expected a readable manifest, found {exc.strerror}") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: expected a JSON shard manifest, found {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object, found {type(data).__name__}")
    for key, kind in _REQUIRED.items():
        if not isinstance(data.get(key), kind):
            found = type(data[key]).__name__ if key in data else "nothing"
            raise ConfigError(f"{path}: key {key!r}: expected {kind.__name__}, found {found}")
    if data["format"] != FORMAT:
        raise ConfigError(f"{path}: key 'format': expected {FORMAT}, found {data['format']}")
    for key, (kind, default) in _OPTIONAL.items():
        if key not in data:
            data[key] = default
        elif not isinstance(data[key], kind):
            raise ConfigError(
                f"{path}: key {key!r}: expected {kind.__name__}, found {type(data[key]).__name__}"
            )
    return data


def load_dir(directory: Path) -> dict[int, dict[str, Any]]:
    """Every ``shard-K-of-N.json`` in ``directory``, by K; the file name must agree with K/N."""
    if not directory.is_dir():
        raise ConfigError(f"{directory}: expected a directory of shard manifests, found none")
    found: dict[int, dict[str, Any]] = {}
    for path in sorted(directory.iterdir()):
        match = _NAME.match(path.name)
        if not match:
            continue
        data = load(path)
        if (data["k"], data["n"]) != (int(match.group(1)), int(match.group(2))):
            raise ConfigError(
                f"{path}: expected k={match.group(1)} n={match.group(2)} as the name says, "
                f"found k={data['k']} n={data['n']}"
            )
        if data["k"] in found:
            raise ConfigError(f"{path}: shard {data['k']} appears twice, with different N")
        found[data["k"]] = data
    return found


def _diff(a: Sequence[str], b: Sequence[str], a_name: str, b_name: str) -> str:
    lines = difflib.unified_diff(list(a), list(b), a_name, b_name, lineterm="", n=0)
    return "\n".join(list(lines)[:40])


def _matches(nodeid: str, pattern: str) -> bool:
    if nodeid == pattern or nodeid.startswith((pattern + "::", pattern + "[")):
        return True
    return fnmatchcase(nodeid, pattern)


def verify(shards: Mapping[int, Mapping[str, Any]], count: int | None = None) -> list[Check]:
    """Every check, in order; the run is proven when all hold."""
    checks: list[Check] = []
    ns = {m["n"] for m in shards.values()}
    n = count if count is not None else (max(ns) if ns else 0)
    missing = [k for k in range(1, n + 1) if k not in shards]
    stray = sorted(k for k, m in shards.items() if m["n"] != n or k > n)
    checks.append(
        Check(
            f"all {n} shards present",
            bool(shards) and not missing and not stray,
            "no manifest found" if not shards else
            "; ".join(filter(None, [
                f"missing shard {', '.join(map(str, missing))}" if missing else "",
                f"shard {', '.join(map(str, stray))} is not one of {n}" if stray else "",
            ])),
        )
    )  # fmt: skip
    if not shards:
        return checks
    incomplete = sorted(k for k, m in shards.items() if not m["complete"])
    checks.append(
        Check(
            "every shard ran to the end",
            not incomplete,
            f"shard {', '.join(map(str, incomplete))} did not finish (crashed or killed)"
            if incomplete
            else "",
        )
    )
    ordered = sorted(shards.items())
    first_k, first = ordered[0]
    differ = [k for k, m in ordered if m["collected_digest"] != first["collected_digest"]]
    detail = ""
    if differ:
        k = differ[0]
        detail = (
            f"shard {k} collected a different set from shard {first_k} (collection that "
            "depends on order, randomness or the environment):\n"
            + _diff(first["collected"], shards[k]["collected"], f"shard {first_k}", f"shard {k}")
        )
    checks.append(Check("the same tests collected everywhere", not differ, detail))
    eligible_differ = [k for k, m in ordered if sorted(m["eligible"]) != sorted(first["eligible"])]
    checks.append(
        Check(
            "the same selection everywhere",
            not eligible_differ,
            f"shard {eligible_differ[0]} selected with other -k/-m/arguments than shard {first_k}"
            if eligible_differ
            else "",
        )
    )
    owner: dict[str, int] = {}
    twice: list[str] = []
    for k, m in ordered:
        for nodeid in m["selected"]:
            if nodeid in owner:
                twice.append(f"{nodeid} (shards {owner[nodeid]} and {k})")
            owner[nodeid] = k
    checks.append(
        Check(
            "no test in two shards",
            not twice,
            f"{len(twice)} tests ran twice: {', '.join(twice[:5])}" if twice else "",
        )
    )
    eligible = set(first["eligible"])
    never = sorted(eligible - set(owner))
    extra = sorted(set(owner) - eligible)
    checks.append(
        Check(
            f"every selected test in a shard ({len(eligible)} tests)",
            not never and not extra,
            "; ".join(filter(None, [
                f"{len(never)} never ran: {', '.join(never[:5])}" if never else "",
                f"{len(extra)} ran but were not eligible: {', '.join(extra[:5])}" if extra else "",
            ])),
        )
    )  # fmt: skip
    unit_shards: dict[str, set[int]] = {}
    for k, m in ordered:
        for nodeid in m["selected"]:
            unit = m["units"].get(nodeid, nodeid)
            unit_shards.setdefault(unit, set()).add(k)
    split = sorted(u for u, ks in unit_shards.items() if len(ks) > 1)
    checks.append(
        Check(
            "no unit split across shards",
            not split,
            f"{len(split)} split: {', '.join(split[:5])}" if split else "",
        )
    )
    red = [
        f"shard {k} (exit status {m.get('exitstatus')})"
        for k, m in ordered
        if m.get("exitstatus") != 0
    ]
    checks.append(Check("every shard green", not red, ", ".join(red)))
    patterns = sorted({p for m in shards.values() for p in m["must_run"]})
    passed = {n for m in shards.values() for n, o in m["outcomes"].items() if o == "passed"}
    unmet = []
    for pattern in patterns:
        hits = [n for n in first["collected"] if _matches(n, pattern)]
        if not hits:
            unmet.append(f"{pattern} (matches no collected test)")
        unmet += [f"{n} (did not pass in any shard)" for n in hits if n not in passed]
    checks.append(
        Check(
            f"every must-run test passed somewhere ({len(patterns)} patterns)",
            not unmet,
            ", ".join(unmet[:5]),
        )
    )
    return checks
