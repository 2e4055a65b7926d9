"""Evidence bound to a commit, across lanes: what ``truegreen shards verify`` adds to the
shard checks of core/manifests.py.

A green manifest proves something only about the commit it tested and only while no newer
attempt of its job replaced it: a manifest from another commit is refused by name, and one
a re-run job superseded (the stale green of its first attempt) is listed and not counted.
With ``--lanes`` the manifests of several lanes (one per operating system and Python, and
lanes started on demand) are checked lane by lane, then merged to prove that every test
gated by the ``platforms`` marker, and every ``must-run`` gate, passed on at least one lane
whose platform it matches: a skip-on-this-OS defence that no lane ever runs is a defence
nobody verified.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from truegreen.core.errors import DataError
from truegreen.core.manifests import CHECKS, Check, Manifest, load_named, verify
from truegreen.core.manifests import must_run_passed as manifest_must_run
from truegreen.core.mustrun import matches
from truegreen.core.platforms import Host, Marker
from truegreen.core.words import counted

NO_COMMIT = (
    "none (written outside a git checkout and outside GitHub Actions, or by a truegreen "
    "that did not record commits)"
)


@dataclass(frozen=True)
class Head:
    """The commit the evidence must be from, and where it was read (``--commit``,
    ``GITHUB_SHA``, ``git HEAD``); ``commit`` None when nothing names it."""

    commit: Optional[str]
    source: str = ""


def same_commit(found: Optional[str], expected: str) -> bool:
    """Whether a manifest's commit is ``expected``, which may be abbreviated."""
    return found is not None and found.lower().startswith(expected.lower())


def _itemised(summary: str, items: Sequence[str]) -> str:
    """A check's detail: a summary, then one indented line per item."""
    return summary + "".join(f"\n  {item}" for item in items)


def from_head(manifests: Sequence[Manifest], head: Head) -> Optional[Check]:
    """Every manifest names the head commit; without a head, the manifests name one commit.
    None when there is nothing to compare: no head, and no manifest names a commit."""
    if head.commit is None:
        named = {m.commit for m in manifests}
        if named == {None}:
            return None
        name = (
            "every manifest from one commit (no --commit, GITHUB_SHA or git checkout here "
            "names the head)"
        )
        if len(named) == 1:
            return Check(name, True, str(next(iter(named))))
        items = [f"{m.file}: commit: {m.commit or NO_COMMIT}" for m in manifests]
        return Check(name, False, _itemised(f"{counted(len(named), 'commit')}", items))
    wrong = [
        f"{m.file}: commit: expected {head.commit} ({head.source}), found {m.commit or NO_COMMIT}"
        for m in manifests
        if not same_commit(m.commit, head.commit)
    ]
    name = f"every manifest from commit {head.commit[:12]} ({head.source})"
    summary = (
        f"{counted(len(wrong), 'manifest')} from another commit (to verify another commit's "
        "manifests: --commit SHA)"
    )
    return Check(name, not wrong, _itemised(summary, wrong) if wrong else "")


def one_lane(manifests: Iterable[Manifest]) -> Optional[Check]:
    """One directory, one lane: shards of several lanes merged into one directory overwrite
    each other's files, and what is left is no lane's whole run. None when no manifest names
    its lane (written by a truegreen that did not record lanes)."""
    shards: dict[str, list[int]] = {}
    for m in sorted(manifests, key=lambda m: m.k):
        shards.setdefault(m.lane or "none", []).append(m.k)
    if set(shards) == {"none"}:
        return None
    if len(shards) == 1:
        return Check(f"every shard from one lane ({next(iter(shards))})", True)
    listed = "; ".join(
        f"{lane}: shard {', '.join(map(str, ks))}" for lane, ks in sorted(shards.items())
    )
    return Check(
        "every shard from one lane",
        False,
        f"{counted(len(shards), 'lane')} ({listed}): verify each lane's directory alone, "
        "or all of them with --lanes",
    )


def load_paths(paths: Sequence[Path]) -> list[Manifest]:
    """Every ``shard-K-of-N.json`` named, or found anywhere under a directory named (a CI
    download keeps each artifact in its own directory)."""
    found: list[Manifest] = []
    for path in paths:
        if path.is_dir():
            files = sorted(p for p in path.rglob("shard-*-of-*.json") if p.is_file())
        elif path.is_file():
            files = [path]
        else:
            raise DataError(f"{path}: expected a directory of shard manifests, found none")
        for file in files:
            manifest = load_named(file)
            if manifest is None:
                raise DataError(f"{file}: expected a shard manifest named shard-K-of-N.json, "
                                f"found {file.name!r}")  # fmt: skip
            found.append(manifest)
    if not found:
        shown = ", ".join(map(str, paths))
        raise DataError(
            f"{shown}: expected shard manifests (shard-K-of-N.json, written by pytest "
            "--truegreen-manifest=DIR in each lane), found none"
        )
    return found


def _attempt(m: Manifest) -> tuple[int, int]:
    """How recent a manifest's run and attempt are: GitHub numbers both upwards."""
    run = int(m.run_id) if m.run_id and m.run_id.isdigit() else 0
    return run, m.run_attempt or 0


def _shown(m: Manifest, other: Manifest) -> tuple[str, str]:
    """The key that tells two attempts apart and this manifest's value of it."""
    if m.run_id == other.run_id:
        return "run_attempt", f"{m.run_attempt}"
    return "run_id", f"run {m.run_id} attempt {m.run_attempt}"


@dataclass(frozen=True)
class Lanes:
    """The manifests of several lanes: the newest of each lane and shard, by lane and K, and
    those a newer attempt superseded, each beside the one that did."""

    newest: Mapping[str, Mapping[int, Manifest]]
    superseded: Sequence[tuple[Manifest, Manifest]]
    hosts: Mapping[str, Host]


def _needs(m: Manifest, key: str, value: Optional[str]) -> str:
    if value is None:
        raise DataError(
            f"{m.file}: key {key!r}: expected string (--lanes reads which lane and platform "
            "wrote each manifest; a truegreen that did not record lanes wrote this one), "
            "found nothing"
        )
    return value


def group(manifests: Sequence[Manifest]) -> Lanes:
    """Manifests by lane and shard, the newest attempt of each kept. Two manifests of one
    lane and shard from the same attempt, or one lane on two platforms, cannot be told
    apart: a DataError naming both files (each CI job needs a lane of its own)."""
    by_shard: dict[tuple[str, int], list[Manifest]] = {}
    hosts: dict[str, tuple[Host, Manifest]] = {}
    for m in manifests:
        lane = _needs(m, "lane", m.lane)
        host = Host(_needs(m, "os", m.os), _needs(m, "arch", m.arch))
        first = hosts.setdefault(lane, (host, m))
        if first[0] != host:
            raise DataError(
                f"{m.file}: key 'os'/'arch': expected {first[0]} as lane {lane}'s other "
                f"manifest {first[1].file} says, found {host}: give each CI job a lane of its "
                "own (the lane key, TRUEGREEN_LANE)"
            )
        by_shard.setdefault((lane, m.k), []).append(m)
    newest: dict[str, dict[int, Manifest]] = {}
    superseded = []
    for (lane, k), found in sorted(by_shard.items()):
        found.sort(key=_attempt, reverse=True)
        top = found[0]
        twin = next((m for m in found[1:] if _attempt(m) == _attempt(top)), None)
        if twin is not None:
            raise DataError(
                f"{twin.file}: lane {lane} shard {k}: expected one manifest per lane, shard "
                f"and attempt, found another in {top.file}: give each CI job a lane of its "
                "own (the lane key, TRUEGREEN_LANE)"
            )
        newest.setdefault(lane, {})[k] = top
        superseded += [(m, top) for m in found[1:]]
    return Lanes(newest, superseded, {lane: host for lane, (host, _) in hosts.items()})


def not_superseded(lanes: Lanes, total: int) -> Check:
    """Only the newest attempt of each lane and shard counts: a re-run job's first, stale
    result is no evidence of the run that counts. The ones left out are listed; they fail
    nothing by themselves (CI keeps every attempt's artifacts), and a shard whose newest
    attempt is missing or red fails its lane's checks."""
    items = []
    for old, new in lanes.superseded:
        key, found = _shown(old, new)
        expected = _shown(new, old)[1]
        items.append(
            f"{old.file}: {key}: expected {expected} (the newest of lane {new.lane} shard "
            f"{new.k}/{new.n}, in {new.file}), found {found}"
        )
    name = (
        f"only the newest attempt of each shard counted ({counted(total, 'manifest')}, "
        f"{counted(len(lanes.newest), 'lane')})"
    )
    summary = f"{counted(len(items), 'manifest')} from an earlier attempt, not counted"
    return Check(name, True, _itemised(summary, items) if items else "")


def _outcomes(shards: Iterable[Manifest]) -> dict[str, str]:
    """Node id -> its outcome in whichever shard of the lane ran it."""
    return {nodeid: outcome for m in shards for nodeid, outcome in m.outcomes.items()}


def _markers(evidence: Mapping[str, Sequence[Manifest]]) -> dict[str, Marker]:
    return {n: marker for ms in evidence.values() for m in ms for n, marker in m.platforms.items()}


def _where(
    nodeid: str, marker: Optional[Marker], hosts: Mapping[str, Host],
    outcomes: Mapping[str, Mapping[str, str]],
) -> tuple[bool, str]:  # fmt: skip
    """Whether ``nodeid`` passed on a lane its marker matches, and what it did on each."""
    fits = [lane for lane in sorted(hosts) if marker is None or marker.matches(hosts[lane])]
    if any(outcomes[lane].get(nodeid) == "passed" for lane in fits):
        return True, ""
    if not fits:
        lanes = ", ".join(f"{lane} ({hosts[lane]})" for lane in sorted(hosts))
        return False, f"no lane matches it (lanes: {lanes})"
    return False, "; ".join(f"{outcomes[lane].get(nodeid, 'not run')} on {lane}" for lane in fits)


def platforms_passed(
    evidence: Mapping[str, Sequence[Manifest]], hosts: Mapping[str, Host]
) -> Check:
    """Every test with a ``platforms`` marker passed on a lane whose platform it names."""
    outcomes = {lane: _outcomes(ms) for lane, ms in evidence.items()}
    markers = _markers(evidence)
    items = []
    for nodeid, marker in sorted(markers.items()):
        ok, why = _where(nodeid, marker, hosts, outcomes)
        if not ok:
            items.append(f"{nodeid} {marker.describe()}: {why}")
    name = (
        f"every platforms-gated test passed on a lane it names ({counted(len(markers), 'test')}, "
        f"{counted(len(evidence), 'lane')})"
    )
    summary = f"{counted(len(items), 'test')} passed on no lane of its platform"
    return Check(name, not items, _itemised(summary, items) if items else "")


def must_run_passed(evidence: Mapping[str, Sequence[Manifest]], hosts: Mapping[str, Host]) -> Check:
    """Every ``must-run`` gate of any lane passed on a lane whose platform it matches (any
    lane, for a gate without a ``platforms`` marker)."""
    outcomes = {lane: _outcomes(ms) for lane, ms in evidence.items()}
    markers = _markers(evidence)
    patterns = sorted({p for ms in evidence.values() for m in ms for p in m.must_run})
    collected = dict.fromkeys(n for ms in evidence.values() for m in ms for n in m.collected)
    items = []
    for pattern in patterns:
        hits = [n for n in collected if matches(n, pattern)]
        if not hits:
            items.append(f"{pattern}: matches no test collected on any lane")
        for nodeid in hits:
            ok, why = _where(nodeid, markers.get(nodeid), hosts, outcomes)
            if not ok:
                items.append(f"{nodeid}: {why}")
    count = counted(len(patterns), "pattern")
    name = f"every must-run test passed on a lane of its platform ({count})"
    summary = f"{counted(len(items), 'gate')} passed on no lane"
    return Check(name, not items, _itemised(summary, items) if items else "")


# Each lane's shard checks but the must-run one: across lanes, a gate must pass on a lane of
# its platform, not on every lane (an on-demand lane may run a handful of tests, the gate's
# own lane may leave the rest out).
LANE_CHECKS = tuple(check for check in CHECKS if check is not manifest_must_run)


def verify_lanes(manifests: Sequence[Manifest], head: Head) -> tuple[list[Check], Lanes]:
    """Every check of a merge of lanes, in order: the commit, no superseded attempt, each
    lane's shard checks (prefixed with its name), then the platforms and must-run coverage
    over the newest manifests of the head commit."""
    lanes = group(manifests)
    checks = [c for c in (from_head(manifests, head),) if c is not None]
    checks.append(not_superseded(lanes, len(manifests)))
    for lane, shards in sorted(lanes.newest.items()):
        found = verify(shards, checks=LANE_CHECKS)
        checks += [Check(f"lane {lane}: {c.name}", c.ok, c.detail) for c in found]
    evidence = {
        lane: [
            m for m in shards.values() if head.commit is None or same_commit(m.commit, head.commit)
        ]
        for lane, shards in lanes.newest.items()
    }
    checks += [platforms_passed(evidence, lanes.hosts), must_run_passed(evidence, lanes.hosts)]
    return checks, lanes
