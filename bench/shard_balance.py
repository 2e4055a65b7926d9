"""Shard balance and stability on recorded durations (no test runs, no sleeping).

Three shapes of >= 2,000 tests (log-normal; a heavy tail of slow tests; whole slow
modules), N in {2, 4, 8, 16}: slowest shard / mean shard and slowest shard / floor for
digest mode, duration mode and pytest-split's ``least_duration`` on the same data, and the
fraction of existing tests that move to another shard when 1% more tests are added.
Targets: duration mode within 2% of the floor and never worse than pytest-split; fewer
than 10% of tests move; digest mode moves none. Needs pytest-split (the ``bench`` extra).

    python bench/shard_balance.py [--tests 2000] [--seeds 3]
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass

from pytest_split.algorithms import Algorithms

from truegreen.core.shards import assign_by_digest, assign_by_duration, moved, plan

SHAPES = ("log-normal", "heavy tail", "slow modules")


def suite(rng: random.Random, size: int, shape: str, prefix: str = "t") -> dict[str, float]:
    tests = {}
    for i in range(size):
        if shape == "log-normal":
            seconds = rng.lognormvariate(-2, 1)
        elif shape == "heavy tail":
            seconds = rng.uniform(2, 20) if rng.random() < 0.02 else rng.lognormvariate(-3, 0.5)
        else:
            module = i // 20
            seconds = rng.uniform(0.5, 2) if module % 25 == 0 else rng.lognormvariate(-3, 0.5)
        tests[f"tests/{prefix}_m{i // 20:03}.py::test_{i}"] = seconds
    return tests


@dataclass
class Item:
    """What pytest-split's algorithm reads of a pytest item."""

    nodeid: str


def pytest_split(durations: dict[str, float], n: int) -> dict[str, int]:
    groups = Algorithms.least_duration.value(n, [Item(t) for t in durations], durations)
    return {item.nodeid: k for k, group in enumerate(groups) for item in group.selected}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.tests} tests, worst of {args.seeds} seeds; imbalance = slowest / floor "
          "(floor = max(mean shard, largest unit)); moved = share of tests that change shard "
          "when 1% are added")  # fmt: skip
    header = f"{'shape':<13}{'N':>3}  {'digest':>7} {'ours':>7} {'split':>7}"
    print(header + f"  {'moved ours':>10} {'moved split':>11} {'moved digest':>12}")
    worst = {"ours": 0.0, "behind split": 0.0, "moved ours": 0.0, "moved digest": 0.0}
    for shape in SHAPES:
        for n in (2, 4, 8, 16):
            row = {"digest": 0.0, "ours": 0.0, "split": 0.0, "m_ours": 0.0, "m_split": 0.0,
                   "m_digest": 0.0}  # fmt: skip
            for seed in range(args.seeds):
                rng = random.Random(seed)
                base = suite(rng, args.tests, shape)
                grown = {**base, **suite(rng, args.tests // 100, shape, prefix="new")}
                ours, ours2 = assign_by_duration(base, n), assign_by_duration(grown, n)
                digest, digest2 = assign_by_digest(base, n), assign_by_digest(grown, n)
                split, split2 = pytest_split(base, n), pytest_split(grown, n)
                imbalance = {
                    "digest": plan(digest, base, n).imbalance,
                    "ours": ours.imbalance,
                    "split": plan(split, base, n).imbalance,
                }
                for key, value in imbalance.items():
                    row[key] = max(row[key], value)
                worst["behind split"] = max(
                    worst["behind split"], imbalance["ours"] - imbalance["split"]
                )
                row["m_ours"] = max(row["m_ours"], moved(ours.shard_of, ours2.shard_of) / len(base))
                row["m_split"] = max(row["m_split"], moved(split, split2) / len(base))
                row["m_digest"] = max(row["m_digest"], moved(digest, digest2) / len(base))
            worst["ours"] = max(worst["ours"], row["ours"])
            worst["moved ours"] = max(worst["moved ours"], row["m_ours"])
            worst["moved digest"] = max(worst["moved digest"], row["m_digest"])
            print(
                f"{shape:<13}{n:>3}  {row['digest']:>7.3f} {row['ours']:>7.3f} "
                f"{row['split']:>7.3f}  {row['m_ours']:>10.1%} {row['m_split']:>11.1%} "
                f"{row['m_digest']:>12.1%}"
            )
    print(
        f"worst: duration mode {worst['ours']:.3f} of the floor (target <= 1.020); "
        f"at most {worst['behind split']:+.3f} against pytest-split (target <= 0); "
        f"moved {worst['moved ours']:.1%} (target < 10%); digest moved "
        f"{worst['moved digest']:.1%} (target 0%)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
