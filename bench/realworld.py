"""truegreen on other people's suites: plain vs sealed, leaks, audit, and the guards' cost.

For each project: download its source distribution (pinned, with its tests) with
``pip download --no-deps --no-binary :all:``, install it with the test dependencies it declares
into a venv of its own (plus this truegreen checkout, editable), then run its suite

1. plain (``-p no:truegreen``),
2. under truegreen with its defaults (hermetic seal, write, network and program guards),
3. ``truegreen leaks`` (ambient vs sealed, culprit search),
4. ``truegreen flakes --runs 3`` (fixed seed) where the plain run took at most
   ``--flakes-under`` CPU seconds,
5. ``truegreen audit`` on its tests,

and print one row per project: tests, outcome changes between plain and sealed, violations by
kind (from the event stream; ambient reads from the guard summary, the only place they are
recorded), audit findings by rule, and the guard overhead (CPU seconds of the pytest process
and its children, defaults / plain, one run each). The details of every finding follow the
table: ``docs/realworld.md`` triages them.

Downloads and venvs are kept in the work directory (default ``~/.cache/truegreen-realworld``)
and reused; each run unpacks a fresh copy of the sources. The installs need the package index;
the suites only ever reach loopback (the network guard refuses anything else, and the tests
that need the internet are deselected below).

    python bench/realworld.py [--projects attrs,click] [--work DIR] [--flakes-under SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import time
import venv
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from measure import environment

ROOT = Path(__file__).resolve().parent.parent
FLAKE_RUNS = 3
FLAKE_SEED = 1
# ``flakes --runs 3`` costs about four sealed runs plus a bisection per flaky test: run it where
# the plain suite takes at most this many CPU seconds (six of the seven), a minute or two each.
FLAKES_UNDER = 30.0


@dataclass(frozen=True)
class Project:
    name: str  # the distribution's name on the index
    version: str
    requirements: tuple[str, ...]  # the test dependencies it declares (extras, tox, requirements)
    args: tuple[str, ...] = ("tests",)  # the test files or options selected
    declared: str = ""  # where ``requirements`` come from
    tests: str = "tests"  # the directory the audit reads


PROJECTS = [
    Project("attrs", "24.2.0", ("attrs[tests]",),
            # the mypy and pyright files test type checkers, not attrs' runtime
            ("tests", "--ignore=tests/test_mypy.yml", "--ignore=tests/test_pyright.py"),
            declared="extra 'tests'"),
    Project("click", "8.1.7", ("pytest==7.4.0",),
            declared="requirements/tests.txt (pins pytest 7.4.0)"),
    Project("python-dotenv", "1.0.1", ("pytest", "sh>=2.0.2,<3", "click"),
            declared="tox.ini [testenv] deps (ipython left out: test_ipython is one file)",
            args=("tests", "--ignore=tests/test_ipython.py")),
    Project("filelock", "3.16.1", ("filelock[testing]",), declared="extra 'testing'",
            args=("tests", "-p", "no:cov")),
    Project("platformdirs", "4.3.6", ("platformdirs[test]",), declared="extra 'test'",
            args=("tests", "-p", "no:cov")),
    Project("tomlkit", "0.13.2", ("pytest", "pyyaml"), declared="[tool.poetry.group.dev]"),
    # It calls git and hg: the programs its CI installs come from the index too (mercurial and
    # hg-git ship wheels with an ``hg`` script), found on PATH through the venv's bin.
    Project("setuptools-scm", "8.1.0",
            ("setuptools-scm[test]", "setuptools>=45", "mercurial==7.2.4", "hg-git==1.2.0"),
            declared="extra 'test', tox.ini deps; mercurial and hg-git as its CI installs them",
            # test_pip_download downloads from the index (truegreen refuses it: a true finding,
            # in docs/realworld.md); test_dump_version_on_old_python runs whatever python3.7 is
            # on PATH, here pyenv's shim for a Python that is not installed
            args=("testing", "--deselect", "testing/test_regressions.py::test_pip_download",
                  "--deselect", "testing/test_functions.py::test_dump_version_on_old_python"),
            tests="testing"),
]  # fmt: skip


@dataclass
class Row:
    project: Project
    tests: int = 0
    changed: list[str] = field(default_factory=list)  # "test: plain -> sealed"
    violations: list[dict[str, Any]] = field(default_factory=list)
    spawns: Counter[str] = field(default_factory=Counter)
    ambient: dict[str, str] = field(default_factory=dict)  # variable -> tests
    leaks: list[dict[str, Any]] = field(default_factory=list)
    unsteady: list[str] = field(default_factory=list)  # flakes `leaks` set apart
    flakes: Optional[dict[str, Any]] = None  # `truegreen flakes --format json`, if it ran
    audit: list[dict[str, Any]] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)
    steps: dict[str, float] = field(default_factory=dict)  # step -> wall seconds

    def kinds(self) -> Counter[str]:
        found: Counter[str] = Counter()
        for v in self.violations:
            if v["kind"] != "write":
                found[v["kind"]] += 1
            elif v["target"].endswith("(under the real home)"):
                found["home write"] += 1
            else:
                found["repo write"] += 1
        found["ambient read"] = len(self.ambient)
        return found


def run(argv: list[str], cwd: Path, env: Optional[dict[str, str]] = None) -> tuple[int, str, float]:
    """(exit status, stdout then stderr, CPU seconds of the command and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, cwd=cwd, env=env or environment(), capture_output=True,
                          text=True, check=False)  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.returncode, done.stdout + "\0" + done.stderr, cpu


def must(argv: list[str], cwd: Path) -> None:
    status, output, _ = run(argv, cwd)
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({status}):\n{output[-3000:]}")


def fetch(project: Project, work: Path) -> Path:
    """The sdist, downloaded once; a fresh copy of its sources under ``work``."""
    sdists = work / "sdists"
    stem = f"{project.name}-{project.version}".lower().replace("-", "[-_]")
    found = [p for p in sdists.glob("*.tar.gz") if re.match(stem, p.name.lower())]
    if not found:
        sdists.mkdir(parents=True, exist_ok=True)
        must([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
              ":all:", "-d", str(sdists), f"{project.name}=={project.version}"], work)  # fmt: skip
        found = [p for p in sdists.glob("*.tar.gz") if re.match(stem, p.name.lower())]
    source = work / project.name / "src"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    with tarfile.open(found[0]) as archive:
        top = archive.getnames()[0].split("/")[0]
        archive.extractall(source.parent / "unpack")  # a pinned sdist from the index
    shutil.rmtree(source)
    (source.parent / "unpack" / top).rename(source)
    shutil.rmtree(source.parent / "unpack")
    return source


def install(project: Project, source: Path, work: Path) -> Path:
    """The project's venv, with the project, its test dependencies and truegreen."""
    home = work / project.name / "venv"
    python = home / "bin" / "python"
    spec = json.dumps([project.version, project.requirements, str(ROOT)])
    marker = home / "installed.json"
    if marker.exists() and marker.read_text() == spec:
        return python
    shutil.rmtree(home, ignore_errors=True)
    venv.create(home, with_pip=True)
    # Extras name the project itself: install it from the unpacked sources, not the index.
    requirements = [r.replace(project.name, str(source), 1) if r.startswith(f"{project.name}[")
                    else r for r in project.requirements]  # fmt: skip
    must([str(python), "-m", "pip", "install", "-q", str(source), *requirements,
          "-e", str(ROOT)], work)  # fmt: skip
    marker.write_text(spec)
    return python


def outcomes(junit: Path) -> dict[str, str]:
    """Each test case's outcome in a JUnit report."""
    found = {}
    for case in ET.parse(junit).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[name] = kinds[0] if kinds else "passed"
        if found[name] == "skipped" and case.find("skipped").get("type") == "pytest.xfail":  # type: ignore[union-attr]
            found[name] = "xfailed"
    return found


def stream(directory: Path) -> list[dict[str, Any]]:
    records = []
    for path in sorted(directory.rglob("*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue  # a last line cut short by a killed process
    return records


def ambient_reads(output: str) -> dict[str, str]:
    """The variables of the ``truegreen ambient reads`` summary section, with their tests."""
    section = output.split("truegreen ambient reads", 1)
    found = {}
    if len(section) == 2:
        for line in section[1].splitlines()[2:]:
            match = re.match(r"  (\S+): (.*)", line)
            if not match:
                break
            found[match.group(1)] = match.group(2)
    return found


def activated(python: Path) -> dict[str, str]:
    """The measuring environment with the venv's bin first on PATH, as tox and an activated
    venv have it: a suite that runs its own scripts (``hg``, a console entry point) finds them."""
    env = environment()
    env["PATH"] = os.pathsep.join([str(python.parent), env.get("PATH", os.defpath)])
    return env


def flakes(row: Row, truegreen: str, work: Path, env: dict[str, str]) -> None:
    """``truegreen flakes --runs 3`` on a fresh copy, with a fixed seed so a rerun repeats it."""
    source = fetch(row.project, work)
    argv = [truegreen, "flakes", "--runs", str(FLAKE_RUNS), "--seed", str(FLAKE_SEED),
            "--run-timeout", "600", "--format", "json", "--", "-p", "no:cacheprovider",
            *row.project.args]  # fmt: skip
    clock = time.perf_counter()
    status, output, _ = run(argv, source, env)
    row.steps["flakes"] = time.perf_counter() - clock
    (work / row.project.name / "out" / "flakes.txt").write_text(output)
    stdout = output.split("\0")[0]
    if status not in (0, 1) or not stdout.startswith("{"):
        last = output.strip().splitlines()[-1] if output.strip() else ""
        row.flakes = {"error": f"exit {status}: {last}"}
    else:
        row.flakes = json.loads(stdout)


def measure(project: Project, work: Path, flakes_under: float) -> Row:
    row = Row(project)
    clock = time.perf_counter()
    source = fetch(project, work)
    row.steps["fetch"] = time.perf_counter() - clock
    clock = time.perf_counter()
    python = install(project, source, work)
    truegreen = str(python.parent / "truegreen")
    env = activated(python)
    row.steps["install"] = time.perf_counter() - clock
    out = work / project.name / "out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    pytest = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *project.args]

    clock = time.perf_counter()
    _, _, row.cpu["plain"] = run([*pytest, "-p", "no:truegreen", f"--junitxml={out / 'plain.xml'}"],
                                 source, env)  # fmt: skip
    row.steps["plain"] = time.perf_counter() - clock
    # The plain run's leftovers (caches, files a test wrote) must not tilt the sealed one.
    source = fetch(project, work)

    clock = time.perf_counter()
    sealed_argv = [
        *pytest,
        f"--junitxml={out / 'sealed.xml'}",
        f"--truegreen-metrics={out / 'events'}",
    ]
    _, output, row.cpu["sealed"] = run(sealed_argv, source, env)
    row.steps["sealed"] = time.perf_counter() - clock
    plain, sealed = outcomes(out / "plain.xml"), outcomes(out / "sealed.xml")
    row.tests = len(plain)
    for test in sorted(set(plain) | set(sealed)):
        if plain.get(test) != sealed.get(test):
            before, after = plain.get(test, "missing"), sealed.get(test, "missing")
            row.changed.append(f"{test}: {before} -> {after}")
    records = stream(out / "events")
    row.violations = [r for r in records if r.get("event") == "violation"]
    row.spawns = Counter(
        f"{r['program']} {r['verb']}" if r.get("verb") else r["program"]
        for r in records
        if r.get("event") == "spawn"
    )
    row.ambient = ambient_reads(output)
    (out / "sealed.txt").write_text(output)

    source = fetch(project, work)
    clock = time.perf_counter()
    _, output, _ = run([truegreen, "leaks", "--format", "json", "--", "-p", "no:cacheprovider",
                        *project.args], source, env)  # fmt: skip
    row.steps["leaks"] = time.perf_counter() - clock
    (out / "leaks.txt").write_text(output)
    stdout = output.split("\0")[0]
    found = json.loads(stdout) if stdout.startswith("{") else {}
    row.leaks, row.unsteady = found.get("leaks", []), found.get("unsteady", [])

    if row.cpu["plain"] <= flakes_under:
        flakes(row, truegreen, work, env)

    clock = time.perf_counter()
    _, output, _ = run([truegreen, "audit", "--format", "json", project.tests], source, env)
    row.steps["audit"] = time.perf_counter() - clock
    row.audit = json.loads(output.split("\0")[0])["findings"]
    return row


def print_table(rows: list[Row]) -> None:
    kinds = ["home write", "repo write", "network", "program", "ambient read"]
    head = ["project", "tests", "changed", *kinds, "leaks", "flakes", "audit", "CPU plain",
            "CPU sealed", "ratio"]  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for row in rows:
        found = row.kinds()
        audit = Counter(f["code"] for f in row.audit)
        cells = [
            f"{row.project.name} {row.project.version}",
            str(row.tests),
            str(len(row.changed)),
            *(str(found[k]) for k in kinds),
            str(len(row.leaks)),
            flakes_cell(row),
            ", ".join(f"{code} {n}" for code, n in sorted(audit.items())) or "0",
            f"{row.cpu['plain']:.1f} s",
            f"{row.cpu['sealed']:.1f} s",
            f"{row.cpu['sealed'] / row.cpu['plain']:.2f}",
        ]
        print("| " + " | ".join(cells) + " |")


def flakes_cell(row: Row) -> str:
    """Flaky tests found (or none) and the wall time the hunt took, or why it did not run."""
    if row.flakes is None:
        return f"not run (plain {row.cpu['plain']:.0f} s CPU)"
    if "error" in row.flakes:
        return "error"
    found = len(row.flakes["flaky"])
    return f"{found or 'none'} ({row.steps['flakes']:.0f} s)"


def print_details(row: Row) -> None:
    p = row.project
    steps = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in row.steps.items())
    print(f"\n## {p.name} {p.version} (tests from {p.declared}; {' '.join(p.args)})")
    print(f"steps: {steps}")
    for line in row.changed:
        print(f"  changed: {line}")
    for v in row.violations:
        where = f"at {v['site']} ({v['where']})"
        print(f"  violation: {v['kind']} {v['operation']} {v['target']} {where}")
    if row.spawns:
        print("  programs: " + ", ".join(f"{n} x{c}" for n, c in sorted(row.spawns.items())))
    for name, tests in row.ambient.items():
        print(f"  ambient read: {name}: {tests}")
    for leak in row.leaks:
        culprit = ", ".join(c["label"] for c in leak["culprit"] or []) or "none"
        print(f"  leak: {leak['test']}: {leak['ambient']} -> {leak['sealed']}, culprit {culprit}")
    for test in row.unsteady:
        print(f"  flake (differed once, not again): {test}")
    if row.flakes is not None and "error" in row.flakes:
        print(f"  flakes: {row.flakes['error']}")
    elif row.flakes is not None:
        runs, seed = row.flakes["pytest_runs"], row.flakes["seed"]
        print(f"  flakes: {FLAKE_RUNS} runs, seed {seed}, {runs} pytest runs in all, "
              f"{row.steps['flakes']:.0f} s")  # fmt: skip
        for flaky in row.flakes["flaky"]:
            culprits = ", ".join(flaky["culprits"]) or "none"
            print(f"  flaky: {flaky['kind']} {flaky['test']} (failed {flaky['failed_runs']} of "
                  f"{flaky['observed_runs']} runs), culprits {culprits}")  # fmt: skip
        for test in row.flakes["always_failing"]:
            print(f"  failing in every flakes run: {test}")
    for f in row.audit:
        print(f"  audit: {f['path']}:{f['line']}: {f['code']} {f['name']} {f['message']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default=",".join(p.name for p in PROJECTS),
                        help="comma-separated names (default: all)")  # fmt: skip
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "truegreen-realworld")
    parser.add_argument("--flakes-under", type=float, default=FLAKES_UNDER, metavar="SECONDS",
                        help="run `truegreen flakes` where the plain run took at most this many "
                        f"CPU seconds (default {FLAKES_UNDER:.0f}; 0: never)")  # fmt: skip
    args = parser.parse_args()
    by_name = {p.name: p for p in PROJECTS}
    chosen = [by_name[n] for n in args.projects.split(",") if n in by_name]
    unknown = [n for n in args.projects.split(",") if n not in by_name]
    if unknown or not chosen:
        parser.error(f"--projects takes names among {sorted(by_name)} (got {unknown!r})")
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for project in chosen:
        print(f"{project.name} {project.version} ...", file=sys.stderr, flush=True)
        rows.append(measure(project, args.work.resolve(), args.flakes_under))
    print_table(rows)
    for row in rows:
        print_details(row)
    return 0


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.exit(main())
