"""The audit's precision on real suites: every default rule over the tests of 32 projects.

The opt-in rules that were default once (``MEASURED_OPT_IN``) run too, with
``--extend-select``, and are reported in a table of their own: measured when selected.

For each project: the pinned source distribution (with its tests) is downloaded once into
``WORK/sdists`` with ``pip download --no-deps --no-binary :all:`` (nothing is downloaded when
it is there: the bench then runs without the network), unpacked into a temporary directory,
and ``truegreen audit --format json TESTS`` runs on its test directory, from the unpacked
root, with the default rules. Nothing is installed and no test runs.

Each finding is keyed by project, path, rule, a hash of its line's text and the count of
earlier findings with the same four (so a key survives lines moving). A fixed-seed sample of
the findings (a finding is in it when the hash of the seed and its key falls below
``--fraction``: whether one finding is sampled does not depend on the others, so a change to
a rule moves only its own findings in or out) is judged against the hand triage in
``bench/audit_triage.json`` (true, or false with the reason). Prints per rule and overall:
findings, sampled, true, false, precision (true over judged), and the sampled findings the
triage has no verdict for; ``--reasons`` lists each false finding with its reason,
``--untriaged`` each sampled finding without a verdict, with its line (to triage it).

    python bench/audit_realworld.py [--work DIR] [--projects attrs,click] [--reasons]
        [--untriaged] [--fraction 1.0]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TRIAGE = ROOT / "bench" / "audit_triage.json"
SEED = 18
# The share of findings sampled: at least 200 of them (every finding, at the time of writing).
FRACTION = 1.0
# Opt-in rules measured all the same (they moved to opt-in for their precision here): run
# with --extend-select, reported apart from the default rules.
MEASURED_OPT_IN = ("TG105", "TG106", "TG302")


@dataclass(frozen=True)
class Suite:
    name: str  # the distribution's name on the index
    version: str
    tests: str  # the test directory, relative to the sdist's root


SUITES = [
    # bench/realworld.py's 23 projects, the same versions
    Suite("attrs", "24.2.0", "tests"),
    Suite("click", "8.1.7", "tests"),
    Suite("python-dotenv", "1.0.1", "tests"),
    Suite("filelock", "3.16.1", "tests"),
    Suite("platformdirs", "4.3.6", "tests"),
    Suite("tomlkit", "0.13.2", "tests"),
    Suite("setuptools-scm", "8.1.0", "testing"),
    Suite("tzlocal", "5.2", "tests"),
    Suite("python-dateutil", "2.9.0.post0", "tests"),
    Suite("arrow", "1.3.0", "tests"),
    Suite("freezegun", "1.5.1", "tests"),
    Suite("humanize", "4.10.0", "tests"),
    Suite("termcolor", "2.4.0", "tests"),
    Suite("colorama", "0.4.6", "colorama/tests"),
    Suite("tabulate", "0.9.0", "test"),
    Suite("tqdm", "4.66.5", "tests"),
    Suite("black", "24.8.0", "tests"),
    Suite("keyring", "25.4.1", "tests"),
    Suite("dunamai", "1.22.0", "tests"),
    Suite("versioningit", "3.1.2", "test"),
    Suite("hatch-vcs", "0.4.0", "tests"),
    Suite("towncrier", "24.8.0", "src/towncrier/test"),
    Suite("typer", "0.12.5", "tests"),
    # and seven more, for web frameworks, HTTP clients, templates, plugins and a linter
    Suite("requests", "2.32.3", "tests"),
    Suite("flask", "3.0.3", "tests"),
    Suite("werkzeug", "3.0.4", "tests"),
    Suite("jinja2", "3.1.4", "tests"),
    Suite("httpx", "0.27.2", "tests"),
    Suite("pluggy", "1.5.0", "testing"),
    Suite("more-itertools", "10.5.0", "tests"),
    Suite("jupyter_core", "5.7.2", "tests"),
    Suite("pycodestyle", "2.12.1", "tests"),
]


@dataclass(frozen=True)
class Found:
    project: str
    code: str
    name: str
    path: str
    line: int
    message: str
    text: str  # the finding's line, stripped
    key: str


def sdist(suite: Suite, work: Path) -> Path:
    """The pinned sdist, downloaded once into ``work/sdists``."""
    sdists = work / "sdists"
    stem = f"{suite.name}-{suite.version}".lower().replace("-", "[-_]").replace(".", r"\.")

    def found() -> list[Path]:
        pattern = re.compile(stem + r"\.tar\.gz")
        return sorted(p for p in sdists.glob("*.tar.gz") if pattern.fullmatch(p.name.lower()))

    if not found():
        sdists.mkdir(parents=True, exist_ok=True)
        argv = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
                ":all:", "-d", str(sdists), f"{suite.name}=={suite.version}"]  # fmt: skip
        subprocess.run(argv, check=True)
    return found()[0]


def unpack(archive_path: Path, into: Path) -> Path:
    with tarfile.open(archive_path) as archive:
        top = archive.getnames()[0].split("/")[0]
        archive.extractall(into, filter="data")  # a pinned sdist from the index
    return into / top


def audit(suite: Suite, source: Path) -> list[Found]:
    """The default rules' findings over the suite's tests, each with its key."""
    argv = [sys.executable, "-m", "truegreen", "audit", "--format", "json",
            "--extend-select", ",".join(MEASURED_OPT_IN), suite.tests]  # fmt: skip
    done = subprocess.run(argv, cwd=source, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{suite.name}: {' '.join(argv)} exited {done.returncode}:\n"
                         f"{done.stdout[-2000:]}{done.stderr[-2000:]}")  # fmt: skip
    seen: Counter[tuple[str, str, str]] = Counter()
    found = []
    for f in json.loads(done.stdout)["findings"]:
        text = line_of(source / f["path"], f["line"])
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        nth = seen[(f["path"], f["code"], digest)]
        seen[(f["path"], f["code"], digest)] += 1
        key = f"{suite.name}/{f['path']}|{f['code']}|{digest}|{nth}"
        found.append(Found(suite.name, f["code"], f["name"], f["path"], f["line"],
                           f["message"], text, key))  # fmt: skip
    return found


def line_of(path: Path, line: int) -> str:
    try:
        lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def sampled(key: str, fraction: float) -> bool:
    digest = hashlib.sha256(f"{SEED}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") < fraction * 2**64


def precision(true: int, false: int) -> str:
    return f"{true / (true + false):.3f}" if true + false else "-"


def table(
    found: list[Found], verdicts: dict[str, Any], fraction: float, total_row: str = "all"
) -> list[list[str]]:
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    names = {f.code: f.name for f in found}
    for f in found:
        counts = rows[f.code]
        counts["findings"] += 1
        if not sampled(f.key, fraction):
            continue
        counts["sampled"] += 1
        verdict = verdicts.get(f.key)
        if verdict is None:
            counts["untriaged"] += 1
        else:
            counts["true" if verdict["verdict"] == "true" else "false"] += 1
    out = []
    total: Counter[str] = Counter()
    for code in sorted(rows):
        c = rows[code]
        total.update(c)
        out.append([f"{code} {names[code]}", str(c["findings"]), str(c["sampled"]),
                    str(c["true"]), str(c["false"]), precision(c["true"], c["false"]),
                    str(c["untriaged"])])  # fmt: skip
    out.append([total_row, str(total["findings"]), str(total["sampled"]), str(total["true"]),
                str(total["false"]), precision(total["true"], total["false"]),
                str(total["untriaged"])])  # fmt: skip
    return out


def markdown(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "truegreen-realworld",
                        help="where the sdists are kept, under sdists/ (the default is "
                        "bench/realworld.py's)")  # fmt: skip
    parser.add_argument("--projects", default="", help="comma-separated names (default: all)")
    parser.add_argument("--fraction", type=float, default=FRACTION,
                        help=f"the share of findings sampled (default {FRACTION})")  # fmt: skip
    parser.add_argument("--reasons", action="store_true", help="list the false findings")
    parser.add_argument("--untriaged", action="store_true",
                        help="list the sampled findings the triage has no verdict for")  # fmt: skip
    args = parser.parse_args(argv)
    names = [n for n in args.projects.split(",") if n]
    by_name = {s.name: s for s in SUITES}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        parser.error(f"--projects takes names among {', '.join(by_name)} (got {unknown})")
    suites = [by_name[n] for n in names] if names else SUITES
    verdicts = json.loads(TRIAGE.read_text(encoding="utf-8"))["findings"]
    found: list[Found] = []
    per_project: list[tuple[str, int]] = []
    with tempfile.TemporaryDirectory(prefix="audit-realworld-") as tmp:
        for suite in suites:
            source = unpack(sdist(suite, args.work), Path(tmp) / suite.name)
            findings = audit(suite, source)
            per_project.append((f"{suite.name} {suite.version}", len(findings)))
            found.extend(findings)
            if args.untriaged:
                for f in findings:
                    if sampled(f.key, args.fraction) and f.key not in verdicts:
                        print(f"{f.key}\n  {f.path}:{f.line}: {f.code} {f.message}")
                        print(context(source / f.path, f.line))
    print(f"{len(suites)} projects, findings: "
          + ", ".join(f"{name} {n}" for name, n in per_project))  # fmt: skip
    print(f"sample: seed {SEED}, fraction {args.fraction}\n")
    head = ["rule", "findings", "sampled", "true", "false", "precision", "untriaged"]
    default = [f for f in found if f.code not in MEASURED_OPT_IN]
    print("default rules:\n")
    print(markdown(head, table(default, verdicts, args.fraction, "all default")))
    print(
        f"\nopt-in rules, measured when selected (--extend-select {','.join(MEASURED_OPT_IN)}):\n"
    )
    opt_in = [f for f in found if f.code in MEASURED_OPT_IN]
    print(markdown(head, table(opt_in, verdicts, args.fraction, "all opt-in")))
    reported = {f.key for f in found}
    chosen = {s.name for s in suites}
    gone: Counter[str] = Counter()
    ahead: Counter[str] = Counter()
    for key, verdict in verdicts.items():
        project, code = key.split("/", 1)[0], key.split("|")[1]
        if project in chosen and key not in reported:
            # "note": triaged ahead of a change that will report it (see the note)
            (ahead if "note" in verdict else gone)[f"{code} {verdict['verdict']}"] += 1
    for counts, what in ((gone, "no longer reported"), (ahead, "ahead, not reported yet")):
        if counts:
            print(f"\ntriaged, {what}: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    if args.reasons:
        print("\nfalse findings, by rule and reason:")
        grouped: dict[tuple[str, str], list[Found]] = defaultdict(list)
        for f in found:
            verdict = verdicts.get(f.key)
            if sampled(f.key, args.fraction) and verdict and verdict["verdict"] == "false":
                grouped[(f.code, verdict["why"])].append(f)
        for (code, why), items in sorted(grouped.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
            where: dict[str, list[str]] = defaultdict(list)
            for f in items:
                where[f"{f.project} {f.path}"].append(str(f.line))
            at = "; ".join(f"{file}:{','.join(lines)}" for file, lines in where.items())
            print(f"- {code} ({len(items)}): {why}. At {at}.")
    return 0


def context(path: Path, line: int, around: int = 3) -> str:
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    first = max(line - around, 1)
    return "\n".join(f"    {n:5} {'>' if n == line else ' '} {lines[n - 1]}"
                     for n in range(first, min(line + around, len(lines)) + 1))  # fmt: skip


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.exit(main())
