"""truegreen run --offline: the whole tree in a network namespace with only loopback, or exit 2."""

from __future__ import annotations

import errno
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.cli import main
from truegreen.core.errors import UsageError
from truegreen.runner import offline

ONLY_LOOPBACK = """
import socket

def test_only_loopback_and_it_works():
    assert socket.if_nameindex() == [(1, "lo")]
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname(), timeout=5):
            pass
"""


def _namespaces_available() -> bool:
    """Whether the kernel gives this user a network namespace: asked of ``unshare`` alone, so
    that an ablated ``enter`` fails the test rather than skipping it."""
    probe = (
        "from truegreen.runner import offline; "
        "offline.unshare(offline.CLONE_NEWUSER | offline.CLONE_NEWNET)"
    )
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


@pytest.mark.platforms("linux")
def test_offline_runs_the_tests_where_only_loopback_exists(tmp_path: Path) -> None:
    """Ablation: replace `CLONE_NEWUSER | CLONE_NEWNET` with `CLONE_NEWUSER` in
    `src/truegreen/runner/offline.py`: with no network namespace of its own, bringing loopback
    up is refused and the run exits 2.

    Ablation: delete `_loopback_up()` in `src/truegreen/runner/offline.py`: loopback stays
    down and the connection fails."""
    if not _namespaces_available():
        pytest.skip("this machine gives no unprivileged network namespace")
    (tmp_path / "test_ns.py").write_text(ONLY_LOOPBACK)
    argv = [sys.executable, "-m", "truegreen", "run", "--offline", "--", "-q", "-p",
            "no:randomly", "test_ns.py"]  # fmt: skip
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


@pytest.mark.platforms("linux")
def test_without_a_namespace_it_says_so_in_one_line_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Never pretend: the run does not start without the namespace.

    Ablation: delete `raise UsageError(_UNAVAILABLE.format(reason=exc.strerror or exc)) from None`
    in `src/truegreen/runner/offline.py`."""
    calls: list[int] = []

    def refuse(flags: int) -> None:
        calls.append(flags)
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(offline, "unshare", refuse)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "test_never.py").write_text("def test_never():\n    open('ran', 'w')\n")
    status = main(["run", "--offline", "--", "-q", "test_never.py"])
    err = capsys.readouterr().err
    assert calls == [offline.CLONE_NEWUSER | offline.CLONE_NEWNET]  # premise: it asked
    assert status == 2
    assert err.splitlines() == [
        "truegreen: error: truegreen run --offline: this machine gives no network namespace to "
        "this user "
        "(Operation not permitted: unprivileged user namespaces are off or restricted); run "
        "without --offline"
    ]
    assert not (tmp_path / "ran").exists()


def test_offline_is_linux_only() -> None:
    with pytest.raises(UsageError, match=r"--offline: network namespaces are Linux's; this is"):
        offline.enter(platform="darwin")
