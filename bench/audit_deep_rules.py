"""The audit rules that look across files, over pytest's own test suite: precision and cost.

Fetches the pytest 8.3.4 sdist once into ``~/.cache/truegreen-bench/`` (``pip download``)
and audits ``testing/`` (without ``testing/example_scripts``, which pytest's own
``norecursedirs`` leaves out: those are inputs for pytester, not tests) as the project
``_pytest``/``pytest`` with sources under ``src/``. Prints:

- no-assertion (TG105): tests flagged over tests, beside a naive rule that flags every test
  with no ``assert`` statement;
- every finding of TG102, TG105, TG201, TG202 and TG203, for a hand check;
- CPU seconds of an ``ast.parse``-only loop over the same files (the floor of any Python
  linter), of the engine's parse and walk with no rule (what every rule shares), and of the
  engine with those five rules (plus the import graph and helper following), alternating,
  median of ``--rounds``, each as a ratio to the floor.

    python bench/audit_deep_rules.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from truegreen.audit import registry
from truegreen.audit.base import Finding, Project
from truegreen.audit.engine import check_source

VERSION = "8.3.4"
CACHE = Path.home() / ".cache" / "truegreen-bench"
CODES = ("TG102", "TG105", "TG201", "TG202", "TG203")


def fetch() -> Path:
    """The unpacked sdist, downloaded once."""
    root = CACHE / f"pytest-{VERSION}"
    if not root.is_dir():
        CACHE.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
        subprocess.run([*argv, f"pytest=={VERSION}", "-d", str(CACHE)], check=True)
        with tarfile.open(CACHE / f"pytest-{VERSION}.tar.gz") as archive:
            archive.extractall(CACHE)
    return root


def sources(root: Path) -> list[tuple[Path, str, str]]:
    found = []
    for path in sorted((root / "testing").rglob("*.py")):
        relpath = path.relative_to(root).as_posix()
        if not relpath.startswith("testing/example_scripts/"):
            found.append((path, relpath, path.read_text(encoding="utf-8")))
    return found


def project(root: Path) -> Project:
    return Project(
        root=root, packages=frozenset({"_pytest", "pytest"}), source_roots=(root / "src",)
    )


def tests_of(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Test functions and methods of Test* classes, fixtures left out, as TG105 sees them."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    candidates = [n for n in tree.body if isinstance(n, functions)]
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and cls.name.startswith("Test"):
            candidates.extend(n for n in cls.body if isinstance(n, functions))
    return [
        n
        for n in candidates
        if n.name.startswith("test") and "fixture" not in ast.dump(ast.Module(n.decorator_list))
    ]


def audit(
    root: Path, files: list[tuple[Path, str, str]], codes: tuple[str, ...] = CODES
) -> list[Finding]:
    rules = [registry.rule(code) for code in codes]
    audited = project(root)
    return [f for path, rel, text in files for f in check_source(audited, path, rel, text, rules)]


def parse_only(files: list[tuple[Path, str, str]]) -> None:
    for path, _, text in files:
        ast.parse(text, filename=str(path))


def cpu(action: object, *args: object) -> float:
    start = time.process_time()
    action(*args)  # type: ignore[operator]
    return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    root = fetch()
    files = sources(root)
    tests = naive = 0
    for _, relpath, text in files:
        name = relpath.rsplit("/", 1)[-1]
        if name.startswith("test_") or name.endswith("_test.py"):
            found = tests_of(ast.parse(text))
            tests += len(found)
            naive += sum(not any(isinstance(n, ast.Assert) for n in ast.walk(t)) for t in found)
    findings = audit(root, files)
    for finding in findings:
        print(f"{finding.code} {finding.path}:{finding.line} {finding.message}")
    flagged = sum(f.code == "TG105" for f in findings)
    print(f"\n{len(files)} files, {tests} tests in pytest {VERSION}'s testing/")
    print(f"no-assertion flags {flagged} tests ({flagged / tests:.1%}); ", end="")
    print(f"a naive rule (no assert statement) flags {naive} ({naive / tests:.1%})")
    floor: list[float] = []
    walk: list[float] = []
    rules: list[float] = []
    for _ in range(options.rounds):
        floor.append(cpu(parse_only, files))
        walk.append(cpu(audit, root, files, ()))
        rules.append(cpu(audit, root, files))
    low, mid, high = (statistics.median(x) for x in (floor, walk, rules))
    print(f"CPU seconds, median of {options.rounds} rounds:")
    print(f"  ast.parse only                      {low:.3f}  1.00x")
    print(f"  the engine's parse and walk, no rule {mid:.3f}  {mid / low:.2f}x")
    print(f"  the engine with {', '.join(CODES)} {high:.3f}  {high / low:.2f}x")
    print(f"  the five rules alone add {(high - mid) / low:.2f}x the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
