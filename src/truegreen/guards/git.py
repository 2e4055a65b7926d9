"""truegreen's own git: every git command truegreen runs goes through :func:`git`.

The tree guard runs in the plugin and the verbs run in the command, so this lives beside
the other originals truegreen keeps for its own work: ``subprocess.run`` is captured at
import, so a test that mocks it cannot blind the guard that watches it. Each command runs
with ``--no-optional-locks`` (asking never writes ``index.lock`` into a checkout someone
else is using), with the messages in English (``LC_ALL=C``: the callers read some of them),
and with the variables that point git at another repository removed, so only the checkout
itself answers. Names come back NUL-separated (``-z``), so a path with a space or a newline
is one path.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from typing import NamedTuple, Optional

from truegreen.core.hermetic import GIT_REPOSITORY, GIT_UNSET, GIT_UNSET_PREFIXES

_run = subprocess.run


class GitError(Exception):
    """git could not be started, or could not say what was asked; callers report it."""


class Done(NamedTuple):
    """A finished git command: its exit status and what it wrote, as bytes."""

    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def text(self) -> str:
        """Standard output as text, without the line end git puts after a single answer."""
        return os.fsdecode(self.stdout).rstrip("\r\n")

    def names(self) -> list[str]:
        """The paths of ``-z`` output, one per NUL-terminated entry."""
        return [os.fsdecode(name) for name in self.stdout.split(b"\0") if name]

    def complaint(self) -> str:
        """git's first line on standard error: what it says went wrong."""
        lines = os.fsdecode(self.stderr).strip().splitlines()
        return lines[0] if lines else "no message"


def environment(environ: Mapping[str, str], *, user_config: bool = False) -> dict[str, str]:
    """``environ`` made fit for truegreen's git: no variable that points it at another
    repository, English messages; and unless ``user_config`` (the tree guard, whose
    ``git status`` must ignore what the developer's own excludes file ignores), no git
    configuration but the checkout's and no identity."""
    if user_config:
        env = {k: v for k, v in environ.items() if k not in GIT_REPOSITORY}
    else:
        env = {
            k: v
            for k, v in environ.items()
            if k not in GIT_UNSET and not k.startswith(GIT_UNSET_PREFIXES)
        }
        env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull,
                   GIT_CONFIG_NOSYSTEM="1")  # fmt: skip
    env["LC_ALL"] = "C"
    return env


def git(args: Sequence[str], cwd: str, environ: Optional[Mapping[str, str]] = None) -> Done:
    """Run ``git --no-optional-locks ARGS`` in ``cwd``; ``environ`` defaults to
    :func:`environment` of this process's. :class:`GitError` when git cannot be started."""
    env = environment(os.environ) if environ is None else dict(environ)
    try:
        done = _run(
            ["git", "--no-optional-locks", *args], cwd=cwd, env=env,
            stdin=subprocess.DEVNULL, capture_output=True, check=False,
        )  # fmt: skip
    except OSError as exc:
        raise GitError(f"expected git on PATH, found none ({exc})") from None
    return Done(done.returncode, done.stdout, done.stderr)


def head(cwd: str, environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The commit checked out at ``cwd`` (``git rev-parse HEAD``): None outside a checkout,
    before its first commit, or without git."""
    try:
        done = git(["rev-parse", "--verify", "--quiet", "HEAD"], cwd, environ)
    except GitError:
        return None
    return done.text() or None if done.ok else None
