"""What the two gates cost beside the work they cannot avoid.

collect-gate: a 200-file suite in a git repository with 20 changed test files; ``truegreen
collect-gate`` (git, one collection with the recording plugin, the verdicts) against the
``pytest --collect-only -q`` it wraps. Target: <= 1.3x.

docs-check: 300 generated Markdown pages (headings, fenced code, 30 links each, a third to
anchors in other pages); ``truegreen docs-check`` against the floor of reading every page and
finding its ``](target)`` links with one regular expression in the same interpreter. No
target; the figure says what GitHub's slug rules, code blocks and anchors cost over the floor
(the start-up of the ``truegreen`` command, measured alone, is part of it).

    python bench/gates_cost.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import environment, timed

FILES, PER_FILE, CHANGED = 200, 10, 20
PAGES, LINKS = 300, 30
FLOOR = (
    "import pathlib, re\n"
    "pattern = re.compile(r'\\]\\(([^)\\s]+)\\)')\n"
    "found = [m for p in sorted(pathlib.Path('.').rglob('*.md'))\n"
    "         for m in pattern.findall(p.read_text(encoding='utf-8'))]\n"
    "assert found\n"
)


def git(root: Path, *args: str) -> None:
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", *identity, *args], cwd=root, env=environment(), check=True,
                   capture_output=True)  # fmt: skip


def make_suite(root: Path) -> None:
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    for f in range(FILES):
        tests = [f"def test_{n}():\n    assert {n} + 1 > {n}\n" for n in range(PER_FILE)]
        (root / "tests" / f"test_m{f:03}.py").write_text("\n\n".join(tests))
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "suite")
    for f in range(CHANGED):
        (root / "tests" / f"test_new{f:02}.py").write_text("def test_new():\n    assert True\n")


def make_docs(root: Path) -> None:
    for p in range(PAGES):
        lines = [f"# Page {p}", ""]
        for section in range(10):
            lines += [f"## Section {section}: the `part` of *page* {p}", "",
                      "```python", "[not a link](nowhere.md)", "```", ""]  # fmt: skip
            for n in range(LINKS // 10):
                other = (p + n * 7 + section) % PAGES
                target = f"page{other:03}.md#section-{n}-the-part-of-page-{other}" if n % 3 == 0 \
                    else f"page{other:03}.md"  # fmt: skip
                lines.append(f"See [page {other}]({target}) and `code [x](y.md)` for more.")
            lines.append("")
        (root / f"page{p:03}.md").write_text("\n".join(lines))


def measure(
    configs: dict[str, list[str]], root: Path, rounds: int
) -> dict[str, tuple[float, float]]:
    for argv in configs.values():
        timed(argv, root)  # warm caches; every configuration must succeed
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
    for _ in range(rounds):
        for name, argv in configs.items():
            runs[name].append(timed(argv, root))
    return {n: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
            for n, r in runs.items()}  # fmt: skip


def report(title: str, medians: dict[str, tuple[float, float]], target: str) -> None:
    print(title)
    for name, (wall, cpu) in medians.items():
        print(f"  {name + ':':<40} wall {wall:.3f}s  cpu {cpu:.3f}s")
    (top, (tw, tc)), (bottom, (bw, bc)) = list(medians.items())[:2]
    print(f"  ratio {top} / {bottom}: wall {tw / bw:.3f}, cpu {tc / bc:.3f} ({target})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="tg-gates-bench-") as tmp:
        suite, docs = Path(tmp) / "suite", Path(tmp) / "docs"
        suite.mkdir()
        docs.mkdir()
        make_suite(suite)
        make_docs(docs)
        gate = measure({
            "truegreen collect-gate": [python, "-m", "truegreen", "collect-gate", "--", "-q"],
            "pytest --collect-only -q": [python, "-m", "pytest", "--collect-only", "-q"],
        }, suite, args.rounds)  # fmt: skip
        check = measure({
            "truegreen docs-check": [python, "-m", "truegreen", "docs-check"],
            "read + one link regex (floor)": [python, "-c", FLOOR],
            "truegreen --version (start-up alone)": [python, "-m", "truegreen", "--version"],
        }, docs, args.rounds)  # fmt: skip
    print(f"rounds: {args.rounds} (medians)")
    report(f"collect-gate: {FILES + CHANGED} files, {CHANGED} changed", gate, "target <= 1.3")
    report(f"docs-check: {PAGES} pages, {PAGES * LINKS} links", check, "no target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
