"""The tracing run of ``truegreen ablate --discover``: one pytest run over the selected
tests with :mod:`truegreen.plugin.discovery` loaded, read back as what each passing test
caught (:class:`truegreen.core.discovery.Caught`)."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from truegreen.core.ablation import BROKEN, KILLED, PREMISE_FAILED, SURVIVED, TIMEOUT, Verdict
from truegreen.core.claims import Claim
from truegreen.core.discovery import Caught, Frame
from truegreen.core.errors import UsageError
from truegreen.guards.mutant import MUTANT_VAR, write_spec
from truegreen.runner.ablation import OPTIONS, Runner, environment
from truegreen.runner.process import PytestProcess
from truegreen.runner.procs import Stopped

TRACER = "truegreen.plugin.discovery"


@dataclass(frozen=True)
class Trace:
    passed: int  # tests that passed
    caught: tuple[Caught, ...]
    seconds: float
    method: str  # sys.monitoring, sys.settrace, raises contexts, or several with their counts


def trace(paths: Sequence[str], timeout: float, *, method: str = "auto") -> Trace:
    """Run the tests of ``paths`` once, tracing (``method``: ``auto``, or for tests
    ``settrace``, every test by ``sys.settrace``, or ``contexts``, the raises contexts where
    they suffice and ``sys.settrace`` elsewhere, as below 3.12); a :class:`UsageError` when
    the run says nothing (it did not start, timed out, or passed no test)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="truegreen-discover-") as tmp:
        out = os.path.join(tmp, "trace.json")
        pytest = PytestProcess(paths, who="truegreen ablate --discover", one_process=True)
        args = pytest.argv(["-q", "-p", "no:cacheprovider", f"--basetemp={tmp}/basetemp",
                            "-p", TRACER, f"--truegreen-discover-out={out}"],
                           pytest._one())  # fmt: skip
        if method != "auto":
            args.insert(0, f"--truegreen-discover-method={method}")
        done = pytest.call(args, deadline=time.time() + timeout, everything=True)
        if done.timed_out:
            raise UsageError(
                f"truegreen ablate --discover: expected the tracing run to end within "
                f"{timeout:g}s (--run-timeout), found it still running"
            )
        if not os.path.exists(out):
            raise UsageError(
                "truegreen ablate --discover: expected the tracing run to report, found exit "
                f"{done.status}: {done.last_line()}"
            )
        with open(out, encoding="utf-8") as handle:
            document = json.load(handle)
        if not document["passed"]:
            raise UsageError(
                "truegreen ablate --discover: expected the tracing run to pass at least one "
                f"test, found none (exit {done.status}): {done.last_line()}"
            )
    caught = tuple(
        Caught(entry["test"], one["type"], tuple(Frame(*frame) for frame in one["frames"]))
        for entry in document["tests"]
        for one in entry["caught"]
    )
    return Trace(document["passed"], caught, time.perf_counter() - start, document["method"])


# -- batches: many claims in one pytest process ----------------------------------------

BATCH_PLUGIN = "truegreen.plugin.ablatebatch"
# An ablated run may loop where the test returned: its test's call gets CPU_SLOW times the
# CPU of the unablated call and CPU_GRACE seconds more (a loop), the whole run SLOW times the
# unablated run's wall time and GRACE seconds more (code that waits), within --run-timeout;
# then it is a timeout.
SLOW, GRACE = 10, 1.0
CPU_SLOW, CPU_GRACE = 3, 0.25


def _verdict(entry: dict[str, Any]) -> Verdict:
    result, why = entry["result"], entry.get("why", "")
    if result == "failed":
        return Verdict(KILLED, why, ((entry["test"], why),))
    if result == "passed":
        return Verdict(SURVIVED, "every test passed with the gate gone: the test cannot see it")
    if result == "timeout":
        detail = "the ablated run did not finish in time"
        return Verdict(TIMEOUT, f"{detail}: {why}" if why else detail)
    if result == "premise":
        return Verdict(PREMISE_FAILED, f"the test does not pass unablated in the batch: {why}")
    return Verdict(BROKEN, f"the test was skipped ablated ({why})")


Numbered = tuple[int, int, Claim]  # a claim's number, its anchor's switch, the claim


def _split(claims: Sequence[Numbered], jobs: int) -> list[list[Numbered]]:
    """The claims in ``jobs`` batches of about as many claims, each test's in one (its
    premise runs once). A file's tests are spread over the batches: the cases of one
    parametrized test often cost alike, a whole file's claims seldom as much as another's."""
    by_test: dict[str, list[Numbered]] = {}
    for number, switched, claim in claims:
        by_test.setdefault(claim.test, []).append((number, switched, claim))
    batches: list[list[Numbered]] = [[] for _ in range(max(1, jobs))]
    for group in sorted(by_test.values(), key=len, reverse=True):
        min(batches, key=len).extend(group)
    return [b for b in batches if b]


def _batch(
    runner: Runner, claims: list[Numbered], files: dict[str, str]
) -> dict[int, tuple[Verdict, float]]:
    """The verdicts of one batch's claims: one pytest run, and another for the claims it
    did not reach when it ended early (a claim out of time, a crash), for as long as each
    run decides at least one."""
    verdicts: dict[int, tuple[Verdict, float]] = {}
    left = list(claims)
    while left:
        entries, status, tail = _batch_run(runner, left, files)
        decided = {e["n"]: e for e in entries if e["result"] != "started"}
        started = [e["n"] for e in entries if e["result"] == "started"]
        test = {n: c.test for n, _, c in left}
        for number, entry in decided.items():
            verdicts[number] = (_verdict({**entry, "test": test[number]}), entry.get("seconds", 0))
        for number in started:
            if number not in decided:  # the process ended while this claim ran
                why = f"the run ended (exit {status}) with the gate gone: {tail}"
                verdicts[number] = (Verdict(BROKEN, why), 0.0)
        rest = [claim for claim in left if claim[0] not in verdicts]
        if len(rest) == len(left):  # nothing decided: no other run would do better
            for number, _, _ in rest:
                why = f"the test did not run in the batch (exit {status}): {tail}"
                verdicts[number] = (Verdict(BROKEN, why), 0.0)
            break
        left = rest
    return verdicts


def _batch_run(
    runner: Runner, claims: list[Numbered], files: dict[str, str]
) -> tuple[list[dict[str, Any]], int, str]:
    """One pytest run of a batch: the lines of its results file, its exit status, its
    last line of output."""
    if runner.flight.stopped:
        raise Stopped
    with tempfile.TemporaryDirectory(prefix="batch-", dir=runner.scratch) as tmp:
        results, plan = os.path.join(tmp, "results.jsonl"), os.path.join(tmp, "plan.json")
        with open(plan, "w", encoding="utf-8") as handle:
            json.dump({"timeout": runner.timeout, "results": results, "limit": [SLOW, GRACE],
                       "cpu": [CPU_SLOW, CPU_GRACE],
                       "claims": [[n, s, c.test] for n, s, c in claims]}, handle)  # fmt: skip
        targets = sorted({c.path for _, _, c in claims})
        env = environment()
        env.update(TMPDIR=tmp, TEMP=tmp, TMP=tmp)
        spec = os.path.join(tmp, "mutant.marshal")
        first, *more = targets
        write_spec(spec, first, files[first], {p: files[p] for p in more})
        env[MUTANT_VAR] = spec
        tests = list(dict.fromkeys(c.test for _, _, c in claims))
        # --tb=line: a failure's report reads no source (pytest parses each traceback
        # entry's file for the long form: most of a batch's time where claims are killed)
        args = [*OPTIONS, "--tb=line", f"--basetemp={tmp}/basetemp", "-p", BATCH_PLUGIN,
                f"--truegreen-batch={plan}", *tests]  # fmt: skip
        server = runner.server if all(runner.forks(t) for t in targets) else None
        pytest = PytestProcess((), who="truegreen ablate --discover", env=env, server=server)
        # each claim has its own deadline in the run; this one is for a run stuck in C code
        deadline = time.time() + runner.timeout * (len(claims) + 1)
        done = pytest.call(args, env=env, deadline=deadline, within=tmp, watch=runner.flight)
        entries = []
        if os.path.exists(results):
            with open(results, encoding="utf-8") as handle:
                for line in handle:
                    try:
                        entries.append(json.loads(line))
                    except ValueError:  # the last line, cut short
                        break
        return entries, done.status, done.last_line()


def run_batches(
    runner: Runner, claims: Sequence[Numbered], files: dict[str, str], jobs: int
) -> dict[int, tuple[Verdict, float]]:
    """The verdicts of ``claims`` (number, switch, claim: the switch of its anchor in
    ``files``, the switched sources of their targets), in ``jobs`` batches side by side."""
    verdicts: dict[int, tuple[Verdict, float]] = {}
    batches = _split(claims, jobs)
    with ThreadPoolExecutor(max(1, len(batches))) as pool:
        try:
            for found in pool.map(lambda b: _batch(runner, b, files), batches):
                verdicts.update(found)
        except BaseException:
            runner.stop()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return verdicts
