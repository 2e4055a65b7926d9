"""``truegreen shards``: prove a sharded run added up (verify), or preview a split (plan)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, Optional

from truegreen.cli import add_verb, count
from truegreen.core import config as tgconfig
from truegreen.core import formats
from truegreen.core.errors import ConfigError, UsageError
from truegreen.core.evidence import Head, from_head, load_paths, one_lane, verify_lanes
from truegreen.core.manifests import load_dir, verify
from truegreen.core.provenance import head_commit, is_sha
from truegreen.core.shards import (
    MAX_SHARDS,
    assign_by_digest,
    assign_by_duration,
    plan,
    unit_durations,
)
from truegreen.guards.git import head as git_head
from truegreen.runner.process import PytestProcess

EXAMPLE = """\
  # in each CI job
  pytest --truegreen-shard=2/4 --truegreen-manifest=manifests/
  # in the job that gates the merge
  truegreen shards verify manifests/ --count 4
  truegreen shards plan --count 4 --mode duration --durations .test_durations \\
      -- tests/
"""
VERIFY_EXAMPLE = """\
  # in each CI job
  pytest --truegreen-shard=2/4 --truegreen-manifest=manifests/
  # in the job that gates the merge
  truegreen shards verify manifests/ --count 4
  # every lane's manifests, one directory each (one per CI artifact)
  truegreen shards verify --lanes all-manifests/
  truegreen shards verify --lanes linux/ macos/ windows/ --commit "$GITHUB_SHA"
"""
PLAN_EXAMPLE = """\
  truegreen shards plan --count 4 -- tests/
  truegreen shards plan --count 4 --mode duration --durations .test_durations \\
      -- tests/
"""


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "shards",
        summary="verify that the shards of a run add up, or plan a split",
        description="verify: every shard present and complete, the same tests collected "
        "everywhere, selections disjoint, every selected test run in a shard (whoever split "
        "the suite), no unit split, every shard green, every must-run test passed somewhere; "
        "exit 0 or 1. "
        "plan: the assignment and the predicted tests and seconds per shard, without running "
        "any test.",
        example=EXAMPLE,
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = add_verb(
        sub,
        "verify",
        summary="check the manifests of every shard of a run",
        description="Read every shard-K-of-N.json in DIR (written by pytest "
        "--truegreen-manifest=DIR in each shard's job) and check, one line each: all N shards "
        "present; each ran to the end; the same tests collected everywhere; the same selection "
        "everywhere; no test in two shards; every test your selection kept ran in a shard, whoever "
        "split the suite (truegreen or another plugin); no unit split; every "
        "shard green; every must-run test passed somewhere. Each manifest is first checked against "
        "its schema: a field missing, mistyped or contradicting another is one line naming the "
        "file and the field. Every manifest must name the head commit (--commit, else "
        "GITHUB_SHA, else git HEAD here), one per line that does not.\n\n"
        "--lanes DIR...: the manifests of several lanes (one per OS and Python, and lanes run "
        "on demand), found anywhere under each DIR: the newest attempt of each lane and shard "
        "counts, and one from an earlier attempt (a re-run job's stale result) fails the "
        "check; each lane gets the checks above; then every test gated by the platforms "
        "marker, and every must-run test, must have passed on a lane whose platform it "
        "matches: a skip-on-this-OS defence that no lane runs is listed.\n\n"
        "Exit 0 when every check holds, 1 when one does not, 2 for a "
        "manifest that cannot be read or does not hold to its schema, or a directory without "
        "any.",
        example=VERIFY_EXAMPLE,
    )
    check.add_argument("directory", type=Path, metavar="DIR", nargs="?")
    check.add_argument("--count", type=count(1, MAX_SHARDS), default=None, metavar="N",
                       help="the number of shards expected")  # fmt: skip
    check.add_argument("--lanes", type=Path, nargs="+", default=None, metavar="DIR",
                       help="merge the manifests of several lanes found under each DIR "
                       "(or named one by one)")  # fmt: skip
    check.add_argument("--commit", default=None, metavar="SHA",
                       help="the commit every manifest must be from (default: GITHUB_SHA, "
                       "else git HEAD of the working directory)")  # fmt: skip
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.set_defaults(run=run_verify)
    preview = add_verb(
        sub,
        "plan",
        summary="show the split without running tests",
        description="Collect the tests with the given pytest arguments, run none of them, and "
        "print each shard's tests and predicted seconds, the floor a split cannot beat and the "
        "largest unit (tests that must stay together). --mode duration balances by the "
        "durations file (pytest-split's .test_durations format); digest, the default, assigns "
        "by a stable hash of each unit, so adding a test moves few others.",
        example=PLAN_EXAMPLE,
    )
    preview.add_argument("--count", type=count(1, MAX_SHARDS), required=True, metavar="N",
                         help=f"the number of shards (1 to {MAX_SHARDS})")  # fmt: skip
    preview.add_argument("--mode", choices=("digest", "duration"), default=None)
    preview.add_argument("--durations", default=None, metavar="FILE")
    preview.add_argument("--format", choices=("text", "json"), default="text")
    preview.add_argument("pytest_args", nargs="*", metavar="-- PYTEST_ARGS")
    preview.set_defaults(run=run_plan)


def _head(given: Optional[str]) -> Head:
    """The commit the manifests must be from: ``--commit``, else ``GITHUB_SHA``, else the
    working directory's git HEAD; none outside a checkout."""
    if given is not None:
        if not is_sha(given.strip()):
            raise UsageError(
                f"truegreen shards verify: --commit: expected a commit SHA (7 to 64 hex "
                f"digits), found {given!r}"
            )
        return Head(given.strip().lower(), "--commit")
    commit, source = head_commit(os.environ, lambda: git_head(os.getcwd()))
    return Head(commit, source)


def run_verify(args: argparse.Namespace) -> int:
    lanes = None
    if args.lanes is not None:
        if args.directory is not None or args.count is not None:
            given = "DIR" if args.directory is not None else "--count"
            raise UsageError(
                f"truegreen shards verify: {given}: expected nothing beside --lanes (each "
                "lane's manifests name their own N), found one"
            )
        manifests = load_paths(args.lanes)
        checks, lanes = verify_lanes(manifests, _head(args.commit))
    elif args.directory is None:
        raise UsageError("truegreen shards verify: expected DIR or --lanes DIR..., found neither")
    else:
        shards = load_dir(args.directory)
        head = _head(args.commit)
        found = [from_head(list(shards.values()), head), one_lane(shards.values())]
        checks = [c for c in found if c is not None] + verify(shards, args.count)
    ok = all(check.ok for check in checks)
    if args.format == "json":
        document: dict[str, Any] = {
            "format": formats.SHARDS_VERIFY,
            "ok": ok,
            "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in checks],
        }
        if lanes is not None:
            document["lanes"] = [
                {"lane": lane, "os": lanes.hosts[lane].os, "arch": lanes.hosts[lane].arch,
                 "python": sorted({m.python or "" for m in shards.values()}),
                 "manifests": [m.file for _, m in sorted(shards.items())]}
                for lane, shards in sorted(lanes.newest.items())
            ]  # fmt: skip
        print(json.dumps(document, indent=2))
    else:
        for check in checks:
            print(check.line())
    return 0 if ok else 1


def run_plan(args: argparse.Namespace) -> int:
    settings = tgconfig.load(Path.cwd(), os.environ)
    mode = args.mode or settings.shard_mode
    if mode == "external":
        raise ConfigError(
            "truegreen shards plan: shard-mode: expected digest or duration (--mode), found "
            "external (another plugin plans that split)"
        )
    durations_file = args.durations or settings.durations
    durations: dict[str, float] = {}
    if durations_file:
        from truegreen.core.durations import read_durations

        durations = read_durations(durations_file)
    elif mode == "duration":
        raise ConfigError("truegreen shards plan: duration mode needs --durations FILE")
    units = PytestProcess(args.pytest_args, who="truegreen shards plan").collect_units()
    seconds, median = unit_durations(units, durations)
    if mode == "digest":
        result = plan(assign_by_digest(seconds, args.count), seconds, args.count)
    else:
        result = assign_by_duration(seconds, args.count)
    tests = [0] * args.count
    for unit in units.values():
        tests[result.shard_of[unit]] += 1
    if args.format == "json":
        document = {
            "format": formats.SHARDS_PLAN,
            "mode": mode,
            "count": args.count,
            "shards": [
                {"k": k + 1, "tests": tests[k], "seconds": round(result.loads[k], 3)}
                for k in range(args.count)
            ],
            "floor": round(result.floor, 3),
            "largest_unit": {"unit": result.largest[0], "seconds": round(result.largest[1], 3)},
            "slowest_over_floor": round(result.imbalance, 4),
        }
        print(json.dumps(document, indent=2))
        return 0
    print(f"{len(units)} tests in {len(seconds)} units, {args.count} shards, mode {mode}")
    if not durations:
        print("no durations given: every test counts 1s, so seconds are test counts")
    elif len(durations) < len(units):
        print(f"tests without a recorded duration count the median, {median:.2f}s")
    for k in range(args.count):
        print(f"  shard {k + 1}/{args.count}: {tests[k]:>6} tests  {result.loads[k]:>10.2f}s")
    unit, largest = result.largest
    print(f"floor {result.floor:.2f}s (largest unit {unit}: {largest:.2f}s); "
          f"slowest shard / floor {result.imbalance:.3f}")  # fmt: skip
    return 0
