"""``truegreen repro``'s clean room: a fresh clone of one revision in a temporary directory, a
fresh venv with the project's declared test dependencies, and its suite run sealed there."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional
from xml.etree.ElementTree import ParseError

from truegreen.core.config import read_toml
from truegreen.core.errors import ConfigError, TruegreenError, UsageError
from truegreen.core.outcomes import Outcomes
from truegreen.core.repro import PYTHON, Plan, junit_messages, plan
from truegreen.guards.git import GitError, git
from truegreen.runner.process import PytestProcess, last_line
from truegreen.runner.procs import sealed_environment

WHO = "truegreen repro"
Progress = Callable[[str], None]
# A command of --install whose first word is one of these runs with the clean room's Python.
_PYTHONS = ("python", "python3")
_PIPS = ("pip", "pip3")


class CleanRoomFailed(TruegreenError):
    """The clean room could not be built or could not run the suite, as CI would not: a
    finding, exit status 1."""

    slug = "repro"
    exit_status = 1


@dataclass(frozen=True)
class Checkout:
    """The repository: its top, the revision asked for and its commit, and the changes of
    the working tree (``git status`` codes and paths), which no clone carries."""

    root: Path
    rev: str
    sha: str
    uncommitted: tuple[tuple[str, str], ...]


def checkout(cwd: Path, rev: str) -> Checkout:
    """The git checkout around ``cwd`` and the commit ``rev`` names; a one-line
    :class:`UsageError` when there is no checkout or no such revision."""
    try:
        top = git(["rev-parse", "--show-toplevel"], str(cwd))
        if not top.ok:
            raise UsageError(f"{WHO}: expected a git checkout, found none at {str(cwd)!r}; "
                             "run it inside the repository")  # fmt: skip
        root = top.text()
        sha = git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root)
        if not sha.ok:
            raise UsageError(f"{WHO}: REV expected a git revision of {root}, found {rev!r}; "
                             "name a branch, tag or commit")  # fmt: skip
        status = git(["status", "--porcelain", "-z", "--untracked-files=all"], root)
    except GitError as exc:
        raise UsageError(f"{WHO}: {exc}") from None
    entries = status.stdout.split(b"\0") if status.ok else []
    changes: list[tuple[str, str]] = []
    skip = False
    for entry in entries:
        if skip or len(entry) < 4:
            skip = False
            continue
        code = os.fsdecode(entry[:2])
        changes.append((code, os.fsdecode(entry[3:])))
        skip = code[0] in "RC"  # a rename's or copy's source follows
    return Checkout(Path(root), rev, sha.text(), tuple(changes))


def _bin(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin")


class CleanRoom:
    """A temporary directory holding ``checkout/`` (the clone) and ``venv/``; removed by
    :meth:`close` unless kept."""

    def __init__(self, progress: Progress, keep: bool = False) -> None:
        self.top = Path(tempfile.mkdtemp(prefix="truegreen-repro-"))
        self.source = self.top / "checkout"
        self.venv = self.top / "venv"
        self.log = self.top / "install.log"
        self.progress = progress
        self.keep = keep

    @property
    def python(self) -> str:
        return str(_bin(self.venv) / ("python.exe" if os.name == "nt" else "python"))

    def close(self) -> None:
        if self.keep:
            self.progress(f"the clean room is kept at {self.top}")
        else:
            shutil.rmtree(self.top, ignore_errors=True)

    # -- building it --------------------------------------------------------------------

    def clone(self, repo: Checkout) -> None:
        """``git clone --no-hardlinks`` of the repository, then its commit checked out."""
        self.progress(f"cloning {repo.root} at {repo.rev} ({repo.sha[:12]}) into {self.source}")
        steps = (
            (["clone", "--quiet", "--no-hardlinks", "--no-checkout", str(repo.root),
              str(self.source)], str(self.top)),
            (["-c", "advice.detachedHead=false", "checkout", "--quiet", repo.sha],
             str(self.source)),
        )  # fmt: skip
        for args, cwd in steps:
            try:
                done = git(args, cwd)
            except GitError as exc:
                raise UsageError(f"{WHO}: {exc}") from None
            if not done.ok:
                raise CleanRoomFailed(f"{WHO}: git {args[0]} failed: {done.complaint()}")

    def files(self) -> list[str]:
        """The clone's tracked files, relative to its top."""
        return git(["ls-files", "-z"], str(self.source)).names()

    def plan(self, extras: Sequence[str], install: Sequence[str]) -> Plan:
        pyproject = self.source / "pyproject.toml"
        try:
            parsed = read_toml(pyproject) if pyproject.is_file() else None
        except ConfigError as exc:
            raise CleanRoomFailed(f"{WHO}: in the clean room: {exc}") from None
        return plan(self.files(), parsed, extras=extras, install=install)

    def make_venv(self, inherit: bool) -> None:
        """``python -m venv`` (without pip when it inherits this environment's packages,
        pip included)."""
        argv = [sys.executable, "-m", "venv", *(["--without-pip"] if inherit else []),
                str(self.venv)]  # fmt: skip
        self.progress(f"creating a venv: python {shlex.join(argv[1:])}")
        self._call(argv, os.environ, str(self.top), "python -m venv")
        if inherit:
            lines = [f"import site; site.addsitedir({d!r})\n" for d in _site_dirs()]
            (self._site() / "truegreen-repro-inherited.pth").write_text("".join(lines))

    def install(self, chosen: Plan, environ: Mapping[str, str]) -> None:
        """Run the plan's commands in the clone, in ``environ`` (the shell's: pip's own
        variables, ``PIP_NO_INDEX``, ``PIP_FIND_LINKS``, ``PIP_INDEX_URL``, apply) with the
        venv first on ``PATH``."""
        if chosen.commands:
            self.progress(f"installing the test dependencies from {chosen.chose}")
        else:
            self.progress(f"installing {chosen.chose}")
        env = self.environment(environ)
        env["UV_PROJECT_ENVIRONMENT"] = str(self.venv)
        for command in chosen.commands:
            argv = [self.python if word == PYTHON else word for word in command]
            if argv and argv[0] in _PYTHONS:
                argv[0] = self.python
            elif argv and argv[0] in _PIPS:
                argv[:1] = [self.python, "-m", "pip"]
            shown = shlex.join("python" if word == PYTHON else word for word in command)
            self.progress(f"  $ {shown}")
            self._call(argv, env, str(self.source), shown)

    def environment(self, environ: Mapping[str, str]) -> dict[str, str]:
        """``environ`` with the venv active: its scripts first on ``PATH``, ``VIRTUAL_ENV``."""
        env = {k: v for k, v in environ.items() if k not in ("PYTHONHOME", "__PYVENV_LAUNCHER__")}
        env["PATH"] = os.pathsep.join(filter(None, (str(_bin(self.venv)), environ.get("PATH"))))
        env["VIRTUAL_ENV"] = str(self.venv)
        return env

    def ready(self, chosen: Plan) -> None:
        """pytest in the venv, and truegreen, put in from this environment when the project's
        dependencies did not install it (a copy of the package, nothing downloaded)."""
        probe = ("import importlib.util as u, sys; sys.stdout.write(' '.join("
                 "n for n in ('pytest', 'truegreen') if u.find_spec(n) is None))")  # fmt: skip
        done = subprocess.run([self.python, "-E", "-c", probe], capture_output=True, text=True,
                              cwd=str(self.top), env=self._bare(), stdin=subprocess.DEVNULL,
                              check=False)  # fmt: skip
        missing = done.stdout.split()
        if done.returncode != 0 or "pytest" in missing:
            raise CleanRoomFailed(
                f"{WHO}: pytest is not installed in the clean room by {chosen.chose}: CI "
                "would fail the same way; declare it among the test dependencies, or give "
                "--install or --extra"
            )
        if "truegreen" in missing:
            self._add_truegreen()

    def _add_truegreen(self) -> None:
        import importlib.metadata

        import truegreen

        lib = self.top / "truegreen-lib"
        shutil.copytree(Path(truegreen.__file__).parent, lib / "truegreen",
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
        dist = importlib.metadata.distribution("truegreen")
        info = lib / f"truegreen-{truegreen.__version__}.dist-info"
        info.mkdir()
        for name in ("METADATA", "entry_points.txt"):
            (info / name).write_text(dist.read_text(name) or "", encoding="utf-8")
        (self._site() / "truegreen-repro.pth").write_text(f"{lib}\n", encoding="utf-8")
        self.progress("truegreen put into the clean room (copied from this environment)")

    def _site(self) -> Path:
        probe = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        done = subprocess.run([self.python, "-E", "-c", probe], capture_output=True, text=True,
                              env=self._bare(), stdin=subprocess.DEVNULL, check=True)  # fmt: skip
        return Path(done.stdout.strip())

    def _bare(self) -> dict[str, str]:
        """The venv active and nothing else, as the sealed run has it (with ``-E``, not even
        a ``PYTHONPATH`` a parent adds to every child)."""
        return self.environment({k: os.environ[k] for k in ("PATH", "SYSTEMROOT")
                                 if k in os.environ})  # fmt: skip

    def _call(self, argv: Sequence[str], env: Mapping[str, str], cwd: str, shown: str) -> None:
        with open(self.log, "ab") as output:
            try:
                done = subprocess.run(list(argv), cwd=cwd, env=dict(env), stdout=output,
                                      stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      check=False)  # fmt: skip
            except OSError as exc:
                raise CleanRoomFailed(f"{WHO}: in the clean room, {shown!r} could not start: "
                                      f"{exc.strerror or exc}") from None  # fmt: skip
        if done.returncode != 0:
            said = last_line(self.log.read_text(encoding="utf-8", errors="replace"))
            log = f"its output: {self.log}" if self.keep else "--keep keeps its output"
            raise CleanRoomFailed(f"{WHO}: in the clean room, {shown!r} exited "
                                  f"{done.returncode}: {said} ({log})")  # fmt: skip


def _site_dirs() -> list[str]:
    paths = sysconfig.get_paths()
    return list(dict.fromkeys(paths[k] for k in ("purelib", "platlib")))


@dataclass(frozen=True)
class Ran:
    """One side's run: each test's outcome, and the first line of why, by JUnit key."""

    outcomes: Outcomes
    messages: dict[tuple[str, str], str]


def run_suite(
    args: Sequence[str],
    *,
    cwd: Path,
    environ: Mapping[str, str],
    keep: Sequence[str],
    python: Optional[str] = None,
) -> Ran:
    """The suite with ``args``, sealed as ``truegreen run`` seals it, in ``cwd``; each test's
    outcome from the event stream, why from a JUnit XML report written beside it."""
    scratch = Path(tempfile.mkdtemp(prefix="truegreen-repro-run-"))
    try:
        home = scratch / "home"
        home.mkdir()
        report = scratch / "report.xml"
        env = sealed_environment(environ, str(home), keep)
        pytest = PytestProcess(args, who=WHO, env=env, cwd=cwd, python=python,
                               options=[f"--junitxml={report}"])  # fmt: skip
        outcomes = pytest.run()
        text = report.read_text(encoding="utf-8") if report.is_file() else ""
        try:
            messages = junit_messages(text) if text else {}
        except ParseError:  # a report cut short: outcomes still stand, only why is missing
            messages = {}
        return Ran(outcomes, messages)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
