"""Where the demo's sections play: a copy of the sample each, temporary homes, a daemon."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from truegreen.demo.model import SERVICE, Command, Ran, Shown
from truegreen.demo.sections import Section
from truegreen.runner.procs import ALLOWED, end_tree

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

# A section that has not finished by then is ended, and does not behave as promised.
TIMEOUT = 300.0


def copy_sample(dest: Path) -> None:
    """Copy the sample project that ships inside the package into ``dest``."""

    def copy(source: Traversable, target: Path) -> None:
        target.mkdir(parents=True)
        for entry in source.iterdir():
            if entry.is_dir() and entry.name != "__pycache__":
                copy(entry, target / entry.name)
            elif entry.is_file() and entry.name.endswith((".py", ".toml")):
                (target / entry.name).write_bytes(entry.read_bytes())

    copy(resources.files("truegreen.demo").joinpath("sample"), dest)


def environment(
    environ: Mapping[str, str], home: Path, tmp: Path, extra: Mapping[str, str]
) -> dict[str, str]:
    """A command's environment: a short list passed on, its home, the section's temporary
    directory (so nothing is written outside the demo's), and its own variables."""
    # The sealed runner's short list: enough to find programs and libraries, nothing that
    # would change the story (no PYTEST_*, TRUEGREEN_*, credentials).
    env = {name: environ[name] for name in ALLOWED if name in environ}
    env.update(HOME=str(home), USERPROFILE=str(home), TMPDIR=str(tmp), TEMP=str(tmp), TMP=str(tmp))
    # As a sealed run has them, so that leaks finds no zone or locale to try
    env.update(TZ="UTC", LANG="C.UTF-8")
    # No bytecode caches written into the installation or the copies either
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


@contextlib.contextmanager
def daemon() -> Iterator[str]:
    """A listener on 127.0.0.1 at an ephemeral port, as a service running on the developer's
    machine would be: started by the demo, outside any test session. It never has to answer:
    the network guard refuses the connection before it is made."""
    server = socket.create_server(("127.0.0.1", 0))
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _short(text: str, project: Path, home: Path) -> str:
    for path in {str(project), os.path.realpath(project)}:
        text = text.replace(path + os.sep, "").replace(path, ".")
    for path in {str(home), os.path.realpath(home)}:
        text = text.replace(path, "~")
    return text


def execute(command: Command, root: Path, service: str = "") -> Ran:
    """Run one command in the section directory ``root`` (its project is ``root/greeter``)."""
    project, home, tmp = root / "greeter", root / command.home, root / "tmp"
    home.mkdir(exist_ok=True)
    for name, text in command.home_files:
        (home / name).write_text(text, encoding="utf-8")
    before = _files(home)
    # A value the shown command writes as ~/... is the command's home, as a shell expands it.
    extra = {
        name: str(home) + value[1:] if value.startswith("~/") else value.replace(SERVICE, service)
        for name, value in command.env
    }
    argv = [sys.executable, "-m", *command.words]
    process = subprocess.Popen(
        argv,
        cwd=project,
        env=environment(os.environ, home, tmp, extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = process.communicate(timeout=TIMEOUT)
        status = process.returncode
    except subprocess.TimeoutExpired:
        end_tree(process, everything=False)
        out, err = process.communicate()
        status, err = 124, err + f"\n(ended after {TIMEOUT:.0f}s)".encode()
    text = out.decode(errors="replace")
    if status not in (0, 1):  # a usage error or a crash: say why
        text += err.decode(errors="replace")
    return Ran(
        command,
        command.shown(service),
        status,
        _short(text, project, home),
        tuple(sorted(_files(home) - before)),
    )


def play(section: Section, root: Path) -> Shown:
    """Run a section in a fresh copy of the sample under ``root`` and judge what it showed."""
    copy_sample(root / "greeter")
    (root / "tmp").mkdir()
    wants_service = any(SERVICE in v for s in section.stages for c in s for _, v in c.env)
    runs: list[Ran] = []
    with daemon() if wants_service else contextlib.nullcontext("") as service:
        for stage in section.stages:
            with ThreadPoolExecutor(len(stage)) as pool:
                runs += pool.map(lambda command: execute(command, root, service), stage)
    return section.judge(runs)
