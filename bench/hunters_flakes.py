"""truegreen flakes against detect-test-pollution, on the same victim: pytest runs and time.

A suite of 200 small tests in 10 files holds one polluter and its victim, and one
state-setter and its brittle test, each placed at random (from ``--seed``). Side by side, for
each trial:

- ``detect-test-pollution --failing-test VICTIM`` and ``truegreen flakes --runs 0 --victim
  VICTIM``: both told the victim, both bisect for its polluter;
- the same two told the brittle test, whose state-setter detect-test-pollution cannot look for
  (it stops when the test fails alone);
- ``truegreen flakes --runs 4``, told nothing, finding both.

pytest runs are counted by a conftest hook in the suite (every pytest process but xdist
workers), the same way for both tools. Target: fewer runs than detect-test-pollution on the
victim, and the brittle test's setter found.

    python bench/hunters_flakes.py [--tests 200] [--trials 3] [--seed 1]

``bench/hunters.py`` calls :func:`flakes_vs_detect_test_pollution`.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from measure import environment

PER_FILE = 20
DTP_VICTIM = "detect-test-pollution, victim"
OURS_VICTIM = "truegreen flakes --runs 0, victim"
DTP_BRITTLE = "detect-test-pollution, brittle"
OURS_BRITTLE = "truegreen flakes --runs 0, brittle"
OURS_TOLD_NOTHING = "truegreen flakes --runs 4 (told nothing)"
COUNTER = """
import os


def pytest_configure(config):
    path = os.environ.get("BENCH_PYTEST_RUNS")
    if path and not hasattr(config, "workerinput"):
        with open(path, "a") as handle:
            handle.write("x")
"""


def make_suite(root: Path, tests: int, rng: random.Random) -> dict[str, str]:
    """Write the suite; return the node ids of the polluter, victim, setter and brittle test."""
    ids = [f"test_f{n // PER_FILE:02}.py::test_{n:03}" for n in range(tests)]
    picked = rng.sample(range(tests), 4)
    roles = dict(zip(("polluter", "victim", "setter", "brittle"), picked))
    bodies = {
        roles["polluter"]: "    state.S['mode'] = 'legacy'\n",
        roles["victim"]: "    assert state.S.get('mode', 'default') == 'default'\n",
        roles["setter"]: "    state.S['cache'] = 'warm'\n",
        roles["brittle"]: "    assert state.S.get('cache') == 'warm'\n",
    }
    (root / "state.py").write_text("S = {}\n")
    (root / "conftest.py").write_text(COUNTER)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    for f in range(0, tests, PER_FILE):
        source = ["import state\n"]
        for n in range(f, min(f + PER_FILE, tests)):
            source.append(f"\ndef test_{n:03}():\n" + bodies.get(n, f"    assert {n} + 1 > {n}\n"))
        (root / f"test_f{f // PER_FILE:02}.py").write_text("\n".join(source))
    return {role: ids[n] for role, n in roles.items()}


def _run(argv: list[str], root: Path, counter: Path) -> dict[str, Any]:
    """One hunt: its output, wall and CPU seconds (children included), pytest runs started."""
    counter.write_text("")
    env = {**environment(), "BENCH_PYTEST_RUNS": str(counter)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"out": done.stdout, "status": done.returncode, "wall": wall, "cpu": cpu,
            "runs": len(counter.read_text())}  # fmt: skip


def _dtp(root: Path, counter: Path, test: str) -> dict[str, Any]:
    # Its console script: run as ``-m`` it would load itself as the plugin ``__main__``.
    program = str(Path(sys.executable).parent / "detect-test-pollution")
    result = _run([program, "--failing-test", test, "--tests", "."], root, counter)
    marker = "-> the polluting test is: "
    found = [line.split(marker, 1)[1] for line in result["out"].splitlines() if marker in line]
    return {**result, "found": found[0] if found else None}


def _flakes(root: Path, counter: Path, *args: str) -> dict[str, Any]:
    argv = [sys.executable, "-m", "truegreen", "flakes", "--format", "json", *args]
    result = _run(argv, root, counter)
    data = json.loads(result["out"])
    return {**result, "found": {f["test"]: f["culprits"] for f in data["flaky"]}}


def flakes_vs_detect_test_pollution(tests: int = 200, trials: int = 3, seed: int = 1) -> bool:
    """Print the comparison; True when every target was met."""
    rng = random.Random(seed)
    rows: dict[str, list[dict[str, Any]]] = {}
    met = True
    for trial in range(trials):
        with tempfile.TemporaryDirectory(prefix="tg-flakes-bench-") as tmp:
            root, counter = Path(tmp) / "suite", Path(tmp) / "runs"
            root.mkdir()
            roles = make_suite(root, tests, rng)
            victim, brittle = roles["victim"], roles["brittle"]
            results = {
                DTP_VICTIM: _dtp(root, counter, victim),
                OURS_VICTIM: _flakes(root, counter, "--runs", "0", "--victim", victim),
                DTP_BRITTLE: _dtp(root, counter, brittle),
                OURS_BRITTLE: _flakes(root, counter, "--runs", "0", "--victim", brittle),
                OURS_TOLD_NOTHING: _flakes(root, counter, "--runs", "4", "--seed", str(seed)),
            }
        expected = {
            DTP_VICTIM: roles["polluter"],
            OURS_VICTIM: {victim: [roles["polluter"]]},
            DTP_BRITTLE: roles["setter"],
            OURS_BRITTLE: {brittle: [roles["setter"]]},
            OURS_TOLD_NOTHING: {victim: [roles["polluter"]], brittle: [roles["setter"]]},
        }
        print(f"trial {trial + 1}: polluter {roles['polluter']}, victim {victim}; "
              f"setter {roles['setter']}, brittle {brittle}")  # fmt: skip
        for name, result in results.items():
            result["correct"] = result["found"] == expected[name]
            rows.setdefault(name, []).append(result)
            print(
                f"  {name + ':':<42} runs {result['runs']:>3}  wall {result['wall']:7.2f}s  "
                f"cpu {result['cpu']:7.2f}s  found: {'yes' if result['correct'] else 'no'}"
            )
        fewer = results[OURS_VICTIM]["runs"] < results[DTP_VICTIM]["runs"]
        met = met and fewer and results[OURS_BRITTLE]["correct"]
    print(f"\n{tests} tests, {trials} trials (medians):")
    for name, found_rows in rows.items():
        runs = statistics.median(r["runs"] for r in found_rows)
        wall = statistics.median(r["wall"] for r in found_rows)
        cpu = statistics.median(r["cpu"] for r in found_rows)
        correct = sum(r["correct"] for r in found_rows)
        print(f"  {name + ':':<42} runs {runs:>5.1f}  wall {wall:7.2f}s  cpu {cpu:7.2f}s  "
              f"found {correct}/{len(found_rows)}")  # fmt: skip
    ours, theirs = rows[OURS_VICTIM], rows[DTP_VICTIM]

    def ratio(key: str) -> float:
        return statistics.median(r[key] for r in ours) / statistics.median(r[key] for r in theirs)

    print(f"ratio truegreen / detect-test-pollution on the victim: runs {ratio('runs'):.3f}, "
          f"wall {ratio('wall'):.3f}, cpu {ratio('cpu'):.3f} (target: runs < 1; "
          f"brittle found: {'yes' if met else 'no'})")  # fmt: skip
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    flakes_vs_detect_test_pollution(args.tests, args.trials, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
