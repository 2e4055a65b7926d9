"""The hunters: truegreen leaks (1 culprit among 200 variables) and truegreen flakes
(against detect-test-pollution on the same victim, and on a brittle test).

A 100-test suite (10 files of 10) in which one test reads one variable of 200 the shell sets;
the home is empty and the zone and locale are those the sealed run uses, so the 200 variables
are the only factors. Each round puts the culprit at another place in the list. Side by side,
alternating, in one invocation: ``truegreen leaks`` and one plain pytest run of the same
suite. Target: reruns <= 2 * log2(200) + 4 (about 19). Then the flakes comparison of
``bench/hunters_flakes.py`` (also runnable alone): fewer runs than detect-test-pollution on a
victim, and the brittle test's state-setter found, which detect-test-pollution cannot.

    python bench/hunters.py [--rounds 5] [--seed 1] [--flakes-trials 3] [--only leaks|flakes]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

from hunters_flakes import flakes_vs_detect_test_pollution
from measure import _execute

FILES, PER_FILE, VARIABLES = 10, 10, 200


def make_suite(root: Path, culprit: str) -> None:
    for f in range(FILES):
        tests = [f"def test_{n}():\n    assert sum(range({n})) >= 0\n" for n in range(PER_FILE)]
        if f == FILES // 2:
            tests[0] = f"def test_0():\n    assert os.environ.get({culprit!r}) is None\n"
        (root / f"test_m{f:02}.py").write_text("import os\n\n\n" + "\n\n".join(tests))


def machine(home: Path) -> dict[str, str]:
    """The shell: PATH, an empty home, UTC and C.UTF-8, and 200 variables."""
    env = {f"BENCH_VAR_{i:03}": f"value-{i}" for i in range(VARIABLES)}
    env.update(PATH=os.environ["PATH"], HOME=str(home), TZ="UTC", LANG="C.UTF-8")
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--flakes-trials", type=int, default=3)
    parser.add_argument("--only", choices=("leaks", "flakes"))
    args = parser.parse_args()
    if args.only != "flakes":
        leaks_reruns(args.rounds, args.seed)
    if args.only != "leaks":
        print()
        flakes_vs_detect_test_pollution(trials=args.flakes_trials, seed=args.seed)
    return 0


def leaks_reruns(rounds: int, seed: int) -> None:
    """The leaks half: reruns against the bound, time against one plain run."""
    places = random.Random(seed).sample(range(VARIABLES), rounds)
    leaks = [sys.executable, "-m", "truegreen", "leaks", "--format", "json", "--",
             "-q", "-p", "no:cacheprovider"]  # fmt: skip
    plain = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    reruns: list[int] = []
    timings: dict[str, list[tuple[float, float]]] = {"leaks": [], "plain": []}
    for place in places:
        culprit = f"BENCH_VAR_{place:03}"
        with tempfile.TemporaryDirectory(prefix="tg-hunters-bench-") as tmp:
            root, home = Path(tmp) / "suite", Path(tmp) / "home"
            root.mkdir()
            home.mkdir()
            make_suite(root, culprit)
            env = machine(home)
            _execute(plain, root, env, expect=1)  # warm bytecode caches, prove the leak shows
            done, wall, cpu = _execute(leaks, root, env, expect=1)
            report = json.loads(done.stdout)
            found = [c["name"] for leak in report["leaks"] for c in leak["culprit"] or ()]
            if found != [culprit] or report["factors"] != VARIABLES:
                raise SystemExit(f"expected {culprit} among {VARIABLES}, found {report}")
            reruns.append(report["reruns"])
            timings["leaks"].append((wall, cpu))
            _, wall, cpu = _execute(plain, root, env, expect=1)
            timings["plain"].append((wall, cpu))
    bound = 2 * math.log2(VARIABLES) + 4
    wall = {name: statistics.median(w for w, _ in runs) for name, runs in timings.items()}
    cpu = {name: statistics.median(c for _, c in runs) for name, runs in timings.items()}
    print(f"{FILES * PER_FILE} tests, 1 culprit among {VARIABLES} variables, "
          f"rounds: {rounds} (culprit at {', '.join(map(str, places))}; medians)")  # fmt: skip
    print(f"reruns: {', '.join(map(str, reruns))}; worst {max(reruns)}, bound {bound:.1f}, "
          f"ratio worst / bound {max(reruns) / bound:.3f} (target <= 1)")  # fmt: skip
    print(f"reruns against one factor at a time ({VARIABLES}): "
          f"{max(reruns) / VARIABLES:.3f}")  # fmt: skip
    for name, label in (("leaks", "truegreen leaks"), ("plain", "one plain pytest run")):
        print(f"{label + ':':<24} wall {wall[name]:.3f}s  cpu {cpu[name]:.3f}s")
    print(f"ratio leaks / one run: wall {wall['leaks'] / wall['plain']:.2f}, "
          f"cpu {cpu['leaks'] / cpu['plain']:.2f}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
