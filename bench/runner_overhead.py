"""The sealed runner and the event stream against plain pytest and pytest-xdist.

A 40-file suite (25 small tests a file, a little file I/O and arithmetic). Side by side,
alternating, in one invocation: plain pytest; ``pytest -n 2``; ``truegreen run
--isolate-files -j 2`` with its fork server and with ``--no-fork-server`` (a new process per
file); and plain pytest with ``--truegreen-metrics``. Targets: the isolated runner <= 1.25x
xdist; recording the stream <= 1.05x plain. Both differences are within the noise of a
few rounds on a shared machine, so xdist and the isolated runner also run ``--pair-rounds``
more times, alternating, on their own, and metrics on and off ``--metrics-rounds`` times
(and once each under callgrind with ``--callgrind``).

    python bench/runner_overhead.py [--rounds 5] [--pair-rounds 12] [--metrics-rounds 20]
                                    [--callgrind] [--temproot DIR]

``--temproot DIR`` puts pytest's temporary directories under DIR (``PYTEST_DEBUG_TEMPROOT``),
e.g. a tmpfs, to tell the cost of the disk from the cost of the processes: every pytest
session creates, locks and rotates a numbered directory there.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from measure import compare, environment, print_ratios, timed

FILES, PER_FILE = 40, 25


def make_suite(root: Path) -> None:
    for f in range(FILES):
        tests = [
            f"def test_{n}(tmp_path):\n    (tmp_path / 'x').write_text('{n}')\n"
            f"    assert sum(range({n} * 10)) >= 0\n"
            for n in range(PER_FILE)
        ]
        (root / f"test_m{f:02}.py").write_text("\n\n".join(tests))
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pair-rounds", type=int, default=12,
                        help="alternating rounds of xdist and isolated alone")  # fmt: skip
    parser.add_argument("--metrics-rounds", type=int, default=20,
                        help="alternating rounds of metrics on and off alone")  # fmt: skip
    parser.add_argument("--callgrind", action="store_true",
                        help="also count instructions for metrics on vs off")  # fmt: skip
    parser.add_argument("--temproot", metavar="DIR", help="pytest's temporary root")
    args = parser.parse_args()
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    run = [sys.executable, "-m", "truegreen", "run"]
    env = environment()
    if args.temproot:
        env["PYTEST_DEBUG_TEMPROOT"] = args.temproot
        run += ["--keep-env", "PYTEST_DEBUG_TEMPROOT"]
    with tempfile.TemporaryDirectory(prefix="tg-runner-bench-") as tmp:
        root = Path(tmp)
        make_suite(root)
        configs = {
            "plain pytest": pytest,
            "pytest -n 2 (xdist)": [*pytest, "-n", "2"],
            "truegreen run --isolate-files -j 2": [*run, "--isolate-files", "-j", "2", "--",
                                                   "-q", "-p", "no:cacheprovider"],
            "... --no-fork-server": [*run, "--isolate-files", "-j", "2", "--no-fork-server",
                                     "--", "-q", "-p", "no:cacheprovider"],
            "plain pytest, metrics on": [*pytest, f"--truegreen-metrics={root / 'metrics'}"],
        }  # fmt: skip
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
        for argv in configs.values():
            timed(argv, root, env)
        for _ in range(args.rounds):
            for name, argv in configs.items():
                results[name].append(timed(argv, root, env))
        iso, xd = "truegreen run --isolate-files -j 2", "pytest -n 2 (xdist)"
        pairs: dict[str, list[tuple[float, float]]] = {xd: [], iso: []}
        for _ in range(args.pair_rounds):
            for name in pairs:
                pairs[name].append(timed(configs[name], root, env))
        alone = {"metrics off": [], "metrics on": [f"--truegreen-metrics={root / 'metrics'}"]}
        metrics = compare(root, alone, rounds=args.metrics_rounds, callgrind=args.callgrind)
    wall = {n: statistics.median(w for w, _ in r) for n, r in results.items()}
    cpu = {n: statistics.median(c for _, c in r) for n, r in results.items()}
    print(f"{FILES} files x {PER_FILE} tests, rounds: {args.rounds} (medians)")
    for name in configs:
        print(f"{name + ':':<38} wall {wall[name]:.3f}s  cpu {cpu[name]:.3f}s")
    print(f"ratio isolated / xdist: wall {wall[iso] / wall[xd]:.3f}, cpu {cpu[iso] / cpu[xd]:.3f}"
          " (target <= 1.25)")  # fmt: skip
    new = "... --no-fork-server"
    print(f"ratio new process per file / xdist: wall {wall[new] / wall[xd]:.3f}, "
          f"cpu {cpu[new] / cpu[xd]:.3f}")  # fmt: skip
    on, off = "plain pytest, metrics on", "plain pytest"
    print(f"ratio metrics on / off: wall {wall[on] / wall[off]:.3f}, cpu {cpu[on] / cpu[off]:.3f}"
          " (target <= 1.05)")  # fmt: skip
    if args.pair_rounds:
        pair_wall = {n: statistics.median(w for w, _ in r) for n, r in pairs.items()}
        pair_cpu = {n: statistics.median(c for _, c in r) for n, r in pairs.items()}
        print(f"xdist and isolated alone, {args.pair_rounds} rounds (medians): ratio wall "
              f"{pair_wall[iso] / pair_wall[xd]:.3f}, cpu {pair_cpu[iso] / pair_cpu[xd]:.3f} "
              "(target <= 1.25)")  # fmt: skip
    print(f"metrics on and off alone, {args.metrics_rounds} rounds (medians):")
    print_ratios(metrics, [("metrics on", "metrics off", "<= 1.05")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
