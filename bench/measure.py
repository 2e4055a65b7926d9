"""Shared by the benchmarks: run pytest once in a directory and say what it cost.

Wall-clock and CPU seconds are noisy on shared machines; ``valgrind --tool=callgrind``
counts the instructions the pytest process executes in user space, which repeats to a
fraction of a percent whatever else the machine is doing (system calls, such as creating a
directory, are not in that count).
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Optional, Union

_COLLECTED = re.compile(r"Collected : (\d+)")


def environment() -> dict[str, str]:
    """The environment runs are measured in: no pytest or truegreen settings, and bytecode
    caching on (an installed package has its .pyc; compiling every module from source on
    every run would weigh the larger plugin down)."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "TRUEGREEN_")) and k != "PYTHONDONTWRITEBYTECODE"
    }


def _execute(
    argv: list[str],
    root: Path,
    env: Optional[Mapping[str, str]] = None,
    expect: Union[int, tuple[int, ...]] = 0,
) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run a command that must exit ``expect`` (a status or a tuple of them) in ``env`` (or
    :func:`environment`); (its result, wall seconds, CPU seconds with children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        argv,
        cwd=root,
        env=dict(env) if env is not None else environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (expect if isinstance(expect, tuple) else (expect,)):
        raise SystemExit(f"{argv} failed ({done.returncode}):\n{done.stdout[-3000:]}")
    return done, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed(
    argv: list[str], root: Path, env: Optional[Mapping[str, str]] = None
) -> tuple[float, float]:
    """(wall, CPU seconds of the command and its children) of one run that must succeed."""
    _, wall, cpu = _execute(argv, root, env)
    return wall, cpu


def timed_status(
    argv: list[str], root: Path, env: Mapping[str, str], expect: tuple[int, ...]
) -> tuple[float, float]:
    """:func:`timed` for a command whose success is any of the ``expect`` statuses (a linter
    that exits 1 on findings)."""
    _, wall, cpu = _execute(argv, root, env, expect)
    return wall, cpu


def instructions(
    argv: list[str], root: Path, env: Mapping[str, str], expect: tuple[int, ...] = (0,)
) -> float:
    """The instructions one run of a command executes in user space, counted by callgrind
    with ``PYTHONHASHSEED=0``, which makes the count repeat exactly between runs."""
    counted = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
    done, _, _ = _execute(counted, root, {**env, "PYTHONHASHSEED": "0"}, expect)
    found = _COLLECTED.search(done.stderr)
    return float(found.group(1)) if found else float("nan")


def run_pytest(
    root: Path,
    extra: list[str],
    *,
    callgrind: bool = False,
    env_extra: Optional[Mapping[str, str]] = None,
) -> dict[str, float]:
    """One pytest run in ``root``: wall and cpu seconds, and instructions under callgrind.

    Each run gets a fresh ``--basetemp``: pytest otherwise deletes the oldest of its numbered
    temporary directories in whichever run comes next, so one configuration would pay for
    removing another's files. Under callgrind, hash randomisation is off (it moves the count).
    """
    import tempfile

    env = {**environment(), **(env_extra or {})}
    with tempfile.TemporaryDirectory(prefix="tg-bench-") as scratch:
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        argv += [f"--basetemp={scratch}{os.sep}base", *extra]
        if callgrind:
            argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
            env["PYTHONHASHSEED"] = "0"
        done, wall, cpu = _execute(argv, root, env)
    result = {"wall": wall, "cpu": cpu}
    found: Optional[re.Match[str]] = _COLLECTED.search(done.stderr) if callgrind else None
    if found:
        result["instructions"] = float(found.group(1))
    return result


def compare(
    root: Path,
    configs: dict[str, list[str]],
    *,
    rounds: int,
    callgrind: bool,
    envs: Optional[Mapping[str, Mapping[str, str]]] = None,
) -> dict[str, dict[str, float]]:
    """Run every configuration ``rounds`` times, alternating; medians per configuration.

    With ``callgrind``, each configuration also runs once under callgrind. ``envs`` adds
    variables to some configurations' environment (see :func:`run_pytest`).
    """
    import statistics

    envs = envs or {}
    for name, extra in configs.items():
        run_pytest(root, extra, env_extra=envs.get(name))  # warm caches, prove it passes
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in configs}
    for _ in range(rounds):
        for name, extra in configs.items():
            runs[name].append(run_pytest(root, extra, env_extra=envs.get(name)))
    medians = {
        name: {key: statistics.median(r[key] for r in found) for key in ("wall", "cpu")}
        for name, found in runs.items()
    }
    if callgrind:
        for name, extra in configs.items():
            counted = run_pytest(root, extra, callgrind=True, env_extra=envs.get(name))
            medians[name]["instructions"] = counted.get("instructions", float("nan"))
    return medians


def print_ratios(medians: dict[str, dict[str, float]], pairs: list[tuple[str, str, str]]) -> None:
    """Each configuration's medians, then each (top, bottom, target) ratio by every measure."""
    for name, values in medians.items():
        cells = [f"{key} {value:.3f}s" for key, value in values.items() if key != "instructions"]
        if "instructions" in values:
            cells.append(f"instructions {values['instructions'] / 1e9:.3f}e9")
        print(f"{name + ':':<36} " + "  ".join(cells))
    for top, bottom, target in pairs:
        ratios = ", ".join(
            f"{key} {medians[top][key] / medians[bottom][key]:.3f}" for key in medians[top]
        )
        print(f"ratio {top} / {bottom}: {ratios}  (target {target})")
