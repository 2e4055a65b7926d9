"""The pytest runs of ``truegreen ablate``: a new process each, or forks of a warm server.

Either way the run is ``python -m pytest`` with truegreen's ``sitecustomize`` shim on
``PYTHONPATH`` and, for an ablated run, ``_TRUEGREEN_MUTANT`` naming the mutant, which the
shim serves from memory in that process and every Python process it starts.

The warm server (:mod:`truegreen.runner.forkserver`) imports pytest and the installed plugins
once, but none of the files the claims ablate: a module imported before the fork would be
the original in every child, whatever the child's import hook serves. It preloads no plugin
that imports a target, and a claim whose target it imported all the same (truegreen's own
start-up modules, say) runs in a new process.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Optional, Union

from truegreen.core.ablation import Run, Verdict, judge, premise, why_run_failed
from truegreen.core.claims import Claim
from truegreen.core.junit import read_junit
from truegreen.core.reports import probe_environment
from truegreen.guards.children import with_shim
from truegreen.guards.mutant import MUTANT_VAR, write_spec
from truegreen.guards.parent import PARENT_VAR
from truegreen.guards.policy import RUN_VAR
from truegreen.runner import forkserver
from truegreen.runner.forkclient import ForkServer
from truegreen.runner.process import PytestProcess
from truegreen.runner.procs import InFlight, Stopped
from truegreen.runner.scratch import sweep

OPTIONS = ("-q", "-p", "no:cacheprovider")
# The guards of a test that runs truegreen ablate belong in each run, not in the server: a
# fork server refuses to start with an audit hook installed.
CHILD_ONLY = (RUN_VAR,)
PREFIX = "truegreen-ablate-"  # then the pid of the process whose folder it is


def environment() -> dict[str, str]:
    """This process's environment (less the report options of ``PYTEST_ADDOPTS``: each run is a
    probe), with the shim that serves a mutant first on PYTHONPATH,
    and this process named as the parent each run dies with (:mod:`truegreen.guards.parent`)."""
    env = probe_environment(os.environ)
    env["PYTHONPATH"] = with_shim(env.get("PYTHONPATH"))
    env[PARENT_VAR] = str(os.getpid())
    return env


class Runner:
    """Runs a claim's tests, ablated or not, within ``timeout`` seconds a run.

    Every run's files (its report, its mutant, pytest's base) are in one temporary folder
    of the runner's, named for this process so that a later start can tell a killed
    runner's folder (:func:`sweep`), and removed by :meth:`close`. :meth:`stop` ends the
    runs in flight and starts no other.
    """

    def __init__(self, timeout: float, server: Optional[ForkServer] = None) -> None:
        self.timeout = timeout
        self.server = server
        self.scratch = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
        self.flight = InFlight()

    @classmethod
    def start(cls, timeout: float, warm: bool, targets: Sequence[str]) -> Runner:
        """A runner; with ``warm`` and where the OS can fork, one that forks a warm server
        that has not imported any of ``targets``. The folders of killed runners go first."""
        sweep(PREFIX)
        if not warm:
            return cls(timeout)
        if not forkserver.available():
            sys.stderr.write("truegreen ablate: --warm needs fork (POSIX); a new process a run\n")
            return cls(timeout)
        env = {k: v for k, v in environment().items() if k not in CHILD_ONLY}
        try:
            server = ForkServer.start(env, OPTIONS, avoid=targets)
        except (RuntimeError, OSError) as exc:
            sys.stderr.write(f"truegreen ablate: no warm server ({exc}); a new process a run\n")
            return cls(timeout)
        return cls(timeout, server)

    def stop(self) -> None:
        """End the runs in flight, each with its whole process tree; start no other."""
        self.flight.stop()

    def close(self) -> None:
        try:
            if self.server is not None:
                self.server.close()
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)

    def forks(self, target: Optional[str]) -> bool:
        """Whether a run ablating ``target`` (None: unablated) is forked by the warm server."""
        if self.server is None:
            return False
        return target is None or os.path.realpath(target) not in self.server.loaded

    def run(self, tests: Sequence[str], mutant: Optional[tuple[str, str]]) -> Run:
        """One pytest run over ``tests``; with ``mutant`` (path, source) it runs ablated."""
        if self.flight.stopped:
            raise Stopped
        with tempfile.TemporaryDirectory(prefix="run-", dir=self.scratch) as tmp:
            report = os.path.join(tmp, "report.xml")
            env = environment()
            # What pytest puts in the temporary directory (the seal's session folder) goes with
            # the run's folder, even when the run is killed before it can remove it.
            env.update(TMPDIR=tmp, TEMP=tmp, TMP=tmp)
            if mutant is not None:
                spec = os.path.join(tmp, "mutant.marshal")
                write_spec(spec, *mutant)
                env[MUTANT_VAR] = spec
            # A base of the run's own: runs side by side never rotate pytest's numbered
            # directories under each other (pytest leaks a scandir iterator when they race).
            basetemp = os.path.join(tmp, "basetemp")
            # The verdict reads each failure's message from the report, never the traceback:
            # one line a failure (an ablated run's failure in full was a fifth of its run).
            args = [*OPTIONS, "--tb=line", f"--basetemp={basetemp}", f"--junitxml={report}",
                    "-o", "junit_family=xunit1", *tests]  # fmt: skip
            server = self.server if self.forks(mutant[0] if mutant else None) else None
            pytest = PytestProcess((), who="truegreen ablate", env=env, server=server)
            done = pytest.call(args, env=env, deadline=time.time() + self.timeout, within=tmp,
                               watch=self.flight)  # fmt: skip
            if done.timed_out:
                return Run(status=-1, timed_out=True)
            tail = why_run_failed(done.output, done.last_line())
            if not os.path.exists(report):
                return Run(status=done.status, tail=tail)
            results = read_junit(report)
            return Run(done.status, tuple(results.failed), results.passed, tail=tail)


@dataclass(frozen=True)
class Outcome:
    claim: Claim
    verdict: Verdict
    seconds: float


# One claim to run: (claim, its tests, the ablated source or the verdict that needs no run).
Item = tuple[Claim, tuple[str, ...], Union[str, Verdict]]


class Ablator:
    """Runs claims: the premise once per set of tests, then each claim's ablated run."""

    def __init__(self, runner: Runner, jobs: int) -> None:
        self.runner = runner
        self.jobs = max(1, jobs)

    def _premise(self, tests: tuple[str, ...]) -> tuple[Optional[Verdict], float]:
        start = time.perf_counter()
        return premise(self.runner.run(tests, None)), time.perf_counter() - start

    def run(self, claims: Sequence[Item]) -> list[Outcome]:
        """Premise runs and ablated runs go to the pool together: with two workers a single
        claim's premise and ablation run side by side, and a failed premise discards the
        ablated verdict."""
        needed = sorted({tests for _, tests, ablated in claims if isinstance(ablated, str)})
        with ThreadPoolExecutor(self.jobs) as pool:
            try:
                return self._run(claims, needed, pool)
            except BaseException:  # a signal (Ctrl-C, SIGTERM): end the runs, start no other
                self.runner.stop()
                pool.shutdown(wait=True, cancel_futures=True)
                raise

    def _run(
        self,
        claims: Sequence[Item],
        needed: Sequence[tuple[str, ...]],
        pool: ThreadPoolExecutor,
    ) -> list[Outcome]:
        premises = {tests: pool.submit(self._premise, tests) for tests in needed}
        runs = [
            pool.submit(self._ablated, claim, tests, ablated) if isinstance(ablated, str) else None
            for claim, tests, ablated in claims
        ]
        outcomes = []
        for (claim, tests, ablated), future in zip(claims, runs):
            if isinstance(ablated, Verdict):
                outcome = Outcome(claim, ablated, 0.0)
            else:
                assert future is not None
                failed, premise_seconds = premises[tests].result()
                verdict, seconds = future.result()
                outcome = Outcome(claim, failed or verdict, seconds + premise_seconds)
            sys.stderr.write(
                f"truegreen ablate: {claim.test}: {outcome.verdict.verdict} "
                f"({outcome.seconds:.1f}s)\n"
            )
            outcomes.append(outcome)
        return outcomes

    def _ablated(self, claim: Claim, tests: tuple[str, ...], mutated: str) -> tuple[Verdict, float]:
        start = time.perf_counter()
        verdict = judge(self.runner.run(tests, (claim.path, mutated)))
        return verdict, time.perf_counter() - start
