"""What watching for leftover processes costs a test: on (the default, "warn") against off.

Two suites, each run with ``leftover-processes`` at its default and ``off``, alternating, in
one invocation (the machines are shared and noisy):

- quiet: tests that start no child (tmp_path I/O): the watch must cost them nothing;
- spawning: every test runs a short child and waits for it (``subprocess.run(["true"])``):
  each Popen is found on the stack, kept weakly and polled once after its test.

With ``--callgrind``, the pytest process's instructions too (the children's are not counted),
and the difference per test, which repeats where the wall-clock does not.

    python bench/leftover_cost.py [--tests 400] [--rounds 5] [--callgrind] [--suites quiet]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from measure import compare, print_ratios

QUIET = """

def test_io_{n}(tmp_path):
    (tmp_path / "data.txt").write_text("{n}")
    assert (tmp_path / "data.txt").read_text() == "{n}"
"""
SPAWNING = """

def test_child_{n}():
    assert subprocess.run(["true"]).returncode == 0
"""
ON: list[str] = ["--truegreen-tree-guard=off"]
OFF = [*ON, "--truegreen-set", "leftover-processes=off"]


def make_suite(root: Path, template: str, tests: int) -> None:
    per_file = 50
    for index in range(0, tests, per_file):
        body = "import subprocess\n" + "".join(
            template.format(n=n) for n in range(index, min(tests, index + per_file))
        )
        (root / f"test_m{index:05}.py").write_text(body)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true", help="also count instructions")
    parser.add_argument("--suites", default="quiet,spawning", help="which (comma-separated)")
    args = parser.parse_args()
    suites = {"quiet": QUIET, "spawning": SPAWNING}
    for name in args.suites.split(","):
        template = suites[name]
        with tempfile.TemporaryDirectory(prefix="tg-leftover-bench-") as tmp:
            root = Path(tmp)
            make_suite(root, template, args.tests)
            medians = compare(
                root, {"on": ON, "off": OFF}, rounds=args.rounds, callgrind=args.callgrind
            )
        print(f"{name}: tests {args.tests}, rounds {args.rounds} (medians)")
        print_ratios(medians, [("on", "off", "1.00 for quiet tests")])
        if args.callgrind:
            extra = medians["on"]["instructions"] - medians["off"]["instructions"]
            print(f"instructions per test: {extra / args.tests:,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
