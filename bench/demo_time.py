"""What ``truegreen demo`` costs: every section at once (the default) against one at a time.

Each round runs ``truegreen demo`` and ``truegreen demo -j 1`` one after the other (the order
alternates), from an empty working directory, and takes the wall-clock and the CPU seconds of
the command and all its children. The ratio says what playing the sections side by side
saves; the first figure is what a newcomer waits. Target: the default under 30 s of wall-clock
on a loaded 2-core machine.

    python bench/demo_time.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from measure import environment, timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    demo = [sys.executable, "-m", "truegreen", "demo"]
    configs = {"truegreen demo (all at once)": demo, "truegreen demo -j 1": [*demo, "-j", "1"]}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
    with tempfile.TemporaryDirectory(prefix="tg-demo-bench-") as tmp:
        for round_ in range(args.rounds):
            names = list(configs) if round_ % 2 == 0 else list(reversed(configs))
            for name in names:
                runs[name].append(timed(configs[name], Path(tmp), environment()))
                wall, cpu = runs[name][-1]
                print(f"  round {round_ + 1}: {name}: wall {wall:.1f}s, cpu {cpu:.1f}s",
                      file=sys.stderr)  # fmt: skip
    print(f"rounds: {args.rounds} (medians; each figure is the command and all its children)")
    medians = {
        name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
        for name, r in runs.items()
    }
    for name, (wall, cpu) in medians.items():
        print(f"  {name + ':':<32} wall {wall:6.1f}s  cpu {cpu:6.1f}s")
    (_, (aw, ac)), (_, (sw, sc)) = medians.items()
    print(f"  ratio all at once / one at a time: wall {aw / sw:.2f}, cpu {ac / sc:.2f}")
    print(f"  target: all at once under 30 s of wall-clock: {'met' if aw < 30 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
