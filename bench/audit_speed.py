"""The audit's speed over four real test trees, cold and warm, against the parse floor.

The test directories of four projects (pinned below; about 90,000 lines the audit reads),
each from its sdist, fetched once with ``pip download`` into ``$XDG_CACHE_HOME/truegreen-bench``
(``~/.cache/truegreen-bench``; ``--sdists DIR`` takes them from a directory instead) and
unpacked there; the measured part is offline. Side by side, alternating, in one invocation,
CPU seconds of each process and its children, one process per project, summed over the four:

- the floor: one Python process per project that reads and ``ast.parse``-s every file the
  audit walks;
- ``truegreen audit --no-cache`` (cold) with every default rule;
- ``truegreen audit`` warm: its cache (``.truegreen_cache/``) filled by an earlier run of the
  same tree, nothing changed since;
- with ``--baseline REV``, the audit as it was at git revision REV (its ``src/``, exported
  with ``git archive`` into a temporary directory), cold: the run fails unless every
  configuration prints the same JSON findings, so a change made for speed is shown to keep
  every finding (the warm audit's included);
- with ``--flake8``, ``flake8`` (pycodestyle, pyflakes, mccabe) with flake8-pytest-style,
  ``--jobs=1`` (it takes 20 times as long as the rest together).

With ``--callgrind``, each configuration but flake8 also runs once under
``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``: an instruction count that repeats
exactly, whatever the load of the machine. Targets: the cold audit <= 1.6x the floor (CPU),
the warm one <= 0.1x.

    python bench/audit_speed.py [--rounds 5] [--callgrind] [--baseline REV] [--flake8]
        [--sdists DIR]
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import NamedTuple, Optional

from measure import environment, instructions, timed_status


class Tree(NamedTuple):
    name: str  # the distribution's name on the index
    version: str
    tests: str  # the test directory, relative to the sdist's root
    stem: str  # the sdist's file and top directory, without the version


TREES = (
    Tree("pytest", "8.3.5", "testing", "pytest"),
    Tree("attrs", "24.2.0", "tests", "attrs"),
    Tree("typer", "0.12.5", "tests", "typer"),
    Tree("python-dateutil", "2.9.0.post0", "tests", "python-dateutil"),
)
FLOOR = """
import ast, sys
for name in open(sys.argv[1], encoding="utf-8").read().splitlines():
    with open(name, "rb") as handle:
        try:
            ast.parse(handle.read(), filename=name)
        except SyntaxError:
            pass
"""
FLOOR_NAME = "ast.parse floor"
COLD_NAME = "truegreen audit, cold"
WARM_NAME = "truegreen audit, warm"
AUDIT = "truegreen audit"
SETTLE = 3.5  # seconds: truegreen.audit.quick.SETTLE_NS and a margin
FINDINGS = (0, 1)  # the audit exits 1 when it finds something: a success here
# One configuration: one (argv, environment, directory) per tree.
Runs = list[tuple[list[str], dict[str, str], Path]]


def cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "truegreen-bench"


def fetch(tree: Tree, sdists: Optional[Path]) -> Path:
    """The unpacked sdist of ``tree`` (its root), unpacked on first use."""
    root = cache() / f"{tree.stem}-{tree.version}"
    if (root / tree.tests).is_dir():
        return root
    cache().mkdir(parents=True, exist_ok=True)
    archive = cache() / f"{tree.stem}-{tree.version}.tar.gz"
    if sdists is not None and not archive.is_file() and (sdists / archive.name).is_file():
        shutil.copy(sdists / archive.name, archive)
    if not archive.is_file():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
             ":all:", f"{tree.name}=={tree.version}", "--dest", str(cache())],
            check=True,
        )  # fmt: skip
    with tarfile.open(archive) as tar:
        _extract(tar, cache())
    return root


def export_source(revision: str, into: Path) -> Path:
    """The ``src/`` directory of this repository at ``revision``, unpacked under ``into``."""
    repository = Path(__file__).resolve().parent.parent
    archive = into / "baseline.tar"
    with archive.open("wb") as handle:
        subprocess.run(["git", "archive", revision, "src"], cwd=repository, stdout=handle,
                       check=True)  # fmt: skip
    with tarfile.open(archive) as tar:
        _extract(tar, into / "baseline")
    return into / "baseline" / "src"


def _extract(tar: tarfile.TarFile, into: Path) -> None:
    members = [m for m in tar.getmembers() if m.isfile()]
    if hasattr(tarfile, "data_filter"):  # refuse links and paths out of the directory
        tar.extractall(into, members=members, filter="data")
    else:  # pragma: no cover - Pythons before 3.11.4
        tar.extractall(into, members=members)


def audit_json(argv: list[str], env: dict[str, str], root: Path) -> str:
    done = subprocess.run([*argv, "--format", "json"], cwd=root, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    if done.returncode not in FINDINGS:
        raise SystemExit(f"{argv} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def same_findings(configs: dict[str, Runs]) -> None:
    """Every configuration of the audit prints the same JSON on every tree; else exit with
    the diff. Fills the warm audit's cache on the way."""
    count = 0
    audits = {name: runs for name, runs in configs.items() if name.startswith(AUDIT)}
    for n in range(len(configs[FLOOR_NAME])):
        outputs = {name: audit_json(*runs[n]) for name, runs in audits.items()}
        (first, expected), *rest = outputs.items()
        for name, found in rest:
            if found != expected:
                diff = difflib.unified_diff(expected.splitlines(), found.splitlines(), first,
                                            name, lineterm="")  # fmt: skip
                raise SystemExit("the findings differ:\n" + "\n".join(list(diff)[:60]))
        count += expected.count('"code"')
    print(f"findings: {count}, identical in {len(audits)} configurations of the audit")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true", help="also count instructions")
    parser.add_argument("--baseline", metavar="REV", help="also run the audit as of REV")
    parser.add_argument("--flake8", action="store_true", help="also run flake8")
    parser.add_argument("--sdists", type=Path, help="a directory holding the sdists")
    args = parser.parse_args()
    from truegreen.audit.project import discover_project
    from truegreen.audit.run import python_files

    env = environment()
    here = str(Path(__file__).resolve().parent.parent / "src")
    configs: dict[str, Runs] = {FLOOR_NAME: [], COLD_NAME: [], WARM_NAME: []}
    with tempfile.TemporaryDirectory(prefix="tg-audit-bench-") as tmp:
        script = Path(tmp) / "floor.py"
        script.write_text(FLOOR, encoding="utf-8")
        source = export_source(args.baseline, Path(tmp)) if args.baseline else None
        baseline = f"{AUDIT} at {args.baseline}, cold"
        total = 0
        for tree in TREES:
            root = fetch(tree, args.sdists)
            testing = root / tree.tests
            files = python_files(discover_project(testing), [testing])
            lines = sum(len(f.read_bytes().splitlines()) for f in files)
            total += lines
            print(f"{tree.name} {tree.version} {tree.tests}/: {len(files)} files, {lines} lines")
            listing = Path(tmp) / f"{tree.name}.txt"
            listing.write_text("\n".join(str(f) for f in files), encoding="utf-8")
            audit = [sys.executable, "-m", "truegreen", "audit", tree.tests]
            # Every audit imports truegreen from PYTHONPATH: all search the same module path.
            ours = {**env, "PYTHONPATH": here}
            shutil.rmtree(root / ".truegreen_cache", ignore_errors=True)
            configs[FLOOR_NAME].append(([sys.executable, str(script), str(listing)], env, root))
            configs[COLD_NAME].append(([*audit, "--no-cache"], ours, root))
            configs[WARM_NAME].append((audit, ours, root))
            if source is not None:
                old = {**env, "PYTHONPATH": str(source)}
                cold = "--no-cache" in (source / "truegreen" / "cli" / "audit.py").read_text()
                configs.setdefault(baseline, []).append(
                    ([*audit, *(["--no-cache"] * cold)], old, root)
                )
            if args.flake8:
                flake8 = [sys.executable, "-m", "flake8", "--jobs=1", tree.tests]
                configs.setdefault("flake8 + pytest-style", []).append((flake8, env, root))
        print(f"in all: {total} lines")
        same_findings(configs)
        # A stamp younger than the quick answer's SETTLE_NS is not trusted: the tree the warm
        # audit meets in a pre-commit hook was written before, not within the last seconds.
        time.sleep(SETTLE)
        medians = measure(configs, args.rounds)
        counts = (
            {name: sum(instructions(argv, root, env, expect=FINDINGS) for argv, env, root in runs)
             for name, runs in configs.items() if not name.startswith("flake8")}
            if args.callgrind else {}
        )  # fmt: skip
    report(medians, counts)
    return 0


def measure(configs: dict[str, Runs], rounds: int) -> dict[str, tuple[float, float]]:
    """Medians of (wall, CPU seconds) per configuration, summed over the trees, rounds
    alternating."""
    for runs in configs.values():
        for argv, env, root in runs:
            timed_status(argv, root, env, expect=FINDINGS)  # warm caches and bytecode
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
    for _ in range(rounds):
        for name, runs in configs.items():
            each = [timed_status(argv, root, env, expect=FINDINGS) for argv, env, root in runs]
            found[name].append((sum(w for w, _ in each), sum(c for _, c in each)))
    return {
        name: (statistics.median(w for w, _ in got), statistics.median(c for _, c in got))
        for name, got in found.items()
    }


def report(medians: dict[str, tuple[float, float]], counts: dict[str, float]) -> None:
    floor_wall, floor_cpu = medians[FLOOR_NAME]
    width = max(len(name) for name in medians) + 2
    for name, (wall, cpu) in medians.items():
        ratios = f"wall {wall / floor_wall:.2f}, CPU {cpu / floor_cpu:.3f}"
        count: Optional[float] = counts.get(name)
        if count is not None:
            ratios += f", instructions {count / counts[FLOOR_NAME]:.3f} ({count / 1e9:.3f}e9)"
        print(f"{name + ':':<{width}} wall {wall:.3f}s  CPU {cpu:.3f}s  ratio to floor: {ratios}")
    cold, warm = medians[COLD_NAME][1] / floor_cpu, medians[WARM_NAME][1] / floor_cpu
    print(f"cold {cold:.3f}x, warm {warm:.3f}x the floor (CPU); targets: cold <= 1.6x, "
          "warm <= 0.1x")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
