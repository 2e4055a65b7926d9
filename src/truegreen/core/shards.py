"""Sharding as data: units, their stable digest, duration balancing, and proof the shards add up.

A unit is a test function with all its parametrized variants, or a whole ``xdist_group``;
a unit is never split. Digest mode puts a unit in shard ``SHA-256(unit) mod N``: adding or
removing tests never moves another test. Duration mode balances recorded durations and is
built to move few units when the suite changes a little (see :func:`assign_by_duration`).
"""

from __future__ import annotations

import hashlib
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Optional

from truegreen.core.errors import ConfigError

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*\Z")


@dataclass(frozen=True)
class ShardSpec:
    """Shard ``k`` of ``n``, 1-based."""

    k: int
    n: int

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"


# The most shards a suite splits into: far above any CI matrix (GitHub's holds 256 jobs), and
# low enough that balancing by duration, which ranks every shard for every unit, stays quick.
MAX_SHARDS = 1000


def parse_shard(text: str, where: str = "--truegreen-shard") -> ShardSpec:
    """``"2/4"`` -> ShardSpec(2, 4); anything else is a ConfigError naming ``where``."""
    found = _SHARD.match(text)
    if found:
        k, n = int(found.group(1)), int(found.group(2))
        if 1 <= k <= n <= MAX_SHARDS:
            return ShardSpec(k, n)
    raise ConfigError(f"{where}: expected K/N with 1 <= K <= N <= {MAX_SHARDS}, found {text!r}")


def unit_of(nodeid: str, group: Optional[str] = None) -> str:
    """The unit a test belongs to: its ``xdist_group``, else its function without parameters."""
    if group:
        return f"xdist_group:{group}"
    path, sep, rest = nodeid.partition("::")  # parameter ids may contain "::" themselves
    return path + sep + rest.split("[", 1)[0]


def digest(unit: str) -> int:
    return int.from_bytes(hashlib.sha256(unit.encode("utf-8")).digest()[:8], "big")


def assign_by_digest(units: Iterable[str], n: int) -> dict[str, int]:
    """Unit -> 0-based shard, from the unit's own digest alone."""
    return {unit: digest(unit) % n for unit in units}


def _preference(unit: str, n: int) -> list[int]:
    """The shards in this unit's own fixed order of preference (rendezvous hashing)."""
    return sorted(range(n), key=lambda shard: digest(f"{shard}:{unit}"))


@dataclass(frozen=True)
class Plan:
    """An assignment of units to shards and what it predicts."""

    shard_of: Mapping[str, int]  # unit -> 0-based shard
    loads: tuple[float, ...]  # predicted seconds per shard
    floor: float  # no assignment can finish faster: max(mean load, largest unit)
    largest: tuple[str, float]  # the largest unit and its seconds

    @property
    def imbalance(self) -> float:
        """Slowest shard over the floor (1.0 is perfect)."""
        return max(self.loads) / self.floor if self.floor else 1.0


def unit_durations(
    tests: Mapping[str, str], durations: Mapping[str, float]
) -> tuple[dict[str, float], float]:
    """Seconds per unit (test -> unit in ``tests``), and the median used for tests without a
    recorded duration."""
    known = [durations[t] for t in tests if t in durations]
    median = statistics.median(known) if known else 1.0
    seconds: dict[str, float] = {}
    for test, unit in tests.items():
        seconds[unit] = seconds.get(unit, 0.0) + durations.get(test, median)
    return seconds, median


def plan(shard_of: Mapping[str, int], seconds: Mapping[str, float], n: int) -> Plan:
    loads = [0.0] * n
    for unit, shard in shard_of.items():
        loads[shard] += seconds.get(unit, 0.0)
    largest = max(seconds.items(), key=lambda item: (item[1], item[0]), default=("", 0.0))
    floor = max(sum(loads) / n, largest[1]) if n else 0.0
    return Plan(dict(shard_of), tuple(loads), floor, largest)


def _lightest(loads: Sequence[float]) -> int:
    return min(range(len(loads)), key=lambda s: (loads[s], s))


def _pack_big(big: Sequence[str], seconds: Mapping[str, float], n: int) -> dict[str, int]:
    """Largest first into the lightest shard, then moves and swaps out of the heaviest shard
    while they lower it. Depends on the large units alone, so adding small tests never moves
    a large unit."""
    loads = [0.0] * n
    shard_of: dict[str, int] = {}
    for unit in big:
        shard_of[unit] = shard = _lightest(loads)
        loads[shard] += seconds[unit]
    improved = True
    while improved:
        improved = False
        heavy = max(range(n), key=lambda s: (loads[s], -s))
        mine = sorted((u for u in big if shard_of[u] == heavy), key=lambda u: (-seconds[u], u))
        for unit in mine:
            for other in sorted(range(n), key=lambda s: (loads[s], s)):
                if other == heavy:
                    continue
                theirs = sorted(
                    (u for u in big if shard_of[u] == other), key=lambda u: (seconds[u], u)
                )
                for swap in [None, *theirs]:
                    delta = seconds[unit] - (seconds[swap] if swap else 0.0)
                    if delta > 0 and loads[other] + delta < loads[heavy]:
                        loads[heavy] -= delta
                        loads[other] += delta
                        shard_of[unit] = other
                        if swap:
                            shard_of[swap] = heavy
                        improved = True
                        break
                if improved:
                    break
            if improved:
                break
    return shard_of


def assign_by_duration(seconds: Mapping[str, float], n: int, slack: float = 0.01) -> Plan:
    """Balance units by duration, moving few of them when the suite changes a little.

    Largest-first-into-the-lightest (pytest-split's ``least_duration``) balances well but
    reshuffles most of a suite when one test is added. Here:

    1. Large units (over a tenth of the floor) are packed among themselves, so small
       changes to the suite do not move them.
    2. Every other unit starts in its digest shard, exactly as in digest mode.
    3. A shard over ``(1 + slack)`` times the floor evicts units in a fixed per-unit order
       until it fits; each evicted unit, largest first, takes the first shard of its own
       fixed preference order (rendezvous hashing) with room, or the lightest.

    Adding a test changes a few eviction boundaries, not the whole order.
    """
    total = sum(seconds.values())
    floor = max(total / n, max(seconds.values(), default=0.0)) if n else 0.0
    capacity = floor * (1 + slack)
    big = sorted((u for u, s in seconds.items() if s > floor / 10), key=lambda u: (-seconds[u], u))
    shard_of = _pack_big(big, seconds, n)
    loads = [0.0] * n
    for unit, shard in shard_of.items():
        loads[shard] += seconds[unit]
    members: list[list[str]] = [[] for _ in range(n)]
    for unit in seconds:
        if unit not in shard_of:
            shard_of[unit] = home = digest(unit) % n
            loads[home] += seconds[unit]
            members[home].append(unit)
    evicted = []
    for shard in range(n):
        for unit in sorted(members[shard], key=lambda u: digest("evict:" + u)):
            if loads[shard] <= capacity:
                break
            loads[shard] -= seconds[unit]
            evicted.append(unit)
    for unit in sorted(evicted, key=lambda u: (-seconds[u], digest(u))):
        home, cost = shard_of[unit], seconds[unit]
        room = (s for s in _preference(unit, n) if s != home and loads[s] + cost <= capacity)
        shard_of[unit] = choice = next(room, _lightest(loads))
        loads[choice] += cost
    _polish(shard_of, loads, seconds, n)
    return plan(shard_of, seconds, n)


def _polish(
    shard_of: dict[str, int], loads: list[float], seconds: Mapping[str, float], n: int
) -> None:
    """Move single units from the heaviest shard to the lightest while that lowers the
    heaviest: the last percent of balance, for a handful of moves."""
    members: dict[int, list[str]] = {s: [] for s in range(n)}
    for unit, shard in shard_of.items():
        members[shard].append(unit)
    for _ in range(8 * n):
        heavy = max(range(n), key=lambda s: (loads[s], -s))
        light = _lightest(loads)
        gap = loads[heavy] - loads[light]
        fits = [u for u in members[heavy] if 0 < seconds[u] < gap]
        if not fits:
            return
        unit = min(fits, key=lambda u: (abs(seconds[u] - gap / 2), digest(u)))
        members[heavy].remove(unit)
        members[light].append(unit)
        shard_of[unit] = light
        loads[heavy] -= seconds[unit]
        loads[light] += seconds[unit]


def moved(before: Mapping[str, int], after: Mapping[str, int]) -> int:
    """How many units present in both assignments changed shard."""
    return sum(1 for unit, shard in before.items() if unit in after and after[unit] != shard)


def collection_digest(nodeids: Sequence[str]) -> str:
    """SHA-256 of the collected node ids, in order, one per line."""
    return hashlib.sha256("\n".join(nodeids).encode("utf-8")).hexdigest()
