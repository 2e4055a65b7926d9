"""Cost of one ablation claim against one plain cold pytest run of the same test.

A fixture project of 20 gates, each with a test carrying an ``Ablation:`` record. Side by
side, alternating, in one invocation: a plain ``pytest`` run of one test, and
``truegreen ablate`` of one claim on that test (which runs the test twice: unablated, the
premise, and ablated): warm (the default: forked by a server that started pytest once) and
with ``--no-warm`` (a new process a run), the two runs side by side and with ``-j 1``; all
20 records with ``--no-warm -j 1``, ``--no-warm -j 2`` and warm ``-j 2``; and mutmut
(``pip install truegreen[bench]``) checking the same single mutation with
``mutmut run NAME``, its mutants generated and its stats collected once beforehand.
Targets: <= 1.3x the plain run per claim; <= 0.5x per claim warm, over many claims.
``--pair-rounds N`` then runs the plain run and the warm claim alone, alternating, N times
(``--rounds 0`` skips everything else): the per-round ratio moves a lot on a shared machine.

    python bench/ablation_cost.py [--rounds 5] [--pair-rounds 15]
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from measure import timed

GATES = 20
CLAIMED = 7  # the gate whose test the single claim runs
# mutmut's name for the mutant that is the single claim's mutation, ValueError(None)
MUTMUT_NAME = f"app.gates.x_gate_{CLAIMED}__mutmut_3"


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
            f'    with pytest.raises(ValueError, match="^{i - 1}$"):\n'
            f"        gates.gate_{i}({i - 1})\n"
        )
    (root / "tests" / "test_gates.py").write_text("".join(tests))
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\n[tool.truegreen]\ntree-guard = "off"\n'
        '[tool.mutmut]\nsource_paths = ["app"]\n'
    )


def mutmut() -> list[str]:
    """The mutmut command, or [] when it is not installed."""
    if importlib.util.find_spec("mutmut") is None:
        return []
    found = shutil.which("mutmut", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "mutmut"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    alone = "alternating rounds of the plain run and the warm claim alone"
    parser.add_argument("--pair-rounds", type=int, default=0, help=alone)
    args = parser.parse_args()
    test = f"tests/test_gates.py::test_gate_{CLAIMED}_refuses_small_values"
    python = [sys.executable]
    # mutmut's mutant 3 of the gate, as a claim: the 8th ValueError(value) of the file
    claim = [*python, "-m", "truegreen", "ablate", "app/gates.py", "--replace",
             "ValueError(value)", "--with", "ValueError(None)", "--occurrence",
             str(CLAIMED + 1), "--test", test]  # fmt: skip
    records = [*python, "-m", "truegreen", "ablate", "--records", "tests"]
    configs = {
        "plain pytest, one test": [*python, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
        "ablate one claim, --no-warm": [*claim, "--no-warm"],
        "ablate one claim, --no-warm -j 1": [*claim, "--no-warm", "-j", "1"],
        "ablate one claim, warm": [*claim, "--warm"],
        "20 records, --no-warm -j 1": [*records, "--no-warm", "-j", "1"],
        "20 records, --no-warm -j 2": [*records, "--no-warm", "-j", "2"],
        "20 records, warm -j 2": [*records, "--warm", "-j", "2"],
    }
    pair = {name: configs[name] for name in ("plain pytest, one test", "ablate one claim, warm")}
    if not args.rounds:
        configs = pair
    if mutmut() and args.rounds:
        configs["mutmut run, one mutant"] = [*mutmut(), "run", MUTMUT_NAME]
    else:
        print("mutmut is not installed (pip install truegreen[bench]): not compared")
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
    with tempfile.TemporaryDirectory(prefix="tg-ablate-bench-") as tmp:
        root = Path(tmp)
        make_project(root)
        if "mutmut run, one mutant" in configs:
            timed([*mutmut(), "run"], root)  # generate every mutant and collect the stats
        for argv in configs.values():
            timed(argv, root)  # warm, and prove each passes
        for _ in range(args.rounds):
            for name, argv in configs.items():
                results[name].append(timed(argv, root))
        paired: dict[str, list[float]] = {name: [] for name in pair}
        for _ in range(args.pair_rounds):
            for name, argv in pair.items():
                paired[name].append(timed(argv, root)[1])
    if args.pair_rounds:
        plain, warm = paired.values()
        each = sorted(w / p for p, w in zip(plain, warm))
        print(f"plain run and warm claim alone, {args.pair_rounds} rounds: cpu "
              f"{statistics.median(warm) / statistics.median(plain):.3f} (medians; per round "
              f"{each[0]:.2f}-{each[-1]:.2f}; target <= 1.3)")  # fmt: skip
    if not args.rounds:
        return 0
    wall = {n: statistics.median(w for w, _ in r) for n, r in results.items()}
    cpu = {n: statistics.median(c for _, c in r) for n, r in results.items()}
    print(f"rounds: {args.rounds} (medians)")
    for name in configs:
        print(f"{name + ':':<26} wall {wall[name]:.3f}s  cpu {cpu[name]:.3f}s")
    base = "plain pytest, one test"
    targets = {"ablate one claim, --no-warm": 1.3, "ablate one claim, --no-warm -j 1": 1.3,
               "ablate one claim, warm": 1.3, "mutmut run, one mutant": None}  # fmt: skip
    for name, target in targets.items():
        if name in wall:
            print(f"ratio {name} / plain: wall {wall[name] / wall[base]:.2f}, "
                  f"cpu {cpu[name] / cpu[base]:.2f}"
                  + (f"  (target <= {target})" if target else ""))  # fmt: skip
    for name, goal in (("20 records, --no-warm -j 2", 1.3), ("20 records, warm -j 2", 0.5)):
        per_claim, per_cpu = wall[name] / GATES, cpu[name] / GATES
        print(
            f"{name}: {per_claim:.3f}s wall, {per_cpu:.3f}s cpu per claim; "
            f"{per_claim / wall[base]:.2f}x wall, {per_cpu / cpu[base]:.2f}x cpu the plain run"
            f"  (target <= {goal})"
        )
    one, two = wall["20 records, --no-warm -j 1"], wall["20 records, --no-warm -j 2"]
    print(f"20 records, --no-warm: -j 2 speed-up {one / two:.2f}x")
    if "mutmut run, one mutant" in wall:
        for name in ("ablate one claim, --no-warm", "ablate one claim, warm"):
            mm = "mutmut run, one mutant"
            print(f"ratio {mm} / {name}: wall {wall[mm] / wall[name]:.2f}, "
                  f"cpu {cpu[mm] / cpu[name]:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
