"""Overhead of the hermetic environment: 2,000 small tests, plugin on vs -p no:truegreen.

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
    "hermetic environment": [
        "--truegreen-set",
        "writes=off",
        "--truegreen-set",
        "reads=off",
        "--truegreen-set",
        "network=allow",
    ],
    "plugin defaults (with the guards)": [],
}


def make_suite(root: Path, tests: int) -> None:
    """``tests`` small tests: arithmetic, a dict, a string, spread over files of PER_FILE."""
    for index in range(tests // PER_FILE):
        body = [
            f"def test_{index}_{n}():\n    assert {n} + 1 == {n + 1}\n" for n in range(PER_FILE)
        ]
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
        ],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
