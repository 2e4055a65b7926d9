"""The audit's speed over a large real test tree, against the parse floor and flake8.

pytest's own ``testing/`` directory from its sdist (pinned below), fetched once with
``pip download`` into ``$XDG_CACHE_HOME/truegreen-bench`` (``~/.cache/truegreen-bench``) and
reused; the measured part is offline. Side by side, alternating, in one invocation, CPU
seconds of each process and its children:

- the floor: one Python process that reads and ``ast.parse``-s every file the audit reads;
- ``truegreen audit`` with every default rule;
- ``flake8`` (pycodestyle, pyflakes, mccabe) with flake8-pytest-style, ``--jobs=1``.

Target: the audit <= 2.0x the floor.

    python bench/audit_speed.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from measure import environment

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
        members = [m for m in tar.getmembers() if m.isfile()]
        if hasattr(tarfile, "data_filter"):  # refuse links and paths out of the cache
            tar.extractall(cache(), members=members, filter="data")
        else:  # pragma: no cover - Pythons before 3.11.4
            tar.extractall(cache(), members=members)
    return root


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU seconds with children) of one run; exit 0 or 1 (findings) is a success."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=environment(), capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed ({done.returncode}):\n{done.stderr[-3000:]!r}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
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
        configs = {
            "ast.parse floor": [sys.executable, str(script), str(listing)],
            "truegreen audit": [sys.executable, "-m", "truegreen", "audit", str(testing)],
            "flake8 + pytest-style": [sys.executable, "-m", "flake8", "--jobs=1", str(testing)],
        }
        for argv in configs.values():
            timed(argv, root)  # warm caches and bytecode
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
        for _ in range(args.rounds):
            for name, argv in configs.items():
                runs[name].append(timed(argv, root))
    medians = {
        name: (statistics.median(w for w, _ in found), statistics.median(c for _, c in found))
        for name, found in runs.items()
    }
    floor_wall, floor_cpu = medians["ast.parse floor"]
    for name, (wall, cpu) in medians.items():
        ratios = f"wall {wall / floor_wall:.2f}, CPU {cpu / floor_cpu:.2f}"
        print(f"{name + ':':<24} wall {wall:.3f}s  CPU {cpu:.3f}s  ratio to floor: {ratios}")
    print("target: truegreen audit <= 2.0x the floor (CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
