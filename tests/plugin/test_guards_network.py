"""The network guard, end to end. Every address here is loopback, or blocked before a packet.

To prove the guard blocks, it is made to block loopback, and a test connects to a loopback
listener that really is there.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")


@pytest.fixture
def ambient_daemon() -> Iterator[int]:
    """A listener on 127.0.0.1 started outside the inner pytest: the daemon on the laptop."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


CONNECT = """
import socket

def test_calls_the_daemon():
    socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
"""


def test_owned_blocks_a_loopback_daemon_started_outside_pytest(
    pytester: pytest.Pytester, ambient_daemon: int
) -> None:
    """Ablation: replace `mode == "owned" and port and not _owned(guard, protocol, port)` with
    `False` in `src/truegreen/guards/network.py`: the test reaches the daemon. Restored."""
    pytester.makepyfile(CONNECT.format(port=ambient_daemon))
    # Premise: the daemon answers when loopback is open.
    premise = pytester.runpytest_subprocess(*NO_TREE_GUARD, "--truegreen-set", "network=loopback")
    premise.assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"E *.NetworkBlocked: truegreen: *test_calls_the_daemon may not connect to "
            f"127.0.0.1:{ambient_daemon}: no listener started by this test session "
            "(network = 'owned')*",
            f"  network: blocked connect to 127.0.0.1:{ambient_daemon} (no listener started by "
            "this test session) at *",
        ]
    )


def test_a_refusal_s_traceback_ends_in_the_test_s_code_not_in_the_guard(
    pytester: pytest.Pytester, ambient_daemon: int
) -> None:
    """The frames where the guard decided (the audit hook, the listener, the check) tell the
    reader nothing: the traceback stops at the refused call, with the whole message.

    Ablation: replace `getattr(refusal, "refused_by_truegreen", False)` with `False` in
    `src/truegreen/guards/hook.py`.
    """
    pytester.makepyfile(CONNECT.format(port=ambient_daemon))
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "NetworkBlocked: truegreen: " in output
    assert [line for line in result.outlines if "truegreen/guards/" in line] == []


def test_allow_hosts_and_the_marker_let_one_address_through(
    pytester: pytest.Pytester, ambient_daemon: int
) -> None:
    pytester.makepyfile(
        f"""
        import socket

        import pytest

        @pytest.mark.truegreen_network("127.0.0.1:{ambient_daemon}")
        def test_marked():
            socket.create_connection(("127.0.0.1", {ambient_daemon}), timeout=5).close()
        """
    )
    pytester.runpytest_subprocess(*NO_TREE_GUARD).assert_outcomes(passed=1)
    pytester.makepyprojecttoml(f'[tool.truegreen]\nallow-hosts = ["127.0.0.1:{ambient_daemon}"]')
    pytester.makepyfile(CONNECT.format(port=ambient_daemon))
    pytester.runpytest_subprocess(*NO_TREE_GUARD).assert_outcomes(passed=1)


def test_servers_the_test_starts_itself_are_owned(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import socket
        import subprocess
        import sys
        import threading

        def test_thread_server():
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen()
            threading.Thread(target=lambda: server.accept()[0].close(), daemon=True).start()
            socket.create_connection(server.getsockname(), timeout=5).close()
            server.close()

        def test_child_process_server():
            code = (
                "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen();"
                "print(s.getsockname()[1], flush=True); s.accept()[0].close()"
            )
            child = subprocess.Popen(
                [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True
            )
            port = int(child.stdout.readline())
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            assert child.wait(timeout=10) == 0

        def test_non_python_child_server():
            # A program the guards cannot enter: /proc tells who owns the listener.
            code = (
                "import socket, os; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen();"
                "print(s.getsockname()[1], flush=True); s.accept()[0].close()"
            )
            child = subprocess.Popen(
                [sys.executable, "-S", "-E", "-c", code], stdout=subprocess.PIPE, text=True
            )
            port = int(child.stdout.readline())
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            assert child.wait(timeout=10) == 0
        """
    )
    pytester.runpytest_subprocess(*NO_TREE_GUARD).assert_outcomes(passed=3)


def test_block_refuses_even_an_owned_loopback_listener(pytester: pytest.Pytester) -> None:
    """Ablation: replace `mode == "block"` with `False` in `src/truegreen/guards/network.py`.
    Restored."""
    pytester.makepyprojecttoml('[tool.truegreen]\nnetwork = "block"\n')
    pytester.makepyfile(
        """
        import socket

        import pytest

        def test_connect_is_refused():
            server = socket.socket()
            server.bind(("127.0.0.1", 0))
            server.listen()
            client = socket.socket()
            with pytest.raises(ConnectionRefusedError, match="no connection is allowed"):
                client.connect(server.getsockname())
            server.close()
            client.close()
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=1)  # refused, and a violation
    result.stdout.fnmatch_lines(["*network: blocked connect to 127.0.0.1:*"])


def test_non_loopback_names_and_addresses_are_refused_before_any_packet(
    pytester: pytest.Pytester,
) -> None:
    """192.0.2.1 is TEST-NET-1: a numeric lookup sends nothing even if the guard failed."""
    pytester.makepyfile(
        """
        import socket

        import pytest
        from truegreen.guards.errors import NetworkBlocked

        def test_lookup():
            with pytest.raises(NetworkBlocked, match="may not resolve 192.0.2.1:443"):
                socket.getaddrinfo("192.0.2.1", 443)

        def test_connect():
            with pytest.raises(NetworkBlocked, match="not a loopback address"):
                socket.socket().connect(("192.0.2.1", 443))

        def test_loopback_names_resolve():
            assert socket.getaddrinfo("localhost", 80)
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(passed=1, failed=2)


def test_unix_sockets_are_not_network(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import multiprocessing
        import socket

        def test_forkserver_pool():
            ctx = multiprocessing.get_context("forkserver")
            with ctx.Pool(1) as pool:
                assert pool.map(abs, [-3]) == [3]

        def test_unix_pair(tmp_path):
            server = socket.socket(socket.AF_UNIX)
            server.bind(str(tmp_path / "s"))
            server.listen()
            client = socket.socket(socket.AF_UNIX)
            client.connect(str(tmp_path / "s"))
            client.close()
            server.close()
        """
    )
    pytester.runpytest_subprocess(*NO_TREE_GUARD).assert_outcomes(passed=2)


def test_a_name_no_resolver_would_ask_about_is_no_violation(pytester: pytest.Pytester) -> None:
    """http.server serving a Unix socket (werkzeug's dev server) looks up "/", the first
    character of the socket's path, for its own name: the C library turns such a name away
    without a packet, so the look-up cannot make a test depend on the network. The events are
    raised with `sys.audit`: nothing is looked up here.

    Ablation: replace `not is_no_host_name(text)` with `True` in
    `src/truegreen/guards/network.py`. Restored."""
    pytester.makepyfile(
        """
        import sys

        import pytest
        from truegreen.guards.errors import NetworkBlocked

        @pytest.mark.parametrize("name", ["/", "/tmp/server.sock", "localhost:8080", "*"])
        def test_no_host_name(name):
            sys.audit("socket.gethostbyaddr", name)
            sys.audit("socket.getaddrinfo", name, None, 0, 0, 0)

        @pytest.mark.parametrize(
            "name", ["example.invalid", "2001:db8::1", "b\u00fccher.example", "_srv._tcp.example"]
        )
        def test_a_name(name):
            with pytest.raises(NetworkBlocked, match="may not resolve"):
                sys.audit("socket.gethostbyaddr", name)
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-rA")
    result.assert_outcomes(passed=4, failed=4)  # premise: the names are refused and fail
    result.stdout.fnmatch_lines(["FAILED *test_a_name?2001:db8::1?*"])
    for name in ("/", "localhost:8080", "*"):
        assert f"blocked resolve {name} " not in result.stdout.str()
    assert result.stdout.str().count("PASSED") == 4


def test_the_machines_own_name_resolves(
    pytester: pytest.Pytester,
) -> None:
    """Mercurial with no username looks up `socket.getfqdn()` for user@host: this machine's
    own name, which the machine answers itself.

    Ablation: replace `is_own_name(text)` with `False` in `src/truegreen/guards/network.py`."""
    pytester.makepyfile(
        """
        import socket

        import pytest
        from truegreen.guards.errors import NetworkBlocked

        def test_own_name():
            assert socket.getfqdn()
            try:
                socket.gethostbyaddr(socket.gethostname())
            except (socket.herror, socket.gaierror):
                pass  # a name this machine's resolver does not know: no guard's business

        def test_another_name():
            with pytest.raises(NetworkBlocked, match="may not resolve 192.0.2.1"):
                socket.getaddrinfo("192.0.2.1", 443)  # numeric: no packet even unguarded
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-rA")
    result.assert_outcomes(passed=1, failed=1)  # premise: another name is still refused
    result.stdout.fnmatch_lines(["PASSED test_the_machines_own_name*::test_own_name"])
    assert f"blocked resolve {socket.gethostname()}" not in result.stdout.str()
