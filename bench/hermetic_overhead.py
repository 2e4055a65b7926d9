"""Overhead of the hermetic environment: 2,000 small tests, plugin on vs -p no:truegreen.

The seal's own cost (both layers: the whole process from before the first conftest, then each
test) is the hermetic environment against the plugin with the seal and the guards off, printed
as a difference in CPU milliseconds over the run and microseconds a test: with ``--tests 1``
the difference is the seal's start-up cost, with 2,000 its cost a test.

The configurations run side by side, alternating, in one invocation (the machines are shared
and noisy); the figures are ratios of median CPU and wall-clock times. The hermetic
environment alone (guards off) has the target <= 1.10; the plugin's defaults, guards
included, are shown beside it (bench/guard_overhead.py measures the guards on a suite that
does real work).

    python bench/hermetic_overhead.py [--tests 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from measure import compare, print_ratios

PER_FILE = 20
CONFIGS = {
    "plain": ["-p", "no:truegreen"],
    "plugin, seal and guards off": [
        *("--truegreen-set", "hermetic=false", "--truegreen-set", "writes=off"),
        *("--truegreen-set", "reads=off", "--truegreen-set", "network=allow"),
    ],
    "hermetic environment": [
        *("--truegreen-set", "writes=off", "--truegreen-set", "reads=off"),
        *("--truegreen-set", "network=allow"),
    ],
    "plugin defaults (with the guards)": [],
}


def make_suite(root: Path, tests: int) -> None:
    """``tests`` small tests: arithmetic, a dict, a string, spread over files of PER_FILE."""
    for index in range((tests + PER_FILE - 1) // PER_FILE):
        count = min(PER_FILE, tests - index * PER_FILE)
        body = [f"def test_{index}_{n}():\n    assert {n} + 1 == {n + 1}\n" for n in range(count)]
        (root / f"test_m{index:04}.py").write_text("\n\n".join(body))
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true", help="also count instructions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tg-bench-") as tmp:
        root = Path(tmp)
        make_suite(root, args.tests)
        medians = compare(root, CONFIGS, rounds=args.rounds, callgrind=args.callgrind)
    print(f"tests: {args.tests}, rounds: {args.rounds} (medians)")
    print_ratios(
        medians,
        [
            ("hermetic environment", "plain", "<= 1.10"),
            ("plugin defaults (with the guards)", "plain", "-"),
            ("hermetic environment", "plugin, seal and guards off", "-"),
        ],
    )
    sealed, unsealed = medians["hermetic environment"], medians["plugin, seal and guards off"]
    seal = sealed["cpu"] - unsealed["cpu"]
    line = (
        f"the seal's cost (both layers): {seal * 1e3:+.1f} ms CPU over the run, "
        f"{seal / args.tests * 1e6:+.1f} µs a test"
    )
    if "instructions" in sealed:
        more = sealed["instructions"] - unsealed["instructions"]
        line += f"; {more / 1e6:+.1f}M instructions, {more / args.tests / 1e3:+.1f}k a test"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
