"""The audit's speed over a large real test tree, against the parse floor and flake8.

pytest's own ``testing/`` directory from its sdist (pinned below), fetched once with
``pip download`` into ``$XDG_CACHE_HOME/truegreen-bench`` (``~/.cache/truegreen-bench``) and
reused; the measured part is offline. Side by side, alternating, in one invocation, CPU
seconds of each process and its children:

- the floor: one Python process that reads and ``ast.parse``-s every file the audit reads;
- ``truegreen audit`` with every default rule;
- with ``--baseline REV``, the audit as it was at git revision REV (its ``src/``, exported
  with ``git archive`` into a temporary directory): the run fails unless both print the same
  JSON findings, so a change made for speed is shown to keep every finding;
- ``flake8`` (pycodestyle, pyflakes, mccabe) with flake8-pytest-style, ``--jobs=1``
  (``--no-flake8`` leaves it out: it takes 20 times as long as the rest together).

With ``--callgrind``, each configuration but flake8 also runs once under
``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``: an instruction count that repeats
exactly, whatever the load of the machine. Target: the audit <= 2.0x the floor (CPU).

    python bench/audit_speed.py [--rounds 5] [--callgrind] [--baseline REV] [--no-flake8]
"""

from __future__ import annotations

import argparse
import difflib
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Optional

from measure import environment, instructions, timed_status

PYTEST = "8.3.5"
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
AUDIT_NAME = "truegreen audit"
FINDINGS = (0, 1)  # the audit exits 1 when it finds something: a success here


def cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "truegreen-bench"


def fetch() -> Path:
    """pytest's ``testing/`` tree, unpacked from its sdist on first use."""
    root = cache() / f"pytest-{PYTEST}"
    if (root / "testing").is_dir():
        return root
    cache().mkdir(parents=True, exist_ok=True)
    archive = cache() / f"pytest-{PYTEST}.tar.gz"
    if not archive.is_file():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
             ":all:", f"pytest=={PYTEST}", "--dest", str(cache())],
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


def audit_json(argv: list[str], root: Path, env: dict[str, str]) -> str:
    done = subprocess.run([*argv, "--format", "json"], cwd=root, env=env, capture_output=True,
                          text=True, check=False)  # fmt: skip
    if done.returncode not in FINDINGS:
        raise SystemExit(f"{argv} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def same_findings(configs: dict[str, tuple[list[str], dict[str, str]]], root: Path) -> None:
    """Every configuration of the audit prints the same JSON; else exit with the diff."""
    outputs = {
        name: audit_json(argv, root, env)
        for name, (argv, env) in configs.items()
        if name.startswith(AUDIT_NAME)
    }
    (first, expected), *rest = outputs.items()
    for name, found in rest:
        if found != expected:
            diff = difflib.unified_diff(expected.splitlines(), found.splitlines(), first, name,
                                        lineterm="")  # fmt: skip
            raise SystemExit("the findings differ:\n" + "\n".join(list(diff)[:60]))
    count = expected.count('"code"')
    print(f"findings: {count}, identical in {len(outputs)} configurations of the audit")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true", help="also count instructions")
    parser.add_argument("--baseline", metavar="REV", help="also run the audit as of REV")
    parser.add_argument("--no-flake8", action="store_true", help="leave flake8 out")
    args = parser.parse_args()
    from truegreen.audit.project import discover_project
    from truegreen.audit.run import python_files

    root = fetch()
    testing = root / "testing"
    files = python_files(discover_project(testing), [testing])
    lines = sum(len(f.read_bytes().splitlines()) for f in files)
    print(f"pytest {PYTEST} testing/: {len(files)} files, {lines} lines")
    with tempfile.TemporaryDirectory(prefix="tg-audit-bench-") as tmp:
        listing = Path(tmp) / "files.txt"
        listing.write_text("\n".join(str(f) for f in files), encoding="utf-8")
        script = Path(tmp) / "floor.py"
        script.write_text(FLOOR, encoding="utf-8")
        env = environment()
        audit = [sys.executable, "-m", "truegreen", "audit", str(testing)]
        # Both audits import truegreen from PYTHONPATH, so both search the same module path.
        here = str(Path(__file__).resolve().parent.parent / "src")
        configs = {
            FLOOR_NAME: ([sys.executable, str(script), str(listing)], env),
            AUDIT_NAME: (audit, {**env, "PYTHONPATH": here}),
        }
        if args.baseline:
            source = export_source(args.baseline, Path(tmp))
            configs[f"{AUDIT_NAME} at {args.baseline}"] = (
                audit,
                {**env, "PYTHONPATH": str(source)},
            )
        if not args.no_flake8:
            flake8 = [sys.executable, "-m", "flake8", "--jobs=1", str(testing)]
            configs["flake8 + pytest-style"] = (flake8, env)
        same_findings(configs, root)
        medians = measure(configs, root, args.rounds)
        counts = (
            {name: instructions(argv, root, env, expect=FINDINGS)
             for name, (argv, env) in configs.items() if not name.startswith("flake8")}
            if args.callgrind else {}
        )  # fmt: skip
    report(medians, counts)
    return 0


def measure(
    configs: dict[str, tuple[list[str], dict[str, str]]], root: Path, rounds: int
) -> dict[str, tuple[float, float]]:
    """Medians of (wall, CPU seconds) per configuration, rounds alternating."""
    for argv, env in configs.values():
        timed_status(argv, root, env, expect=FINDINGS)  # warm caches and bytecode
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
    for _ in range(rounds):
        for name, (argv, env) in configs.items():
            runs[name].append(timed_status(argv, root, env, expect=FINDINGS))
    return {
        name: (statistics.median(w for w, _ in found), statistics.median(c for _, c in found))
        for name, found in runs.items()
    }


def report(medians: dict[str, tuple[float, float]], counts: dict[str, float]) -> None:
    floor_wall, floor_cpu = medians[FLOOR_NAME]
    width = max(len(name) for name in medians) + 2
    for name, (wall, cpu) in medians.items():
        ratios = f"wall {wall / floor_wall:.2f}, CPU {cpu / floor_cpu:.2f}"
        count: Optional[float] = counts.get(name)
        if count is not None:
            ratios += f", instructions {count / counts[FLOOR_NAME]:.3f} ({count / 1e9:.3f}e9)"
        print(f"{name + ':':<{width}} wall {wall:.3f}s  CPU {cpu:.3f}s  ratio to floor: {ratios}")
    print("target: truegreen audit <= 2.0x the floor (CPU)")


if __name__ == "__main__":
    sys.exit(main())
