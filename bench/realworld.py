"""truegreen on other people's suites: plain vs sealed, clean vs developer machine, leaks, audit.

For each project: download its source distribution (pinned, with its tests) with
``pip download --no-deps --no-binary :all:``, install it with the test dependencies it declares
into a venv of its own (plus a wheel of this truegreen checkout, built once per invocation and
installed again into every venv, as a user installs truegreen), then run its suite

1. plain (``-p no:truegreen``) and under truegreen's defaults (hermetic seal, write, network and
   program guards), on each machine of ``--profile``: *clean* (an empty home) and *developer*
   (a lived-in home: git identity, signing, default branch and colour, rc files and stale
   caches; ``NO_COLOR``, ``COLUMNS``, a ``TZ``; a ``.env`` above the checkout),
2. ``truegreen leaks`` (ambient vs sealed, culprit search), on the developer's machine,
3. ``truegreen flakes --runs 3`` (fixed seed) where the plain run took at most
   ``--flakes-under`` CPU seconds,
4. ``truegreen audit`` on its tests,

(``--stages`` picks among ``outcomes``, ``leaks``, ``flakes``, ``audit``) and print one row per
project: tests, outcome changes between plain and sealed, tests whose outcome differs between
the machines (plain / truegreen), the files each run changed in the developer's home (hashed
before and after), false-alarm candidates (pass plain on the clean machine, fail under
truegreen), violations by kind (from the event stream; ambient reads from the guard summary,
the only place they are recorded), audit findings by rule, and the guard overhead (CPU seconds
of the pytest process and its children, defaults / plain: one run each, or the median of
``--rounds`` paired runs). The details of every finding follow the table: ``docs/realworld.md``
triages them.

Every run gets a fresh temporary home (``HOME``) and a fresh copy of the sources: nothing the
bench runs touches the real home of the machine. Downloads and venvs are kept in the work
directory (default ``~/.cache/truegreen-realworld``) and reused. The installs need the package
index; the suites only ever reach loopback (the network guard refuses anything else, and the
tests that need the internet are deselected below).

    python bench/realworld.py [--projects attrs,click] [--profile clean|developer|both]
        [--stages outcomes,leaks,flakes,audit] [--work DIR] [--flakes-under SECONDS]
        [--rounds N]

The work directory must be outside any project: pytest would take a ``pyproject.toml`` above
the sources for their rootdir.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
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
    cache: bool = False  # keep pytest's cache plugin (a plugin of the suite's needs it)

    @property
    def no_cache(self) -> tuple[str, ...]:
        """The option that turns pytest's cache off (a run must not read a stale one), unless
        the suite needs it."""
        return () if self.cache else ("-p", "no:cacheprovider")


PROJECTS = [
    Project("attrs", "24.2.0", ("attrs[tests]",),
            # the mypy and pyright files test type checkers, not attrs' runtime
            ("tests", "--ignore=tests/test_mypy.yml", "--ignore=tests/test_pyright.py"),
            declared="extra 'tests'"),
    # truegreen needs pytest 8; pytest 9 makes a deprecation in click's conftest an error
    Project("click", "8.1.7", ("pytest>=8,<9",),
            declared="requirements/tests.txt (pins pytest 7.4.0; truegreen needs 8)"),
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
    # The time zone: tzlocal reads TZ, /etc/timezone and /etc/localtime; dateutil, arrow,
    # freezegun and humanize compute local times.
    Project("tzlocal", "5.2", ("pytest", "pytest-mock"),
            declared="extra 'devenv' (pytest, pytest-mock; coverage and release tools left out)"),
    # pytest-cov registers the no_cover mark its conftest adds (filterwarnings = error)
    Project("python-dateutil", "2.9.0.post0",
            ("pytest", "pytest-cov", "freezegun", "hypothesis>=3.30"),
            declared="requirements-dev.txt (pytest, pytest-cov, freezegun, hypothesis)",
            # pytest 9 deprecates a generator in parametrize; its filterwarnings make it an error
            args=("tests", "-W", "ignore::pytest.PytestRemovedIn10Warning")),
    Project("arrow", "1.3.0", ("pytest", "pytest-mock", "dateparser==1.*", "pytz==2021.1",
                               "simplejson==3.*"),
            declared="requirements/requirements-tests.txt (coverage and pre-commit left out)",
            args=("tests", "-o", "addopts=")),  # addopts: coverage with a 99 % floor
    Project("freezegun", "1.5.1", ("pytest", "python-dateutil>=2.7"),
            declared="requirements.txt (maya left out: it does not build here)"),
    Project("humanize", "4.10.0", ("humanize[tests]",), declared="extra 'tests'"),
    # Colour and terminal width: NO_COLOR, FORCE_COLOR, COLUMNS, isatty.
    Project("termcolor", "2.4.0", ("termcolor[tests]",), declared="extra 'tests'"),
    Project("colorama", "0.4.6", ("pytest",), declared="none declared (unittest; pytest runs it)",
            args=("colorama/tests",), tests="colorama/tests"),
    Project("tabulate", "0.9.0", ("pytest", "wcwidth"),
            declared="tox.ini [testenv] deps, extra 'widechars'", args=("test",), tests="test"),
    Project("tqdm", "4.66.5", ("pytest", "pytest-timeout", "pytest-asyncio"),
            declared="tox.ini [core] deps (notebook, numpy, pandas... left out: those tests skip)",
            # -k as its tox.ini (perf tests are timing-bound); -o: pytest-asyncio 0.24 warns
            # when the option is unset, and its addopts have -W=error
            args=("tests", "-k", "not perf", "-o", "asyncio_default_fixture_loop_scope=function")),
    # Rc files and caches: black reads ~/.config/black and caches under ~/.cache/black;
    # keyring reads ~/.config/python_keyring/keyringrc.cfg.
    # pytest 9 deprecates what black's test plugin (tests/optional.py) and versioningit's
    # parametrize use, and both make warnings errors: pytest 8, their era's
    Project("black", "24.8.0", ("pytest>=8,<9", "pytest-xdist"),
            declared="test_requirements.txt (coverage, pre-commit, tox left out; the jupyter "
                     "tests skip without their extra)",
            args=("tests", "--ignore=tests/test_blackd.py")),  # blackd needs aiohttp
    Project("keyring", "25.4.1", ("keyring[test]",), declared="extra 'test'"),
    # git (and a default branch, an identity, signing) without GitPython.
    Project("dunamai", "1.22.0", ("pytest",), declared="[tool.poetry.dev-dependencies] (pytest)"),
    Project("versioningit", "3.1.2",
            ("pytest>=8,<9", "pytest-mock", "build>=0.7", "editables", "hatchling",
             "setuptools>=42", "pydantic~=2.0", "wheel"),
            declared="tox.ini [testenv] deps (coverage left out)",
            args=("test", "-o", "addopts="), tests="test"),  # addopts: coverage
    # hatch-vcs commits without --no-gpg-sign; towncrier checks branches with git
    Project("hatch-vcs", "0.4.0", ("pytest>=8,<9",),
            declared="none declared beyond pytest (its CI: hatch's default test environment)"),
    Project("towncrier", "24.8.0", ("pytest>=8,<9", "twisted", "packaging"),
            declared="extra 'dev' (twisted, packaging; sphinx, furo, nox left out)",
            args=("src/towncrier/test",), tests="src/towncrier/test"),
    # typer: shell completion installs into ~/.bashrc, ~/.zshrc, fish and PowerShell files;
    # rich output sized by COLUMNS and coloured unless NO_COLOR
    Project("typer", "0.12.5", ("pytest>=8,<9", "pytest-xdist", "coverage[toml]>=6.2,<8",
                                "rich>=10.11.0", "shellingham>=1.3.0", "click<8.2"),
            # click 8.2 deprecates what typer 0.12 calls, and its filterwarnings make it an error
            declared="requirements-tests.txt (pytest-cov, pytest-sugar, mypy, ruff left out); "
                     "click of its era (< 8.2)"),
    # A dev server in a child process, reached over loopback and a Unix socket: the child's
    # environment replaces PYTHONPATH, and pytest-xprocess keeps it running across the test
    # and its state in pytest's cache
    Project("werkzeug", "3.0.6", ("pytest>=8,<9", "pytest-timeout", "pytest-xprocess<1",
                                  "cryptography", "watchdog", "ephemeral-port-reserve", "cffi"),
            declared="requirements/tests.in", cache=True,  # xprocess keeps its state there
            # the reloader test waits, without a limit, for a restart that never comes here
            args=("tests", "--deselect", "tests/test_serving.py::test_reloader_sys_path")),
    # An application's instance folder, a .env read by python-dotenv, the CLI's app discovery
    # click and werkzeug of its era: click 8.2 drops CliRunner(mix_stderr=), werkzeug 3.1
    # answers a bad environ with 404, and four of its tests fail on either, plain too
    Project("flask", "3.0.3", ("pytest>=8,<9", "asgiref", "python-dotenv", "click<8.2",
                               "werkzeug<3.1"),
            declared="requirements/tests.in; click and werkzeug of its era"),
    # An HTTP client against servers in threads (uvicorn, loopback, TLS from trustme) and a
    # fixture that clears os.environ for every test; the tests marked network need the internet
    Project("httpx", "0.27.2", ("httpx[brotli,cli,http2,socks,zstd]", "pytest>=8,<9", "trustme",
                                "uvicorn", "trio", "chardet", "cryptography"),
            declared="its repository's requirements.txt (the test part; not in the sdist)",
            args=("tests", "-m", "not network")),
    # The user's config file and replay directory under ~, templates cloned with git and hg
    Project("cookiecutter", "2.6.0", ("pytest>=8,<9", "pytest-mock", "freezegun"),
            declared="test_requirements.txt (pytest-cov left out: addopts cleared)",
            args=("tests", "-o", "addopts=")),  # addopts: coverage
]  # fmt: skip


PROFILES = ("clean", "developer")
STAGES = ("outcomes", "leaks", "flakes", "audit")
MODES = ("plain", "truegreen")
FAILED = ("failure", "error", "missing")
RUN_TIMEOUT = 1200.0  # seconds; no suite here takes a tenth of it
# The clean machine has none of these (nor the developer's); the developer profile sets three.
TERMINAL_AND_ZONE = ("NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES",
                     "TZ", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
                     "XDG_RUNTIME_DIR", "GNUPGHOME")  # fmt: skip
DEVELOPER_VARIABLES = {"NO_COLOR": "1", "COLUMNS": "40", "TZ": "America/New_York"}
# A developer's home: what a long-used machine has for the tools these suites exercise.
DEVELOPER_HOME = {
    ".gitconfig": "[user]\n\tname = Dana Developer\n\temail = dana@example.invalid\n"
    "[commit]\n\tgpgsign = true\n[init]\n\tdefaultBranch = trunk\n[color]\n\tui = always\n",
    ".hgrc": "[ui]\nusername = Dana Developer <dana@example.invalid>\n",
    ".pdbrc": "alias ll longlist\n",
    # platformdirs: a German desktop's user directories
    ".config/user-dirs.dirs": 'XDG_DOCUMENTS_DIR="$HOME/Dokumente"\n'
    'XDG_DOWNLOAD_DIR="$HOME/Downloads"\nXDG_MUSIC_DIR="$HOME/Musik"\n'
    'XDG_PICTURES_DIR="$HOME/Bilder"\nXDG_VIDEOS_DIR="$HOME/Videos"\n'
    'XDG_DESKTOP_DIR="$HOME/Schreibtisch"\n',
    # black: the user-level configuration (a file named black) and a stale cache
    ".config/black": "[tool.black]\nline-length = 40\nskip-string-normalization = true\n",
    ".cache/black/24.8.0/cache.stale.pickle": "not a pickle: left by an older black\n",
    # keyring: a backend that refuses everything
    ".config/python_keyring/keyringrc.cfg": "[backend]\n"
    "default-keyring = keyring.backends.fail.Keyring\n",
    ".config/pip/pip.conf": "[global]\ndisable-pip-version-check = true\n",
    # tqdm, click, rich: nothing on disk; COLUMNS and NO_COLOR above
    ".cache/setuptools-scm/stale": "left by an older setuptools-scm\n",
}
# Written in the directory above the unpacked sources: a .env a walk up from the checkout finds.
DEVELOPER_DOTENV = "DEBUG=1\nDATABASE_URL=postgres://dana@localhost/dev\nSECRET_KEY=dev-only\n"


@dataclass
class HomeChange:
    """Files of a home that a run added, changed or removed: (path under the home, bytes)."""

    new: list[tuple[str, int]] = field(default_factory=list)
    changed: list[tuple[str, int]] = field(default_factory=list)
    removed: list[tuple[str, int]] = field(default_factory=list)

    def count(self) -> int:
        return len(self.new) + len(self.changed) + len(self.removed)

    def size(self) -> int:
        return sum(n for _, n in [*self.new, *self.changed, *self.removed])

    def cell(self) -> str:
        if not self.count():
            return "0"
        return f"{self.count()} ({human(self.size())})"

    def lines(self) -> list[str]:
        return [f"{kind} {path} ({n} B)" for kind, entries in
                (("new", self.new), ("changed", self.changed), ("removed", self.removed))
                for path, n in entries]  # fmt: skip


@dataclass
class Run:
    """One run of a suite: its outcomes, status, CPU seconds and what it did to its home."""

    outcomes: dict[str, str]
    status: int
    cpu: float
    wall: float
    home: HomeChange


@dataclass
class Row:
    project: Project
    profiles: tuple[str, ...] = PROFILES
    stages: tuple[str, ...] = STAGES
    tests: int = 0
    runs: dict[tuple[str, str], Run] = field(default_factory=dict)  # (profile, mode) -> run
    violations: list[dict[str, Any]] = field(default_factory=list)
    developer_violations: list[dict[str, Any]] = field(default_factory=list)
    spawns: Counter[str] = field(default_factory=Counter)
    ambient: dict[str, str] = field(default_factory=dict)  # variable -> tests
    leaks: Optional[list[dict[str, Any]]] = None  # None: the stage did not run
    unsteady: list[str] = field(default_factory=list)  # flakes `leaks` set apart
    leaks_profile: str = ""
    flakes: Optional[dict[str, Any]] = None  # `truegreen flakes --format json`, if it ran
    audit: Optional[list[dict[str, Any]]] = None
    steps: dict[str, float] = field(default_factory=dict)  # step -> wall seconds
    rounds: list[tuple[float, float]] = field(default_factory=list)  # (plain, truegreen) CPU

    @property
    def reference(self) -> str:
        """The profile the plain-vs-truegreen columns come from: clean, when it ran."""
        return self.profiles[0]

    def changed(self) -> list[str]:
        """Tests whose outcome truegreen changed, on the reference machine."""
        return differences(self.runs.get((self.reference, "plain")),
                           self.runs.get((self.reference, "truegreen")))  # fmt: skip

    def machine_differs(self, mode: str) -> list[str]:
        """Tests whose outcome differs between the clean and the developer machine."""
        return differences(self.runs.get(("clean", mode)), self.runs.get(("developer", mode)))

    def false_alarms(self) -> list[str]:
        """Tests that pass plain on a clean machine and fail under truegreen (either machine)."""
        clean = self.runs.get(("clean", "plain"))
        if clean is None:
            return []
        found = []
        for test, outcome in sorted(clean.outcomes.items()):
            if outcome != "passed":
                continue
            failing = [profile for profile in self.profiles
                       if (run := self.runs.get((profile, "truegreen"))) is not None
                       and run.outcomes.get(test, "missing") in FAILED]  # fmt: skip
            if failing:
                machines = " and ".join(failing)
                outcome = self.runs[(failing[0], "truegreen")].outcomes.get(test, "missing")
                found.append(f"{test} (under truegreen on the {machines} machine: {outcome})")
        return found

    def cpu(self, mode: str) -> float:
        run = self.runs.get((self.reference, mode))
        return run.cpu if run else 0.0

    def ratios(self) -> list[float]:
        """truegreen / plain CPU, a ratio per paired round (or the outcome runs' one)."""
        if self.rounds:
            return [sealed / plain for plain, sealed in self.rounds if plain]
        plain, sealed = self.cpu("plain"), self.cpu("truegreen")
        return [sealed / plain] if plain else []

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


def differences(before: Optional[Run], after: Optional[Run]) -> list[str]:
    """ "test: outcome -> outcome" for each test whose outcome differs between two runs."""
    if before is None or after is None:
        return []
    a, b = before.outcomes, after.outcomes
    return [f"{test}: {a.get(test, 'missing')} -> {b.get(test, 'missing')}"
            for test in sorted(set(a) | set(b)) if a.get(test) != b.get(test)]  # fmt: skip


def human(size: int) -> str:
    return f"{size} B" if size < 1000 else f"{size / 1000:.1f} kB"


def snapshot(home: Path) -> dict[str, tuple[str, int]]:
    """Every entry under ``home``: path -> (content hash or kind, bytes)."""
    found: dict[str, tuple[str, int]] = {}
    for directory, dirs, files in os.walk(home):
        for name in dirs + files:
            path = Path(directory, name)
            key = str(path.relative_to(home))
            if path.is_symlink():
                found[key] = ("link " + os.readlink(path), 0)
            elif path.is_dir():
                found[key + "/"] = ("directory", 0)
            elif path.is_file():
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                found[key] = (digest, path.stat().st_size)
            else:
                found[key] = ("special", 0)  # a socket (gpg-agent), a FIFO
    return found


def compare(before: dict[str, tuple[str, int]], after: dict[str, tuple[str, int]]) -> HomeChange:
    change = HomeChange()
    for key in sorted(set(before) | set(after)):
        if key not in before:
            change.new.append((key, after[key][1]))
        elif key not in after:
            change.removed.append((key, before[key][1]))
        elif before[key] != after[key]:
            change.changed.append((key, after[key][1]))
    return change


def make_home(profile: str) -> Path:
    """A fresh temporary home for one run: empty on the clean machine, lived-in on the
    developer's."""
    home = Path(tempfile.mkdtemp(prefix=f"realworld-{profile}-home-"))
    if profile == "developer":
        for name, text in DEVELOPER_HOME.items():
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            (home / name).write_text(text)
    return home


def drop_home(home: Path) -> None:
    """Stop the gpg-agent a commit may have started in the home, then remove it."""
    gnupg = home / ".gnupg"
    if gnupg.is_dir() and shutil.which("gpgconf"):
        subprocess.run(["gpgconf", "--homedir", str(gnupg), "--kill", "all"],
                       capture_output=True, check=False)  # fmt: skip
    shutil.rmtree(home, ignore_errors=True)


def machine(profile: str, python: Path, home: Path) -> dict[str, str]:
    """The environment of one profile: the venv's bin first on PATH, ``home`` as HOME, no
    colour, width, zone or XDG settings on the clean machine, three of them on the
    developer's."""
    env = activated(python)
    for name in TERMINAL_AND_ZONE:
        env.pop(name, None)
    env["HOME"] = str(home)
    if profile == "developer":
        env.update(DEVELOPER_VARIABLES)
    return env


def run(
    argv: list[str], cwd: Path, env: Optional[dict[str, str]] = None, timeout: float = RUN_TIMEOUT
) -> tuple[int, str, float]:
    """(exit status, stdout then stderr, CPU seconds of the command and its children). A command
    still running after ``timeout`` seconds is killed with its whole process group (status -9)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    pipe = subprocess.PIPE
    with subprocess.Popen(argv, cwd=cwd, env=env or environment(), stdout=pipe, stderr=pipe,
                          text=True, start_new_session=True) as child:  # fmt: skip
        try:
            stdout, stderr = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            stdout, stderr = child.communicate()
            stderr += f"\nrealworld: killed after {timeout:.0f} s"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return child.returncode, stdout + "\0" + stderr, cpu


def must(argv: list[str], cwd: Path) -> None:
    status, output, _ = run(argv, cwd)
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({status}):\n{output[-3000:]}")


def fetch(project: Project, work: Path, profile: str = "clean") -> Path:
    """The sdist, downloaded once; a fresh copy of its sources under ``work/<name>/<profile>``,
    with the developer's ``.env`` beside it (in the directory above the checkout)."""
    sdists = work / "sdists"
    stem = f"{project.name}-{project.version}".lower().replace("-", "[-_]")
    found = [p for p in sdists.glob("*.tar.gz") if re.match(stem, p.name.lower())]
    if not found:
        sdists.mkdir(parents=True, exist_ok=True)
        must([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
              ":all:", "-d", str(sdists), f"{project.name}=={project.version}"], work)  # fmt: skip
        found = [p for p in sdists.glob("*.tar.gz") if re.match(stem, p.name.lower())]
    parent = work / project.name / profile
    shutil.rmtree(parent, ignore_errors=True)
    parent.mkdir(parents=True)
    with tarfile.open(found[0]) as archive:
        top = archive.getnames()[0].split("/")[0]
        archive.extractall(parent / "unpack")  # a pinned sdist from the index
    source = parent / "src"
    (parent / "unpack" / top).rename(source)
    shutil.rmtree(parent / "unpack")
    if profile == "developer":
        (parent / ".env").write_text(DEVELOPER_DOTENV)
    return source


def truegreen_wheel(work: Path) -> Path:
    """A wheel of this truegreen checkout, built once per invocation: the suites run truegreen
    installed as a user installs it, into ``site-packages`` with its bytecode compiled. An
    editable install would put the checkout's ``src/`` on every process's ``sys.path``, where
    Hypothesis, for one, takes truegreen's modules for the project's own code and parses them."""
    wheels = work / "truegreen-wheel"
    shutil.rmtree(wheels, ignore_errors=True)
    must([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
          str(ROOT)], work)  # fmt: skip
    (wheel,) = wheels.glob("truegreen-*.whl")
    return wheel


def install(project: Project, source: Path, work: Path, wheel: Path) -> Path:
    """The project's venv, with the project, its test dependencies and truegreen's ``wheel``
    (installed again on every invocation: the venv is kept, the checkout changes)."""
    home = work / project.name / "venv"
    python = home / "bin" / "python"
    spec = json.dumps([project.version, project.requirements, "wheel"])
    marker = home / "installed.json"
    if not (marker.exists() and marker.read_text() == spec):
        shutil.rmtree(home, ignore_errors=True)
        venv.create(home, with_pip=True)
        # Extras name the project itself: install it from the unpacked sources, not the index.
        requirements = [r.replace(project.name, str(source), 1)
                        if r.startswith(f"{project.name}[") else r
                        for r in project.requirements]  # fmt: skip
        must([str(python), "-m", "pip", "install", "-q", str(source), *requirements,
              str(wheel)], work)  # fmt: skip
        marker.write_text(spec)
    must([str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall",
          str(wheel)], work)  # fmt: skip
    return python


def outcomes(junit: Path, source: Path) -> dict[str, str]:
    """Each test case's outcome in a JUnit report. A test id that spells the run's copy of the
    sources (werkzeug parametrizes with absolute paths) names it ``<src>``: each machine runs
    its own copy, and the same test must have the same id on both."""
    found = {}
    here = str(source.resolve())
    for case in ET.parse(junit).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}".replace(here, "<src>")
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
            "--run-timeout", "600", "--format", "json", "--", *row.project.no_cache,
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


def suite(row: Row, profile: str, mode: str, python: Path, work: Path) -> str:
    """One run of the suite on a fresh copy of the sources, in a fresh home of the profile;
    its outcomes and what it changed in the home go into ``row.runs``. Returns its output."""
    out = work / row.project.name / "out"
    label = f"{profile}-{mode}"
    source = fetch(row.project, work, profile)
    home = make_home(profile)
    argv = [str(python), "-m", "pytest", "-q", *row.project.no_cache, *row.project.args,
            f"--junitxml={out / (label + '.xml')}"]  # fmt: skip
    if mode == "plain":
        argv += ["-p", "no:truegreen"]
    else:
        argv += [f"--truegreen-metrics={out / (label + '-events')}"]
    try:
        before = snapshot(home)
        clock = time.perf_counter()
        status, output, cpu = run(argv, source, machine(profile, python, home))
        wall = time.perf_counter() - clock
        change = compare(before, snapshot(home))
    finally:
        drop_home(home)
    (out / f"{label}.txt").write_text(output)
    junit = out / f"{label}.xml"
    found = outcomes(junit, source) if junit.exists() else {}
    row.runs[(profile, mode)] = Run(found, status, cpu, wall, change)
    row.steps[label] = wall
    return output


def paired_rounds(row: Row, rounds: int, python: Path, work: Path) -> None:
    """``rounds`` pairs of runs on the clean machine, plain and truegreen side by side (which
    goes first alternates), each on a fresh copy of the sources in a fresh home: the CPU
    seconds of each pair go into ``row.rounds``. One run of each is noise on a shared machine;
    the median of the pairs' ratios is not. truegreen runs with its defaults, as a user runs
    it: the event stream the single runs record (``--truegreen-metrics``) is off by default
    and costs a few percent of its own."""
    for index in range(rounds):
        pair = {}
        for mode in MODES if index % 2 == 0 else MODES[::-1]:
            source = fetch(row.project, work)
            home = make_home("clean")
            argv = [str(python), "-m", "pytest", "-q", *row.project.no_cache, *row.project.args]
            if mode == "plain":
                argv += ["-p", "no:truegreen"]
            try:
                _, _, pair[mode] = run(argv, source, machine("clean", python, home))
            finally:
                drop_home(home)
        row.rounds.append((pair["plain"], pair["truegreen"]))


def measure(project: Project, work: Path, wheel: Path, flakes_under: float,
            profiles: tuple[str, ...], stages: tuple[str, ...],
            rounds: int = 1) -> Row:  # fmt: skip
    row = Row(project, profiles, stages)
    clock = time.perf_counter()
    source = fetch(project, work)
    row.steps["fetch"] = time.perf_counter() - clock
    clock = time.perf_counter()
    python = install(project, source, work, wheel)
    truegreen = str(python.parent / "truegreen")
    row.steps["install"] = time.perf_counter() - clock
    out = work / project.name / "out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()

    if "outcomes" in stages:
        for profile in profiles:
            for mode in MODES:
                output = suite(row, profile, mode, python, work)
                if mode != "truegreen":
                    continue
                records = stream(out / f"{profile}-truegreen-events")
                violations = [r for r in records if r.get("event") == "violation"]
                if profile != row.reference:
                    row.developer_violations = violations
                    continue
                row.violations = violations
                row.spawns = Counter(
                    f"{r['program']} {r['verb']}" if r.get("verb") else r["program"]
                    for r in records
                    if r.get("event") == "spawn"
                )
                row.ambient = ambient_reads(output)
        first = row.runs.get((row.reference, "plain"))
        row.tests = len(first.outcomes) if first else 0
        if rounds > 1:
            clock = time.perf_counter()
            paired_rounds(row, rounds, python, work)
            row.steps["rounds"] = time.perf_counter() - clock

    # The hunters run on the clean machine, except leaks: its ambient run is the machine
    # itself, so on the developer's when that profile is chosen.
    if "leaks" in stages:
        row.leaks_profile = "developer" if "developer" in profiles else "clean"
        source = fetch(project, work, row.leaks_profile)
        home = make_home(row.leaks_profile)
        clock = time.perf_counter()
        try:
            _, output, _ = run([truegreen, "leaks", "--format", "json", "--",
                                *project.no_cache, *project.args], source,
                               machine(row.leaks_profile, python, home))  # fmt: skip
        finally:
            drop_home(home)
        row.steps["leaks"] = time.perf_counter() - clock
        (out / "leaks.txt").write_text(output)
        stdout = output.split("\0")[0]
        found = json.loads(stdout) if stdout.startswith("{") else {}
        row.leaks, row.unsteady = found.get("leaks", []), found.get("unsteady", [])

    home = make_home("clean")
    try:
        env = machine("clean", python, home)
        if "flakes" in stages and row.cpu("plain") <= flakes_under:
            flakes(row, truegreen, work, env)
        if "audit" in stages:
            source = fetch(project, work)
            clock = time.perf_counter()
            _, output, _ = run([truegreen, "audit", "--format", "json", project.tests], source,
                               env)  # fmt: skip
            row.steps["audit"] = time.perf_counter() - clock
            row.audit = json.loads(output.split("\0")[0])["findings"]
    finally:
        drop_home(home)
    return row


def count(items: Optional[list[Any]]) -> str:
    return "-" if items is None else str(len(items))


def print_table(rows: list[Row]) -> None:
    """One row per project. The first columns compare plain and truegreen on the reference
    machine (clean, when it ran); "dev ≠ clean" counts the tests whose outcome differs between
    the machines, plain / truegreen; "dev home" the files each run changed in the developer's
    home, plain / truegreen."""
    kinds = ["home write", "repo write", "network", "program", "ambient read"]
    both = len(rows[0].profiles) == 2 if rows else False
    head = ["project", "tests", "changed", *kinds, "leaks", "flakes", "audit", "CPU plain",
            "ratio"]  # fmt: skip
    if both:
        head[3:3] = ["dev ≠ clean", "dev home", "false alarms"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for row in rows:
        found = row.kinds()
        audit = Counter(f["code"] for f in row.audit or [])
        plain = statistics.median(p for p, _ in row.rounds) if row.rounds else row.cpu("plain")
        cells = [
            f"{row.project.name} {row.project.version}",
            str(row.tests),
            str(len(row.changed())),
            *(str(found[k]) for k in kinds),
            count(row.leaks),
            flakes_cell(row),
            "-" if row.audit is None
            else ", ".join(f"{code} {n}" for code, n in sorted(audit.items())) or "0",
            f"{plain:.1f} s",
            ratio_cell(row.ratios()),
        ]  # fmt: skip
        if both:
            homes = [row.runs.get(("developer", mode)) for mode in MODES]
            cells[3:3] = [
                " / ".join(str(len(row.machine_differs(mode))) for mode in MODES),
                " / ".join(r.home.cell() if r else "-" for r in homes),
                str(len(row.false_alarms())),
            ]
        print("| " + " | ".join(cells) + " |")


def ratio_cell(ratios: list[float]) -> str:
    """The ratio, or over paired rounds their median and range."""
    if not ratios:
        return "-"
    if len(ratios) == 1:
        return f"{ratios[0]:.2f}"
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


def flakes_cell(row: Row) -> str:
    """Flaky tests found (or none) and the wall time the hunt took, or why it did not run."""
    if row.flakes is None and "flakes" not in row.stages:
        return "-"
    if row.flakes is None:
        return f"not run (plain {row.cpu('plain'):.0f} s CPU)" if row.runs else "-"
    if "error" in row.flakes:
        return "error"
    found = len(row.flakes["flaky"])
    return f"{found or 'none'} ({row.steps['flakes']:.0f} s)"


def print_details(row: Row) -> None:
    p = row.project
    steps = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in row.steps.items())
    print(f"\n## {p.name} {p.version} (tests from {p.declared}; {' '.join(p.args)})")
    print(f"steps: {steps}")
    for (profile, mode), done in row.runs.items():
        if not done.outcomes or done.status not in (0, 1):
            print(f"  {profile} {mode}: exit {done.status}, {len(done.outcomes)} outcomes")
    alarms = row.false_alarms()
    suspects = {line.rsplit(" (under truegreen", 1)[0] for line in alarms}
    for line in row.changed():
        if line.rsplit(": ", 1)[0] not in suspects:  # the candidates follow, with their outcomes
            print(f"  changed ({row.reference} machine, plain -> truegreen): {line}")
    for mode in MODES:
        for line in row.machine_differs(mode):
            print(f"  {mode}, clean -> developer machine: {line}")
    for (profile, mode), done in row.runs.items():
        for line in done.home.lines():
            print(f"  {profile} home, {mode} run: {line}")
    for line in alarms:
        print(f"  false-alarm candidate: {line}")
    for v in row.violations:
        where = f"at {v['site']} ({v['where']})"
        print(f"  violation: {v['kind']} {v['operation']} {v['target']} {where}")
    seen = {(v["kind"], v["operation"], v["target"]) for v in row.violations}
    for v in row.developer_violations:
        if (v["kind"], v["operation"], v["target"]) not in seen:
            where = f"at {v['site']} ({v['where']})"
            print(f"  violation, developer machine only: {v['kind']} {v['operation']} "
                  f"{v['target']} {where}")  # fmt: skip
    if row.spawns:
        print("  programs: " + ", ".join(f"{n} x{c}" for n, c in sorted(row.spawns.items())))
    for name, tests in row.ambient.items():
        print(f"  ambient read: {name}: {tests}")
    for leak in row.leaks or []:
        culprit = ", ".join(c["label"] for c in leak["culprit"] or []) or "none"
        if leak.get("home_write"):
            through = leak["home_write"]["through"]
            culprit = f"a write into the real home: {leak['home_write']['path']}" + (
                f", reached through {through['label']}" if through else ""
            )
        elif leak.get("confirmed") is False:
            culprit += " (not confirmed)"
        print(f"  leak ({row.leaks_profile} machine): {leak['test']}: {leak['ambient']} -> "
              f"{leak['sealed']}, culprit {culprit}")  # fmt: skip
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
    for f in row.audit or []:
        print(f"  audit: {f['path']}:{f['line']}: {f['code']} {f['name']} {f['message']}")


# What makes a directory a project to pytest's rootdir search, or a checkout.
PROJECT_MARKERS = (".git", "pyproject.toml", "pytest.ini", "tox.ini", "setup.cfg", "setup.py")


def project_above(work: Path) -> Optional[Path]:
    """The first file above or at ``work`` that makes it part of a project, or None."""
    for directory in (work, *work.parents):
        for name in PROJECT_MARKERS:
            if (directory / name).exists():
                return directory / name
    return None


def choice(parser: argparse.ArgumentParser, option: str, given: str,
           known: tuple[str, ...]) -> tuple[str, ...]:  # fmt: skip
    """The comma-separated names of ``given``, in ``known``'s order; a usage error otherwise."""
    names = [n for n in given.split(",") if n]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        parser.error(f"{option} takes names among {', '.join(known)} (got {given!r})")
    return tuple(n for n in known if n in names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", default=",".join(p.name for p in PROJECTS),
                        help="comma-separated names (default: all)")  # fmt: skip
    parser.add_argument("--profile", choices=("clean", "developer", "both"), default="both",
                        help="the machine(s) the suites run on (default: both)")  # fmt: skip
    known = ", ".join(STAGES)
    parser.add_argument("--stages", default=",".join(STAGES),
                        help=f"comma-separated among {known} (default: all)")  # fmt: skip
    parser.add_argument("--work", type=Path, default=Path.home() / ".cache" / "truegreen-realworld")
    parser.add_argument("--flakes-under", type=float, default=FLAKES_UNDER, metavar="SECONDS",
                        help="run `truegreen flakes` where the plain run took at most this many "
                        f"CPU seconds (default {FLAKES_UNDER:.0f}; 0: never)")  # fmt: skip
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        metavar="N",
        help="measure the CPU ratio as the median of N paired runs on the clean "
        "machine, beside the outcome runs (default 1: the outcome runs' own)",
    )
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds takes a whole number of at least 1 (got {args.rounds})")
    inside = project_above(args.work.resolve())
    if inside is not None:
        parser.error(
            f"--work {args.work} is inside a project ({inside} is above it): pytest "
            "would take it for the suites' rootdir; choose a directory outside it"
        )
    by_name = {p.name: p for p in PROJECTS}
    chosen = [by_name[n] for n in choice(parser, "--projects", args.projects, tuple(by_name))]
    profiles = PROFILES if args.profile == "both" else (args.profile,)
    stages = choice(parser, "--stages", args.stages, STAGES)
    args.work.mkdir(parents=True, exist_ok=True)
    wheel = truegreen_wheel(args.work.resolve())
    rows = []
    for project in chosen:
        print(f"{project.name} {project.version} ...", file=sys.stderr, flush=True)
        rows.append(measure(project, args.work.resolve(), wheel, args.flakes_under, profiles,
                            stages, args.rounds))  # fmt: skip
    print_table(rows)
    medians = [statistics.median(r) for row in rows if (r := row.ratios())]
    if len(medians) > 1:
        print(
            f"\nCPU ratio truegreen / plain, median over {len(medians)} projects: "
            f"{statistics.median(medians):.3f}"
        )
    for row in rows:
        print_details(row)
    return 0


if __name__ == "__main__":
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.exit(main())
