"""Cost of one ablation claim against one plain cold pytest run of the same test.

A fixture project of 20 gates, each with a test carrying an ``Ablation:`` record. Side by
side, alternating, in one invocation: a plain ``pytest`` run of one test, and
``truegreen ablate`` of that test's claim (which runs the test twice: unablated, the
premise, and ablated), with the default two runs side by side and with ``-j 1``; then all
20 records with ``-j 1`` and ``-j 2``. Target: <= 1.3x the plain run per claim.

    python bench/ablation_cost.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from measure import timed

GATES = 20


def make_project(root: Path) -> None:
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    body = [f"def gate_{i}(value):\n    if value < {i}:\n        raise ValueError(value)\n"
            f"    return value\n" for i in range(GATES)]  # fmt: skip
    (root / "app" / "gates.py").write_text("\n\n".join(body))
    (root / "tests").mkdir()
    tests = ["import pytest\n\nfrom app import gates\n"]
    for i in range(GATES):
        tests.append(
            f"\n\ndef test_gate_{i}_refuses_small_values():\n"
            f'    """Ablation: replace `value < {i}` with `False` in `app/gates.py`."""\n'
            f"    with pytest.raises(ValueError):\n        gates.gate_{i}({i - 1})\n"
        )
    (root / "tests" / "test_gates.py").write_text("".join(tests))
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\n[tool.truegreen]\ntree-guard = "off"\n'
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    test = "tests/test_gates.py::test_gate_7_refuses_small_values"
    python = [sys.executable]
    configs = {
        "plain pytest, one test": [*python, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
        "ablate one claim": [*python, "-m", "truegreen", "ablate", "app/gates.py", "--replace",
                             "value < 7", "--with", "False", "--test", test],
        "ablate one claim, -j 1": [*python, "-m", "truegreen", "ablate", "app/gates.py",
                                   "--replace", "value < 7", "--with", "False", "--test", test,
                                   "-j", "1"],
        "20 records, -j 1": [*python, "-m", "truegreen", "ablate", "--records", "tests", "-j", "1"],
        "20 records, -j 2": [*python, "-m", "truegreen", "ablate", "--records", "tests", "-j", "2"],
    }  # fmt: skip
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
    with tempfile.TemporaryDirectory(prefix="tg-ablate-bench-") as tmp:
        root = Path(tmp)
        make_project(root)
        for argv in configs.values():
            timed(argv, root)  # warm, and prove each passes
        for _ in range(args.rounds):
            for name, argv in configs.items():
                results[name].append(timed(argv, root))
    wall = {n: statistics.median(w for w, _ in r) for n, r in results.items()}
    cpu = {n: statistics.median(c for _, c in r) for n, r in results.items()}
    print(f"rounds: {args.rounds} (medians)")
    for name in configs:
        print(f"{name + ':':<26} wall {wall[name]:.3f}s  cpu {cpu[name]:.3f}s")
    base = "plain pytest, one test"
    for name in ("ablate one claim", "ablate one claim, -j 1"):
        print(f"ratio {name} / plain: wall {wall[name] / wall[base]:.2f}, "
              f"cpu {cpu[name] / cpu[base]:.2f}  (target <= 1.3)")  # fmt: skip
    per_claim = wall["20 records, -j 2"] / GATES
    print(f"20 records: -j 2 speed-up {wall['20 records, -j 1'] / wall['20 records, -j 2']:.2f}x; "
          f"{per_claim:.2f}s per claim, {per_claim / wall[base]:.2f}x the plain run")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
