"""``truegreen demo``: one small project, two machines, run plain and then under truegreen."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from truegreen.cli import add_verb
from truegreen.core.errors import TruegreenError
from truegreen.core.junit import read_junit

EXAMPLE = """\
  truegreen demo
  truegreen demo --keep     # leave the sample project and its homes for a look
"""

SHELL = "your shell (GREETER_STYLE=shout exported)"
CLEAN = "a clean CI machine"
# Variables of the person running the demo that would change its story.
_SCRUB_PREFIXES = ("GREETER_", "TRUEGREEN_", "XDG_")
_SCRUB = {"PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PY_COLORS"}


def add_parser(verbs: Any) -> None:
    parser = add_verb(
        verbs,
        "demo",
        summary="run the embedded sample project plain and under truegreen",
        description="Copy a small sample project into a temporary directory and run its "
        "suite four times: plain and under truegreen, each in a developer's shell and on a "
        "clean machine. Nothing outside the temporary directory is read or written. "
        "Exit 0 when truegreen sealed every run as it should.",
        example=EXAMPLE,
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary directory and print its path"
    )
    parser.set_defaults(run=run)


@dataclass(frozen=True)
class Outcome:
    """What one pytest run of the sample did."""

    passed: int
    failed: list[tuple[str, str]]  # (test, first line of the failure)
    written: list[str]  # files that appeared in the home it ran with

    def counts(self) -> str:
        text = f"{self.passed} passed"
        return text + (f", {len(self.failed)} failed" if self.failed else "")


def copy_sample(dest: Path) -> None:
    """Copy the sample project that ships inside the package into ``dest``."""
    dest.mkdir(parents=True)
    for entry in resources.files("truegreen.demo").joinpath("sample").iterdir():
        if entry.is_file() and entry.name.endswith((".py", ".toml")):
            dest.joinpath(entry.name).write_bytes(entry.read_bytes())


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _environment(home: Path, shell: bool) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in _SCRUB and not k.startswith(_SCRUB_PREFIXES)
    }
    env.update(HOME=str(home), USERPROFILE=str(home), PYTHONDONTWRITEBYTECODE="1")
    if shell:
        env["GREETER_STYLE"] = "shout"
    return env


def run_matrix(workdir: Path) -> dict[tuple[bool, bool], Outcome]:
    """Run the sample four times at once: (sealed?, developer shell?) -> outcome."""
    project = workdir / "greeter"
    copy_sample(project)
    runs = {}
    for sealed in (False, True):
        for shell in (True, False):
            tag = f"{'sealed' if sealed else 'plain'}-{'shell' if shell else 'clean'}"
            home = workdir / f"home-{tag}"
            home.mkdir()
            report = workdir / f"{tag}.xml"
            argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
            argv += [] if sealed else ["-p", "no:truegreen"]
            argv += [f"--junitxml={report}", "-o", "junit_family=xunit1"]
            proc = subprocess.Popen(
                argv,
                cwd=project,
                env=_environment(home, shell),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            runs[(sealed, shell)] = (proc, home, report)
    outcomes = {}
    for key, (proc, home, report) in runs.items():
        output, _ = proc.communicate()
        if not report.is_file():
            text = output.decode(errors="replace").strip().splitlines()
            raise TruegreenError(f"pytest did not run the sample: {text[-1] if text else '?'}")
        results = read_junit(report)
        failed = [(name.rsplit("::", 1)[-1], why) for name, why in results.failed]
        outcomes[key] = Outcome(results.passed, failed, sorted(_files(home)))
    return outcomes


def _line(label: str, outcome: Outcome) -> list[str]:
    wrote = (
        f"wrote into HOME: {', '.join(outcome.written)}" if outcome.written else "HOME untouched"
    )
    lines = [f"   {label + ':':<44} {outcome.counts():<20} {wrote}"]
    lines += [f"       failed: {name}  ({why})" for name, why in outcome.failed]
    return lines


def story(outcomes: dict[tuple[bool, bool], Outcome]) -> tuple[list[str], bool]:
    """The screenful the demo prints, and whether truegreen did what it promises."""
    plain_shell, plain_clean = outcomes[(False, True)], outcomes[(False, False)]
    sealed_shell, sealed_clean = outcomes[(True, True)], outcomes[(True, False)]
    lines = [
        "truegreen demo: one small project, two machines, run plain and then under truegreen.",
        "",
        "The project: greeter.py greets by name, reads GREETER_STYLE, and keeps a history in",
        "~/.cache/greeter. test_greeter.py has 3 tests. Its pyproject.toml declares the app's",
        'own variables to truegreen: clear-env-prefixes = ["GREETER_"].',
        "",
        "1. plain pytest (-p no:truegreen)",
        *_line(SHELL, plain_shell),
        *_line(CLEAN, plain_clean),
    ]
    if plain_shell.failed != plain_clean.failed:
        lines.append(
            "   -> same code, same tests, different verdicts: an ambient variable decided."
        )
    if plain_shell.written or plain_clean.written:
        lines.append("   -> and every run leaves files in the home directory it ran with.")
    lines += ["", "2. under truegreen", *_line(SHELL, sealed_shell), *_line(CLEAN, sealed_clean)]
    sealed_ok = (
        not sealed_shell.failed
        and not sealed_clean.failed
        and sealed_shell.passed == sealed_clean.passed
        and not sealed_shell.written
        and not sealed_clean.written
    )
    if sealed_ok:
        lines += [
            "   -> the same verdict on both machines and nothing written: each test got a fresh",
            "      empty HOME, TZ=UTC, no git identity, no credentials, no GREETER_* variable.",
        ]
    else:
        lines.append("   -> truegreen did NOT seal this run as it should: please report it.")
    lines += [
        "",
        "On your own project: pip install truegreen, then run pytest as usual.",
        "truegreen doctor shows what is sealed; declare your app's variables in [tool.truegreen].",
    ]
    return lines, sealed_ok


def run(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="truegreen-demo-"))
    try:
        lines, ok = story(run_matrix(workdir))
        print("\n".join(lines))
        if args.keep:
            print(f"\nkept: {workdir}")
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
