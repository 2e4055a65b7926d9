"""``truegreen flakes``: run in shuffled orders, classify what varies, bisect it to a pair."""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import shlex
import sys
from typing import Any

from truegreen.cli import Status, add_run_timeout, add_verb
from truegreen.core import flakes
from truegreen.core.errors import UsageError
from truegreen.runner.process import PytestProcess

EXAMPLE = """\
  # 4 runs, a random seed (printed)
  truegreen flakes -- tests/
  truegreen flakes --runs 8 --seed 1234 --xdist 2 -- -q tests/
  truegreen flakes --runs 0 --victim tests/test_cache.py::test_default_mode \\
      -- tests/
"""

FIXES = {
    flakes.VICTIM: "fix: make the polluter undo what it changes (a fixture with a teardown), "
    "or make the victim set up the state it reads",
    flakes.BRITTLE: "fix: make the test set up the state it needs instead of relying on the "
    "state-setter",
    flakes.NON_ORDER: "fix: find the chance, clock or shared resource it depends on and pin it "
    "(a seed, a frozen clock, a per-test resource); never rerun it until green",
    flakes.VIOLATION: "fix: fix the violation; while it stands, whichever test runs first "
    "fails, and no order is safe",
}
CULPRIT = {flakes.VICTIM: "polluter", flakes.BRITTLE: "state-setter",
           flakes.VIOLATION: "the others that trigger it when they run first"}  # fmt: skip
# Each run in the order asked for, without the user's cache of last failures.
OPTIONS = ("-q", "-p", "no:randomly", "-p", "no:cacheprovider")


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "flakes",
        summary="find order-dependent tests and bisect each to its polluter or state-setter",
        description="Collect the tests once, then run them N times: in collection order, in "
        "reverse, then in orders shuffled from a seed (printed; --seed repeats them exactly). "
        "Each test whose outcome varies is classified: victim (passes alone, fails after a "
        "polluter), brittle (fails alone, passes only after a state-setter) or non-order (the "
        "same order does not repeat its outcome); a test that fails only when it runs first, "
        "by a guard's violation, is reported as that violation. The doctests of a module and "
        "the blocks of one document move together, in their order. Victims and brittle tests "
        "are bisected to a "
        "minimal pair and the command that reproduces it is printed. With --runs 0, bisect one "
        "--victim among the other tests in collection order. Exit 1 when a test is flaky.",
        example=EXAMPLE,
    )
    parser.add_argument("--runs", type=int, default=4, metavar="N",
                        help="runs, each in its order (default 4; 0: bisect --victim)")  # fmt: skip
    parser.add_argument("--seed", type=int, metavar="S",
                        help="seed of the shuffled orders (default: random, printed)")  # fmt: skip
    parser.add_argument("--xdist", type=int, metavar="W",
                        help="run every second shuffled run under pytest -n W")  # fmt: skip
    parser.add_argument("--victim", metavar="NODEID", help="with --runs 0: the test to bisect")
    add_run_timeout(parser, None)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("pytest_args", nargs="*", metavar="-- PYTEST_ARGS")
    parser.set_defaults(run=run)


def _check(args: argparse.Namespace) -> None:
    if args.runs < 0 or args.runs == 1:
        raise UsageError(
            f"truegreen flakes: --runs must be 0 (with --victim) or at least 2, got {args.runs!r}"
        )
    if args.runs == 0 and not args.victim:
        raise UsageError("truegreen flakes: --runs 0 expects --victim NODEID, found none")
    if args.runs and args.victim:
        raise UsageError(f"truegreen flakes: --victim expects --runs 0, found --runs {args.runs!r}")
    if args.xdist is not None:
        if args.xdist < 1:
            raise UsageError(f"truegreen flakes: --xdist must be at least 1, got {args.xdist!r}")
        if importlib.util.find_spec("xdist") is None:
            raise UsageError(
                "truegreen flakes: --xdist expects pytest-xdist installed, found it missing"
            )


def _progress(message: str) -> None:
    sys.stderr.write(f"truegreen flakes: {message}\n")
    sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    _check(args)
    pytest = PytestProcess(args.pytest_args, who="truegreen flakes", options=OPTIONS,
                           one_process=True, timeout=args.run_timeout,
                           progress=_progress)  # fmt: skip
    _progress("collecting")
    units, documents = pytest.collect()
    ids = list(units)
    if not ids:
        raise UsageError(
            f"truegreen flakes: expected tests to run, found none collected by "
            f"{shlex.join(args.pytest_args)!r}"
        )
    hunt = flakes.Hunt(ids, lambda order, workers: pytest.run(order=order, workers=workers),
                       _progress, documents)  # fmt: skip
    if args.victim:
        if args.victim not in ids:
            raise UsageError(
                f"truegreen flakes: --victim expects a collected node id, found "
                f"{args.victim!r} not among the {len(ids)} collected"
            )
        report = hunt.victim(args.victim)
    else:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
        report = hunt.varying(seed, args.runs, args.xdist)
    if args.format == "json":
        print(json.dumps(flakes.document(report), indent=2))
    else:
        print(render(report, args))
    return Status.FINDINGS if report.flaky else Status.CLEAN


def render(report: flakes.Report, args: argparse.Namespace) -> str:
    """The text report: the seed and how to repeat it, then one block per flaky test."""
    lines = []
    if report.seed is not None:
        repeat = ["truegreen", "flakes", "--runs", str(report.runs), "--seed", str(report.seed)]
        if args.xdist:
            repeat += ["--xdist", str(args.xdist)]
        lines.append(f"truegreen flakes: {report.tests} tests, {report.runs} runs, "
                     f"seed {report.seed}")  # fmt: skip
        lines.append(f"  repeat: {shlex.join([*repeat, '--', *args.pytest_args])}")
    for finding in report.findings:
        seen = (f" (failed {finding.failed_runs} of {finding.observed_runs} runs)"
                if finding.observed_runs else "")  # fmt: skip
        lines.append(f"{finding.kind:<10} {finding.test}{seen}")
        if finding.kind == flakes.VIOLATION:
            lines.append(f"  {finding.note}")
            if finding.culprits:
                lines.append(f"  {CULPRIT[finding.kind]}: {', '.join(finding.culprits)}")
            lines.append(f"  reproduce: {finding.command}")
        elif finding.culprits:
            name = CULPRIT[finding.kind] + ("s, together" if len(finding.culprits) > 1 else "")
            lines.append(f"  {name}: {', '.join(finding.culprits)}")
            lines.append(f"  reproduce: {finding.command}")
        else:
            lines.append(f"  {finding.note}")
        lines.append(f"  {FIXES[finding.kind]}")
    lines += report.notes
    if report.always_failing:
        lines.append("failing in every run (not flaky, not examined):")
        lines += [f"  {test}" for test in report.always_failing]
    kinds = (flakes.VICTIM, flakes.BRITTLE, flakes.NON_ORDER, flakes.VIOLATION)
    counts = [(sum(f.kind == k for f in report.findings), k) for k in kinds]
    if report.findings:
        detail = ", ".join(f"{n} {k}" for n, k in counts if n)
        noun = "flaky test" if len(report.findings) == 1 else "flaky tests"
        lines.append(f"{len(report.findings)} {noun}: {detail} ({report.pytest_runs} "
                     "pytest runs)")  # fmt: skip
    else:
        lines.append(f"no flaky test ({report.pytest_runs} pytest runs)")
    return "\n".join(lines)
