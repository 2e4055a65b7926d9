"""Overhead of the hermetic environment: 2,000 small tests, plugin on vs -p no:truegreen.

Both configurations run side by side, alternating, in one invocation (the machines are shared
and noisy); the figure is the ratio of the median wall-clock times. Target: <= 1.10.

    python bench/hermetic_overhead.py [--tests 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PER_FILE = 20


def make_suite(root: Path, tests: int) -> None:
    """``tests`` small tests: arithmetic, a dict, a string, spread over files of PER_FILE."""
    for index in range(tests // PER_FILE):
        body = [
            f"def test_{index}_{n}():\n    assert {n} + 1 == {n + 1}\n" for n in range(PER_FILE)
        ]
        (root / f"test_m{index:04}.py").write_text("\n\n".join(body))
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")


def run(root: Path, extra: list[str]) -> float:
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TRUEGREEN_"))}
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout[-2000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tg-bench-") as tmp:
        root = Path(tmp)
        make_suite(root, args.tests)
        run(root, [])  # warm the file cache and bytecode
        plain, sealed = [], []
        for _ in range(args.rounds):
            plain.append(run(root, ["-p", "no:truegreen"]))
            sealed.append(run(root, []))
    p, s = statistics.median(plain), statistics.median(sealed)
    print(f"tests: {args.tests}, rounds: {args.rounds}")
    print(f"plain pytest (-p no:truegreen): median {p:.3f}s  {[round(x, 3) for x in plain]}")
    print(f"hermetic (plugin on):           median {s:.3f}s  {[round(x, 3) for x in sealed]}")
    print(f"ratio sealed/plain: {s / p:.3f}  (target <= 1.10)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
