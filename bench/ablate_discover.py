"""What ``truegreen ablate --discover`` finds on real suites, and what it costs.

For each project of the real-world bench (its venv and sources in ``--work``, made by
``bench/realworld.py``): a fresh copy of its sources, one plain run of its suite (pytest
with truegreen off), then ``truegreen ablate --discover -j N --format json`` with this
checkout's truegreen first on PYTHONPATH. Prints, side by side: tests passed, negative
tests, claims, the verdicts, the caught exceptions with no claim by reason, and the cost
as a ratio to the plain run (wall time). With ``--mutmut VENV`` (a copy of a project's venv
with mutmut installed), also mutmut on one module of that project, capped in time.

    python bench/ablate_discover.py --work /work/rw --projects tomlkit click dunamai
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SURVIVED = "survived"
HERE = Path(__file__).resolve().parent.parent
# tests and the pytest options each project needs (as bench/realworld.py runs it)
PROJECTS = {
    "tomlkit": (["tests"], ""),
    "click": (["tests"], ""),
    "dunamai": (["tests"], ""),
    "humanize": (["tests"], ""),
    "python-dotenv": (["tests"], "--deselect tests/test_ipython.py"),
    "platformdirs": (["tests"], "-p no:cov"),
}
MUTMUT_MODULE = {"tomlkit": "tomlkit/toml_char.py", "dunamai": "dunamai/__init__.py"}


def reason(why: str) -> str:
    """The kind of reason a caught exception gave no claim."""
    for pattern, kind in (
        (r"standard library", "standard library"),
        (r"a dependency", "dependency"),
        (r"test's own code", "the test's own code"),
        (r"not raised by a raise statement", "not a raise"),
        (r"no exactly-once anchor", "no exactly-once anchor"),
    ):
        if re.search(pattern, why):
            return kind
    return "other"


def timed(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=timeout)  # fmt: skip
        out = done.stdout
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
    return time.perf_counter() - start, out


def measure(name: str, work: Path, jobs: int, timeout: float) -> dict[str, object]:
    tests, options = PROJECTS[name]
    python = work / name / "venv" / "bin" / "python"
    with tempfile.TemporaryDirectory(prefix=f"discover-{name}-") as tmp:
        source = Path(tmp) / "src"
        shutil.copytree(work / name / "clean" / "src", source)
        env = dict(os.environ, PYTHONPATH=str(HERE / "src"), PYTEST_ADDOPTS=options)
        plain, _ = timed([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:truegreen", *tests], source, env, timeout)  # fmt: skip
        argv = [str(python), "-m", "truegreen", "ablate", "--discover", *tests, "-j", str(jobs),
                "--format", "json"]  # fmt: skip
        seconds, out = timed(argv, source, env, timeout)
    document = json.loads(out)
    verdicts = collections.Counter(c["verdict"] for c in document["claims"])
    reasons = collections.Counter(reason(d["why"]) for d in document["not_derivable"])
    return {
        "project": name,
        "passed": document["passed"],
        "negative": len(document["negative_tests"]),
        "claims": len(document["claims"]),
        "verdicts": dict(verdicts),
        "no claim": dict(reasons),
        "plain": round(plain, 1),
        "discover": round(seconds, 1),
        "tracing": document["tracing"]["seconds"],
        "ratio": round(seconds / plain, 1),
        "survived": sorted(
            {f"{c['line']} `{c['raise']}`" for c in document["claims"] if c["verdict"] == SURVIVED}
        ),
    }


def mutmut(name: str, work: Path, venv: Path, timeout: float) -> str:
    """mutmut 3 on one module of ``name``: its summary line, and its time."""
    module = MUTMUT_MODULE[name]
    tests, _ = PROJECTS[name]
    with tempfile.TemporaryDirectory(prefix=f"mutmut-{name}-") as tmp:
        source = Path(tmp) / "src"
        shutil.copytree(work / name / "clean" / "src", source)
        with open(source / "setup.cfg", "a", encoding="utf-8") as handle:
            handle.write(f"\n[mutmut]\npaths_to_mutate={module}\ntests_dir={tests[0]}/\n")
        env = dict(os.environ, PYTEST_ADDOPTS="-p no:truegreen")
        seconds, out = timed([str(venv / "bin" / "mutmut"), "run", "--max-children", "2"],
                             source, env, timeout)  # fmt: skip
    counts = re.findall(r"🎉 (\d+).*?🙁 (\d+)", out)
    return f"{module}: {counts[-1] if counts else out.strip()[-200:]} ({seconds:.0f} s)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/rw"))
    parser.add_argument("--projects", nargs="+", default=["tomlkit", "click", "dunamai"],
                        choices=sorted(PROJECTS))  # fmt: skip
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--mutmut", type=Path, metavar="VENV",
                        help="a venv with mutmut (the first project with a module)")  # fmt: skip
    args = parser.parse_args()
    rows = []
    for name in args.projects:
        sys.stderr.write(f"ablate_discover: {name}\n")
        rows.append(measure(name, args.work, args.jobs, args.timeout))
    print("| project | passed | negative tests | claims | verdicts | no claim, by reason "
          "| plain | discover (tracing) | ratio |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(row["verdicts"].items()))  # type: ignore[attr-defined]
        reasons = ", ".join(f"{k} {n}" for k, n in sorted(row["no claim"].items()))  # type: ignore[attr-defined]
        print(f"| {row['project']} | {row['passed']} | {row['negative']} | {row['claims']} | "
              f"{verdicts} | {reasons} | {row['plain']} s | {row['discover']} s "
              f"({row['tracing']} s) | {row['ratio']}x |")  # fmt: skip
    for row in rows:
        print(f"\n{row['project']}: survived anchors")
        for line in row["survived"]:  # type: ignore[attr-defined]
            print(f"  {line}")
    if args.mutmut:
        name = next((p for p in args.projects if p in MUTMUT_MODULE), None)
        if name:
            print(f"\nmutmut on {name}: {mutmut(name, args.work, args.mutmut, args.timeout)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
