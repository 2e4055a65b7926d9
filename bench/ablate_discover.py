"""What ``truegreen ablate --discover`` finds on real suites, and what it costs.

For each project of the real-world bench (its venv and sources in ``--work``, made by
``bench/realworld.py``): a fresh copy of its sources, one plain run of its suite (pytest
with truegreen off), then ``truegreen ablate --discover -j N --format json`` with this
checkout's truegreen first on PYTHONPATH. Prints, side by side: tests passed, negative
tests, claims, the verdicts, the caught exceptions with no claim by reason, and the cost
as a ratio to the plain run (wall time). With ``--mutmut``, also mutmut beside discovery on
the same tests of the first project that has a mutmut module below: a venv made for it (the
project's packages, mutmut, and the project's metadata without its code, so the tests import
mutmut's mutated copy, not an installed one), then, on one copy of the sources, a plain run,
``truegreen ablate --discover`` and ``mutmut run``, each timed by the CPU of its whole process
tree.

    python bench/ablate_discover.py --work /work/rw --projects tomlkit click dunamai
    python bench/ablate_discover.py --work /work/rw --projects dunamai --mutmut
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import venv
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
# mutmut's module and tests of a project: dunamai's integration tests start the `dunamai`
# program, which mutmut's mutated copy cannot serve
MUTMUT = {"dunamai": ("dunamai/", "tests/unit"), "tomlkit": ("tomlkit/toml_char.py", "tests")}
MUTMUT_VERSION = "3.8.1"


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


def cpu_timed(
    argv: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the command and its children, stdout and stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, out = timed(argv, cwd, env, timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, out


def mutmut_venv(name: str, work: Path, home: Path) -> Path:
    """A venv for mutmut: the project venv's packages (not the project, not truegreen),
    mutmut, and the project installed without dependencies with its code then removed: its
    metadata stays (tests that read their version from it), its modules are mutmut's."""
    project_python = work / name / "venv" / "bin" / "python"
    freeze = [str(project_python), "-m", "pip", "freeze", "--exclude-editable"]
    frozen = subprocess.run(freeze, capture_output=True, text=True, check=True).stdout.splitlines()
    own = (f"{name}==", f"{name} @", "truegreen")
    keep = [line for line in frozen if not line.lower().startswith(own)]
    venv.create(home, with_pip=True)
    python = home / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, f"mutmut=={MUTMUT_VERSION}", *keep], check=True)
    subprocess.run([*pip, "--no-deps", str(work / name / "clean" / "src")], check=True)
    where = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = subprocess.run([str(python), "-c", where], capture_output=True, text=True, check=True)
    package = MUTMUT[name][0].split("/")[0]
    shutil.rmtree(Path(site.stdout.strip()) / package)
    return python


def beside_mutmut(name: str, work: Path, jobs: int, timeout: float) -> list[str]:
    """A plain run, ``truegreen ablate --discover`` and ``mutmut run`` on the same tests of
    one copy of ``name``'s sources: a line each, with its wall and CPU seconds."""
    paths, tests = MUTMUT[name]
    with tempfile.TemporaryDirectory(prefix=f"mutmut-{name}-") as tmp:
        sys.stderr.write(f"ablate_discover: a venv for mutmut {MUTMUT_VERSION}\n")
        python = mutmut_venv(name, work, Path(tmp) / "venv")
        source = Path(tmp) / "src"
        shutil.copytree(work / name / "clean" / "src", source)
        with open(source / "setup.cfg", "a", encoding="utf-8") as handle:
            # the package whole beside the mutated file: mutmut copies only what it mutates
            package = paths.split("/")[0] + "/"
            handle.write(f"\n[mutmut]\npaths_to_mutate={paths}\ntests_dir={tests}/\n"
                         f"also_copy={package}\n")  # fmt: skip
        project_python = str(work / name / "venv" / "bin" / "python")
        env = dict(os.environ, PYTHONPATH=str(HERE / "src"))
        lines = []
        sys.stderr.write(f"ablate_discover: plain, discover and mutmut on {name} {tests}\n")
        wall, cpu, _ = cpu_timed([project_python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                  "-p", "no:truegreen", tests], source, env, timeout)  # fmt: skip
        lines.append(f"plain pytest of {tests}: {wall:.1f} s wall, {cpu:.1f} s CPU")
        plain = cpu
        wall, cpu, out = cpu_timed([project_python, "-m", "truegreen", "ablate", "--discover",
                                    tests, "-j", str(jobs), "--format", "json"], source, env,
                                   timeout)  # fmt: skip
        document = json.loads(out) if out.startswith("{") else {"claims": [], "negative_tests": []}
        verdicts = collections.Counter(c["verdict"] for c in document["claims"])
        lines.append(f"truegreen ablate --discover: {len(document['negative_tests'])} negative "
                     f"tests, {len(document['claims'])} claims, {dict(verdicts)}; {wall:.1f} s "
                     f"wall, {cpu:.1f} s CPU ({cpu / plain:.1f}x)")  # fmt: skip
        env = dict(os.environ, PYTEST_ADDOPTS="-p no:truegreen")
        wall, cpu, out = cpu_timed([str(python.parent / "mutmut"), "run", "--max-children",
                                    str(jobs)], source, env, timeout)  # fmt: skip
        # its progress line: killed, reached by no test, timeout, suspicious, survived
        counts = re.findall(r"🎉 (\d+) 🫥 (\d+)\s+⏰ (\d+)\s+🤔 (\d+)\s+🙁 (\d+)", out)
        summary = "killed {}, no test {}, timeout {}, suspicious {}, survived {}"
        result = summary.format(*counts[-1]) if counts else out.strip()[-300:]
        lines.append(f"mutmut {MUTMUT_VERSION} on {paths}: {result}; {wall:.1f} s wall, "
                     f"{cpu:.1f} s CPU ({cpu / plain:.0f}x)")  # fmt: skip
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/work/rw"))
    parser.add_argument("--projects", nargs="+", default=["tomlkit", "click", "dunamai"],
                        choices=sorted(PROJECTS))  # fmt: skip
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--mutmut", action="store_true",
                        help="mutmut beside discovery on the same tests of the first project "
                        f"among {', '.join(sorted(MUTMUT))}")  # fmt: skip
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
        name = next((p for p in args.projects if p in MUTMUT), None)
        if name:
            print(f"\nbeside mutmut, {name}:")
            for line in beside_mutmut(name, args.work, args.jobs, args.timeout):
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
