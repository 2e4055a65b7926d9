"""``truegreen flakes``: run in shuffled orders, classify what varies, bisect it to a pair."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from truegreen.cli import Status, add_verb
from truegreen.cli.procs import run_until
from truegreen.core import flakes
from truegreen.core.errors import UsageError
from truegreen.core.metrics import Stream, read_dir

EXAMPLE = """\
  truegreen flakes -- tests/                       # 4 runs, a random seed (printed)
  truegreen flakes --runs 8 --seed 1234 --xdist 2 -- -q tests/
  truegreen flakes --runs 0 --victim tests/test_cache.py::test_default_mode -- tests/
"""

FIXES = {
    flakes.VICTIM: "fix: make the polluter undo what it changes (a fixture with a teardown), "
    "or make the victim set up the state it reads",
    flakes.BRITTLE: "fix: make the test set up the state it needs instead of relying on the "
    "state-setter",
    flakes.NON_ORDER: "fix: find the chance, clock or shared resource it depends on and pin it "
    "(a seed, a frozen clock, a per-test resource); never rerun it until green",
}
CULPRIT = {flakes.VICTIM: "polluter", flakes.BRITTLE: "state-setter"}


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "flakes",
        summary="find order-dependent tests and bisect each to its polluter or state-setter",
        description="Collect the tests once, then run them N times: in collection order, in "
        "reverse, then in orders shuffled from a seed (printed; --seed repeats them exactly). "
        "Each test whose outcome varies is classified: victim (passes alone, fails after a "
        "polluter), brittle (fails alone, passes only after a state-setter) or non-order (the "
        "same order does not repeat its outcome). Victims and brittle tests are bisected to a "
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
    parser.add_argument("--run-timeout", type=float, metavar="S",
                        help="end each pytest run after S seconds; unfinished: failed")  # fmt: skip
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
    if args.run_timeout is not None and not args.run_timeout > 0:
        raise UsageError(
            f"truegreen flakes: --run-timeout must be a number of seconds above 0, "
            f"got {args.run_timeout!r}"
        )
    if args.xdist is not None:
        if args.xdist < 1:
            raise UsageError(f"truegreen flakes: --xdist must be at least 1, got {args.xdist!r}")
        if importlib.util.find_spec("xdist") is None:
            raise UsageError(
                "truegreen flakes: --xdist expects pytest-xdist installed, found it missing"
            )


def _last_line(output: bytes) -> str:
    lines = output.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else "no output"


class Pytest:
    """Runs pytest on one order of tests and hands back the run's event stream."""

    def __init__(
        self, pytest_args: Sequence[str], workdir: Path, timeout: Optional[float] = None
    ) -> None:
        self.pytest_args = list(pytest_args)
        self.timeout = timeout
        self.workdir = workdir
        self.calls = 0
        self.argv = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
        # An -n W in the suite's addopts would scatter a bisection over workers; -n 0, placed
        # after the user's arguments, keeps a run in one process unless it asks for xdist.
        blocked = any("no:xdist" in arg for arg in self.pytest_args)
        xdist = not blocked and importlib.util.find_spec("xdist") is not None
        self.one_process = ("-n", "0") if xdist else ()

    def collect(self) -> list[str]:
        self.calls += 1
        out = self.workdir / "collected.json"
        argv = [*self.argv, "--collect-only", "-q", f"--truegreen-plan-out={out}",
                *self.pytest_args, *self.one_process]  # fmt: skip
        status, output, _ = run_until(argv, os.environ, None, capture=True, everything=False)
        if not out.is_file():
            raise UsageError(
                f"truegreen flakes: expected pytest to collect with the truegreen plugin on, "
                f"found exit {status}: {_last_line(output)}"
            )
        return list(json.loads(out.read_text(encoding="utf-8"))["units"])

    def run(self, order: Sequence[str], workers: Optional[int] = None) -> list[Stream]:
        self.calls += 1
        order_file = self.workdir / f"order-{self.calls}.json"
        metrics = self.workdir / f"metrics-{self.calls}"
        order_file.write_text(json.dumps(list(order)), encoding="utf-8")
        argv = [*self.argv, "-q", f"--truegreen-metrics={metrics}",
                f"--truegreen-order={order_file}", *self.pytest_args,
                *(("-n", str(workers)) if workers else self.one_process)]  # fmt: skip
        deadline = time.time() + self.timeout if self.timeout else None
        status, output, timed_out = run_until(argv, os.environ, deadline, capture=True,
                                              everything=False)  # fmt: skip
        if timed_out:
            _progress(f"  the run was ended after {self.timeout:g}s (--run-timeout); the test "
                      "it was running counts as failed")  # fmt: skip
        try:
            if not metrics.is_dir() or not any(metrics.rglob("*.jsonl")):
                raise UsageError(
                    f"truegreen flakes: expected pytest to run the tests and record them, "
                    f"found exit {status}: {_last_line(output)}"
                )
            return read_dir(metrics)
        finally:
            order_file.unlink()
            shutil.rmtree(metrics, ignore_errors=True)

    def fails(self, order: Sequence[str]) -> bool:
        failed = flakes.failed_in(order[-1], self.run(order))
        before = f"after {len(order) - 1} tests" if len(order) > 1 else "alone"
        _progress(f"  {before}: {'failed' if failed else 'passed'}")
        return failed


def _progress(message: str) -> None:
    sys.stderr.write(f"truegreen flakes: {message}\n")
    sys.stderr.flush()


def hunt(args: argparse.Namespace, pytest: Pytest, ids: list[str]) -> flakes.Report:
    """N runs in different orders, then a diagnosis of each test whose outcome varied."""
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    _progress(f"{len(ids)} tests, {args.runs} runs, seed {seed}")
    observations: list[flakes.Observation] = []
    for number, order in enumerate(flakes.orders(ids, seed, args.runs)):
        # Collection order and its reverse run in one process, so each pair meets both ways
        # round; every second shuffle runs under xdist, where a test keeps other company.
        workers = args.xdist if args.xdist and number >= 2 and number % 2 == 1 else None
        label = ("collection order", "reversed")[number] if number < 2 else "shuffled"
        seen = flakes.observe(number, pytest.run(order, workers))
        observations += seen
        failed = sum(o.failed for o in seen)
        _progress(f"run {number + 1}/{args.runs} ({label}"
                  f"{f', -n {workers}' if workers else ''}): {failed} failed")  # fmt: skip
    findings = []
    position = {test: n for n, test in enumerate(ids)}
    for test in sorted(flakes.varying(observations), key=position.__getitem__):
        _progress(f"examining {test}")
        findings.append(flakes.diagnose(test, observations, pytest.fails))
    always = tuple(sorted(flakes.always_failing(observations), key=position.__getitem__))
    return flakes.Report(seed, args.runs, len(ids), tuple(findings), always, pytest.calls)


def run(args: argparse.Namespace) -> int:
    _check(args)
    workdir = Path(tempfile.mkdtemp(prefix="truegreen-flakes-"))
    try:
        pytest = Pytest(args.pytest_args, workdir, args.run_timeout)
        _progress("collecting")
        ids = pytest.collect()
        if not ids:
            raise UsageError(
                f"truegreen flakes: expected tests to run, found none collected by "
                f"{shlex.join(args.pytest_args)!r}"
            )
        if args.victim:
            if args.victim not in ids:
                raise UsageError(
                    f"truegreen flakes: --victim expects a collected node id, found "
                    f"{args.victim!r} not among the {len(ids)} collected"
                )
            _progress(f"bisecting {args.victim} among {len(ids) - 1} other tests")
            finding = flakes.culprit_of(args.victim, ids, pytest.fails)
            found = () if finding.kind == flakes.NOT_FOUND else (finding,)
            verdict = f"{args.victim}: no polluter or state-setter: {finding.note}"
            notes = () if found else (verdict,)
            report = flakes.Report(None, 0, len(ids), found, (), pytest.calls, notes)
        else:
            report = hunt(args, pytest, ids)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
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
        if finding.culprits:
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
    kinds = (flakes.VICTIM, flakes.BRITTLE, flakes.NON_ORDER)
    counts = [(sum(f.kind == k for f in report.findings), k) for k in kinds]
    if report.findings:
        detail = ", ".join(f"{n} {k}" for n, k in counts if n)
        noun = "flaky test" if len(report.findings) == 1 else "flaky tests"
        lines.append(f"{len(report.findings)} {noun}: {detail} ({report.pytest_runs} "
                     "pytest runs)")  # fmt: skip
    else:
        lines.append(f"no flaky test ({report.pytest_runs} pytest runs)")
    return "\n".join(lines)
