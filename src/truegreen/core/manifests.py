"""Shard manifests: what one shard collected, selected and did, and the proof they add up.

A manifest is ``shard-K-of-N.json``, read into a :class:`Manifest` that is checked field by
field before anything trusts it; :func:`verify` runs every check of :data:`CHECKS` over the
manifests of a run, one line each: the shards are all there and complete, collected the same
tests, selected disjoint sets, ran every test the user's selection kept (whoever split the
suite: truegreen, or another plugin that deselected tests), never split a unit, all went
green, and ran every ``must-run`` test somewhere.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from truegreen.core import formats, jsonfile
from truegreen.core.errors import DataError
from truegreen.core.mustrun import matches
from truegreen.core.platforms import Marker, PlatformSpecError
from truegreen.core.provenance import decode_marker
from truegreen.core.shards import collection_digest

FORMAT_KEY = formats.FORMAT_KEY
FORMAT = formats.SHARD_MANIFEST  # also the plan file the plugin writes for `shards plan`
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


@dataclass(frozen=True)
class Manifest:
    """One shard's manifest. A shard that crashed may have written only the first four
    fields; the rest then hold nothing."""

    format: int
    k: int
    n: int
    complete: bool
    mode: str = ""
    collected: tuple[str, ...] = ()
    collected_digest: str = ""
    eligible: tuple[str, ...] = ()
    selected: tuple[str, ...] = ()
    units: Mapping[str, str] = field(default_factory=dict)  # node id -> its unit
    outcomes: Mapping[str, str] = field(default_factory=dict)  # node id -> its outcome
    must_run: tuple[str, ...] = ()
    exitstatus: Optional[int] = None  # pytest's, once the shard finished
    # module that reported them through pytest_deselected -> the node ids it deselected;
    # truegreen's own shard cut is not among them
    deselected: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # where the evidence comes from (core/provenance.py); None in a manifest written before
    commit: Optional[str] = None
    run_id: Optional[str] = None
    run_attempt: Optional[int] = None
    os: Optional[str] = None
    arch: Optional[str] = None
    python: Optional[str] = None
    lane: Optional[str] = None
    platforms: Mapping[str, Marker] = field(default_factory=dict)  # gated node id -> marker
    file: str = field(default="", compare=False)  # the file it was read from, for messages


# Deselections reported by these packages are the user's own selection (pytest's -k, -m,
# --deselect, --lf/--ff/--nf, --sw; truegreen's own runs): the same in every shard, and the
# tests they leave out are not expected to run anywhere. Any other source (another plugin,
# such as pytest-split, or a conftest) splits the suite: what it deselected in one shard must
# run in another.
SELECTION_SOURCES = ("_pytest", "truegreen")


def is_selection(source: str) -> bool:
    """Whether ``source``, the module that reported a deselection, is the user's selection."""
    return source.split(".", 1)[0] in SELECTION_SOURCES


def eligible(collected: Sequence[str], deselected: Mapping[str, Sequence[str]]) -> list[str]:
    """What the shards of a run share out: every collected test but those the user's own
    selection left out (:func:`is_selection`), in collection order."""
    out = {n for source, ids in deselected.items() if is_selection(source) for n in ids}
    return [nodeid for nodeid in collected if nodeid not in out]


_SCHEMA = formats.MANIFEST_FIELDS[FORMAT]
_READ = frozenset(f.name for f in dataclasses.fields(Manifest)) - {"file"}  # what verify uses


def _fail(path: Path, key: str, expected: object, found: object) -> DataError:
    return DataError(f"{path}: key {key}: expected {expected}, found {found}")


def _checked(data: dict[str, Any], path: Path) -> None:
    """Every field of the schema, then what the fields say of each other; the first problem is
    a DataError naming ``path`` and the field."""
    version = data.get(FORMAT_KEY)
    if type(version) is int and version != FORMAT:
        raise _fail(path, repr(FORMAT_KEY), FORMAT, version)
    complete = data.get("complete") is True
    for one in _SCHEMA:
        if one.name not in data:
            if (one.required or complete) and one.name not in formats.MANIFEST_LATER:
                raise _fail(path, repr(one.name), one.expected(), "nothing")
            continue
        wrong = one.problem(data[one.name])
        if wrong is not None:
            raise DataError(f"{path}: key {one.name!r}{wrong[0]}: {wrong[1]}")
    if data["k"] > data["n"]:
        raise _fail(path, "'k'", f"a shard from 1 to n={data['n']}", data["k"])
    if "collected" in data:
        _agree(data, path)
    if complete:
        _settled(data, path)


def _agree(data: dict[str, Any], path: Path) -> None:
    """The lists and maps name collected tests, and the digest and eligible ids follow from
    the collection."""
    collected = data["collected"]
    digest = collection_digest(collected)
    if data.get("collected_digest", digest) != digest:
        raise _fail(path, "'collected_digest'", f"the SHA-256 of 'collected' ({digest[:12]}...)",
                    repr(data["collected_digest"]))  # fmt: skip
    known = set(collected)
    named = [
        *((repr(key), data.get(key, ()))
          for key in ("eligible", "selected", "units", "outcomes", "platforms")),
        *((f"'deselected'[{source!r}]", ids) for source, ids in data.get("deselected", {}).items()),
    ]  # fmt: skip
    for key, ids in named:
        stray = next((nodeid for nodeid in ids if nodeid not in known), None)
        if stray is not None:
            raise _fail(path, key, "node ids from 'collected'", repr(stray))
    if "eligible" in data and "deselected" in data:
        kept = eligible(collected, data["deselected"])
        if data["eligible"] != kept:
            raise _fail(path, "'eligible'", f"the {len(kept)} collected ids the user's selection "
                        "kept ('collected' less the 'deselected' of pytest's own selection)",
                        f"{len(data['eligible'])} ids")  # fmt: skip


def _settled(data: dict[str, Any], path: Path) -> None:
    """A session that ended has an exit status, and it is not 0 when a test failed."""
    status = data["exitstatus"]
    if status is None:
        raise _fail(path, "'exitstatus'", "int once 'complete' is true", "null")
    red = next((n for n, o in data["outcomes"].items() if o in formats.RED_OUTCOMES), None)
    if status == 0 and red is not None:
        outcome = data["outcomes"][red]
        raise _fail(path, "'exitstatus'", f"non-zero, as 'outcomes' has {red!r} {outcome}", 0)


def parse(data: object, path: Path) -> Manifest:
    """A manifest from its JSON, checked against :data:`formats.MANIFEST_FIELDS` field by
    field and then across fields; anything missing, mistyped or contradictory is a DataError
    naming ``path`` and the field."""
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected a JSON object, found {type(data).__name__}")
    _checked(data, path)
    fields: dict[str, Any] = {key: value for key, value in data.items() if key in _READ}
    for key in ("collected", "eligible", "selected", "must_run"):
        if key in fields:
            fields[key] = tuple(fields[key])
    if "deselected" in fields:
        fields["deselected"] = {s: tuple(ids) for s, ids in fields["deselected"].items()}
    if "platforms" in fields:
        fields["platforms"] = _markers(fields["platforms"], path)
    return Manifest(**fields, file=str(path))


def _markers(encoded: Mapping[str, list[str]], path: Path) -> dict[str, Marker]:
    """Node id -> the ``platforms`` marker the manifest keeps for it, each one checked."""
    markers = {}
    for nodeid, values in encoded.items():
        try:
            markers[nodeid] = decode_marker(values)
        except PlatformSpecError as exc:
            raise _fail(path, f"'platforms'[{nodeid!r}]", "a platforms marker's specs",
                        f"{values!r} ({exc})") from None  # fmt: skip
    return markers


def load(path: Path) -> Manifest:
    """Read one manifest; anything malformed is a one-line DataError naming the file."""
    return parse(jsonfile.load(path, "manifest", "a JSON shard manifest"), path)


def load_named(path: Path) -> Optional[Manifest]:
    """The manifest at ``path`` when its name is ``shard-K-of-N.json`` (None for any other
    file); K and N must be the manifest's own."""
    match = _NAME.match(path.name)
    if not match:
        return None
    manifest = load(path)
    if (manifest.k, manifest.n) != (int(match.group(1)), int(match.group(2))):
        raise DataError(
            f"{path}: expected k={match.group(1)} n={match.group(2)} as the name says, "
            f"found k={manifest.k} n={manifest.n}"
        )
    return manifest


def load_dir(directory: Path) -> dict[int, Manifest]:
    """Every ``shard-K-of-N.json`` in ``directory``, by K; the file name must agree with K/N."""
    if not directory.is_dir():
        raise DataError(f"{directory}: expected a directory of shard manifests, found none")
    found: dict[int, Manifest] = {}
    for path in sorted(directory.iterdir()):
        manifest = load_named(path)
        if manifest is None:
            continue
        if manifest.k in found:
            raise DataError(f"{path}: shard {manifest.k} appears twice, with different N")
        found[manifest.k] = manifest
    if not found:
        raise DataError(
            f"{directory}: expected shard manifests (shard-K-of-N.json, written by "
            "pytest --truegreen-manifest=DIR), found none"
        )
    return found


def _diff(a: Sequence[str], b: Sequence[str], a_name: str, b_name: str) -> str:
    lines = difflib.unified_diff(list(a), list(b), a_name, b_name, lineterm="", n=0)
    return "\n".join(list(lines)[:40])


@dataclass(frozen=True)
class Run:
    """The manifests of one run, by K, and the number of shards it should have."""

    shards: Mapping[int, Manifest]
    n: int

    @property
    def ordered(self) -> list[tuple[int, Manifest]]:
        return sorted(self.shards.items())

    @property
    def first(self) -> tuple[int, Manifest]:
        return self.ordered[0]


def _listed(values: Sequence[object]) -> str:
    return ", ".join(map(str, values))


def all_present(run: Run) -> Check:
    missing = [k for k in range(1, run.n + 1) if k not in run.shards]
    stray = sorted(k for k, m in run.shards.items() if m.n != run.n or k > run.n)
    detail = "; ".join(filter(None, [
        f"missing shard {_listed(missing)}" if missing else "",
        f"shard {_listed(stray)} is not one of {run.n}" if stray else "",
    ]))  # fmt: skip
    return Check(f"all {run.n} shards present", not missing and not stray, detail)


def ran_to_the_end(run: Run) -> Check:
    incomplete = sorted(k for k, m in run.shards.items() if not m.complete)
    detail = f"shard {_listed(incomplete)} did not finish (crashed or killed)"
    return Check("every shard ran to the end", not incomplete, detail if incomplete else "")


def same_collection(run: Run) -> Check:
    first_k, first = run.first
    differ = [k for k, m in run.ordered if m.collected_digest != first.collected_digest]
    detail = ""
    if differ:
        k = differ[0]
        detail = (
            f"shard {k} collected a different set from shard {first_k} (collection that "
            "depends on order, randomness or the environment):\n"
            + _diff(first.collected, run.shards[k].collected, f"shard {first_k}", f"shard {k}")
        )
    return Check("the same tests collected everywhere", not differ, detail)


def same_selection(run: Run) -> Check:
    first_k, first = run.first
    differ = [k for k, m in run.ordered if sorted(m.eligible) != sorted(first.eligible)]
    detail = (
        f"shard {differ[0]} selected with other -k/-m/arguments than shard {first_k}"
        if differ
        else ""
    )
    return Check("the same selection everywhere", not differ, detail)


def _owners(run: Run) -> tuple[dict[str, int], list[str]]:
    """Each selected test's shard, and the tests selected by two shards."""
    owner: dict[str, int] = {}
    twice: list[str] = []
    for k, m in run.ordered:
        for nodeid in m.selected:
            if nodeid in owner:
                twice.append(f"{nodeid} (shards {owner[nodeid]} and {k})")
            owner[nodeid] = k
    return owner, twice


def disjoint(run: Run) -> Check:
    twice = _owners(run)[1]
    detail = f"{len(twice)} tests ran twice: {', '.join(twice[:5])}" if twice else ""
    return Check("no test in two shards", not twice, detail)


def _why_never(run: Run, never: Sequence[str]) -> list[str]:
    """Why tests that every shard should have shared out ran nowhere, one phrase per cause."""
    missing = set(never)
    by_source: dict[str, set[str]] = {}
    selected: set[str] = set()
    for _, m in run.ordered:
        selected.update(missing.intersection(m.selected))
        for source, ids in m.deselected.items():
            if not is_selection(source):
                by_source.setdefault(source, set()).update(missing.intersection(ids))
    named = [f"{source} ({len(ids)})" for source, ids in sorted(by_source.items()) if ids]
    reported = selected.union(*by_source.values())
    return [
        "deselected by another plugin and run in no other shard: " + ", ".join(named)
        if named else "",
        f"{len(selected)} selected but not run (the shard stopped early)" if selected else "",
        f"{len(missing - reported)} removed from the collection without a pytest_deselected "
        "report (a plugin or conftest)" if missing - reported else "",
    ]  # fmt: skip


def covering(run: Run) -> Check:
    """Every eligible test ran (has an outcome) in some shard, whoever split the suite."""
    first = run.first[1]
    eligible = set(first.eligible)
    ran = {nodeid for _, m in run.ordered for nodeid in m.outcomes}
    never = sorted(eligible - ran)
    extra = sorted(ran - eligible)
    detail = "; ".join(filter(None, [
        f"{len(never)} never ran: {', '.join(never[:5])}" if never else "",
        *_why_never(run, never),
        f"{len(extra)} ran but were not eligible: {', '.join(extra[:5])}" if extra else "",
    ]))  # fmt: skip
    left_out = len(first.collected) - len(eligible)
    count = f"{len(eligible)} tests" + (
        f"; {left_out} of {len(first.collected)} collected left out by your selection"
        if left_out > 0
        else ""
    )
    return Check(f"every test ran in a shard ({count})", not never and not extra, detail)


def units_whole(run: Run) -> Check:
    unit_shards: dict[str, set[int]] = {}
    for k, m in run.ordered:
        for nodeid in m.selected:
            unit_shards.setdefault(m.units.get(nodeid, nodeid), set()).add(k)
    split = sorted(u for u, ks in unit_shards.items() if len(ks) > 1)
    detail = f"{len(split)} split: {', '.join(split[:5])}" if split else ""
    return Check("no unit split across shards", not split, detail)


def green(run: Run) -> Check:
    red = [f"shard {k} (exit status {m.exitstatus})" for k, m in run.ordered if m.exitstatus != 0]
    return Check("every shard green", not red, ", ".join(red))


def must_run_passed(run: Run) -> Check:
    patterns = sorted({p for m in run.shards.values() for p in m.must_run})
    passed = {n for m in run.shards.values() for n, o in m.outcomes.items() if o == "passed"}
    unmet = []
    for pattern in patterns:
        hits = [n for n in run.first[1].collected if matches(n, pattern)]
        if not hits:
            unmet.append(f"{pattern} (matches no collected test)")
        unmet += [f"{n} (did not pass in any shard)" for n in hits if n not in passed]
    return Check(f"every must-run test passed somewhere ({len(patterns)} patterns)",
                 not unmet, ", ".join(unmet[:5]))  # fmt: skip


# The checks of a run with at least one manifest, in the order they are shown.
CHECKS: tuple[Callable[[Run], Check], ...] = (
    ran_to_the_end, same_collection, same_selection, disjoint, covering, units_whole, green,
    must_run_passed,
)  # fmt: skip


def verify(
    shards: Mapping[int, Manifest], count: Optional[int] = None,
    checks: Sequence[Callable[[Run], Check]] = CHECKS,
) -> list[Check]:  # fmt: skip
    """Every check, in order; the run is proven when all hold. ``shards`` is never empty:
    :func:`load_dir` refuses a directory without manifests."""
    n = count if count is not None else max(m.n for m in shards.values())
    run = Run(shards, n)
    return [all_present(run), *(check(run) for check in checks)]
