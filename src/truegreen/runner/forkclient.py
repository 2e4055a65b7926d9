"""The controller's side of the fork server: start it, ask it for children, wait on them.

The protocol and the server itself are in :mod:`truegreen.runner.forkserver`.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Optional

from truegreen.runner.forkserver import SERVE, server_options
from truegreen.runner.procs import Child, popen


class Remote:
    """A child of the server, seen from the controller as a ``subprocess.Popen`` is."""

    def __init__(self) -> None:
        self.pid = 0
        self.status: Optional[int] = None
        self.started = threading.Event()
        self.done = threading.Event()

    def poll(self) -> Optional[int]:
        return self.status

    def wait(self, timeout: Optional[float] = None) -> int:
        if not self.done.wait(timeout):
            raise subprocess.TimeoutExpired("pytest", timeout or 0.0)
        assert self.status is not None
        return self.status


class ForkServer:
    """The controller's handle on a running server; safe to use from several threads."""

    LOST = 255  # the status of a child whose server died before reporting it

    def __init__(self, process: subprocess.Popen[bytes], loaded: Sequence[str] = ()) -> None:
        self.process = process
        self.loaded = frozenset(loaded)  # files of the modules every child starts with
        self.lock = threading.Lock()
        self.children: dict[int, Remote] = {}
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    @classmethod
    def start(
        cls, env: Mapping[str, str], pytest_args: Sequence[str], avoid: Sequence[str] = ()
    ) -> ForkServer:
        """Start a server in ``env`` that imports none of the files in ``avoid``; raise
        RuntimeError with the reason when it refuses."""
        options = server_options(pytest_args, avoid)
        argv = [sys.executable, "-c", SERVE, json.dumps(options)]
        process = popen(argv, env=dict(env), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        start_new_session=True)  # fmt: skip
        assert process.stdout is not None
        hello = process.stdout.readline()
        try:
            ready = json.loads(hello)
        except ValueError:
            said = f"it said {hello[:200]!r}" if hello else "it ended before it was ready"
            ready = {"ready": False, "why": said}
        if not ready.get("ready"):
            process.kill()
            process.communicate()  # and close the pipes
            raise RuntimeError(ready.get("why") or "it did not start")
        return cls(process, ready.get("loaded", ()))

    def spawn(
        self,
        args: Sequence[str],
        output: str,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
    ) -> Remote:
        """Fork a child running ``pytest ARGS`` with its output in the file ``output``, in
        ``env`` (by default the server's) and ``cwd`` (by default this process's)."""
        remote = Remote()
        with self.lock:
            number, self.next_id = self.next_id, self.next_id + 1
            self.children[number] = remote
            request = {"id": number, "args": list(args), "output": output,
                       "cwd": cwd or os.getcwd()}  # fmt: skip
            if env is not None:
                request["env"] = dict(env)
            try:
                assert self.process.stdin is not None
                self.process.stdin.write((json.dumps(request) + "\n").encode())
                self.process.stdin.flush()
            except (OSError, ValueError):
                self._lose(number)
        remote.started.wait()
        return remote

    def _lose(self, number: int) -> None:
        remote = self.children.pop(number)
        remote.status = self.LOST
        remote.started.set()
        remote.done.set()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            message = json.loads(line)
            with self.lock:
                remote = self.children.get(message["id"])
                if remote is None:
                    continue
                if "pid" in message:
                    remote.pid = int(message["pid"])
                    remote.started.set()
                else:
                    remote.status = int(message["status"])
                    del self.children[message["id"]]
                    remote.done.set()
        with self.lock:
            for number in list(self.children):
                self._lose(number)

    def close(self, grace: float = 5.0) -> None:
        """End the server once its children have ended (at once if they do not)."""
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        try:
            self.process.wait(grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.reader.join(grace)
        if self.process.stdout is not None:
            self.process.stdout.close()


def start_pytest(
    args: Sequence[str],
    output: Optional[str],
    env: Mapping[str, str],
    server: Optional[ForkServer] = None,
    fork_env: Optional[Mapping[str, str]] = None,
    cwd: Optional[str] = None,
    python: Optional[str] = None,
) -> Child:
    """Start ``pytest ARGS`` with its output in the file ``output``: forked by ``server``
    (in ``fork_env`` when the child's environment differs from the server's), or, with no
    server, ``python -m pytest`` in ``env`` as a new process in a session of its own (its
    output on this process's own, with ``output`` None); ``python`` is this one's unless
    named (``truegreen repro``'s clean room)."""
    if server is not None:
        return server.spawn(args, output or os.devnull, fork_env, cwd)
    argv = [python or sys.executable, "-m", "pytest", *args]
    if output is None:
        return popen(argv, env=dict(env), cwd=cwd, start_new_session=True)
    with open(output, "wb") as handle:
        return popen(argv, env=dict(env), cwd=cwd, start_new_session=True, stdout=handle,
                     stderr=subprocess.STDOUT)  # fmt: skip
