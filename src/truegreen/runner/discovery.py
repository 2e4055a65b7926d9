"""The tracing run of ``truegreen ablate --discover``: one pytest run over the selected
tests with :mod:`truegreen.plugin.discovery` loaded, read back as what each passing test
caught (:class:`truegreen.core.discovery.Caught`)."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

from truegreen.core.discovery import Caught, Frame
from truegreen.core.errors import UsageError
from truegreen.runner.process import PytestProcess

TRACER = "truegreen.plugin.discovery"


@dataclass(frozen=True)
class Trace:
    passed: int  # tests that passed
    caught: tuple[Caught, ...]
    seconds: float
    method: str  # sys.monitoring or sys.settrace


def trace(paths: Sequence[str], timeout: float, *, settrace: bool = False) -> Trace:
    """Run the tests of ``paths`` once, tracing (with ``settrace``, by ``sys.settrace`` even
    where ``sys.monitoring`` is); a :class:`UsageError` when the run says nothing (it did not
    start, timed out, or passed no test)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="truegreen-discover-") as tmp:
        out = os.path.join(tmp, "trace.json")
        pytest = PytestProcess(paths, who="truegreen ablate --discover", one_process=True)
        args = pytest.argv(["-q", "-p", "no:cacheprovider", f"--basetemp={tmp}/basetemp",
                            "-p", TRACER, f"--truegreen-discover-out={out}"],
                           pytest._one())  # fmt: skip
        if settrace:
            args.insert(0, "--truegreen-discover-method=settrace")
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
