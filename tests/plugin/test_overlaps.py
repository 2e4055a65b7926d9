"""The run header names the plugins that do part of truegreen's work, and which decides."""

from __future__ import annotations

import pytest

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")
CONNECT = """
import socket

def test_reaches_its_own_listener():
    server = socket.create_server(("127.0.0.1", 0))
    socket.create_connection(server.getsockname(), timeout=5).close()
    server.close()
"""


def test_pytest_socket_s_disable_socket_is_named_as_the_guard_that_decides(
    pytester: pytest.Pytester,
) -> None:
    """With pytest-socket's --disable-socket, a test that only reaches a listener it started
    (allowed by truegreen's owned mode) fails on pytest-socket's refusal: the header says so
    before the first test.

    Checked by hand, since ablation cannot reach `src/truegreen/plugin/__init__.py`: with the
    option lookup in its pytest_report_header made False, the header says pytest-socket
    refuses nothing and this test fails. Restored.
    """
    pytester.makepyfile(CONNECT)
    alone = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-p", "socket")
    alone.assert_outcomes(passed=1)  # premise: truegreen's guard lets it through
    alone.stdout.fnmatch_lines(["truegreen beside pytest-socket: pytest-socket is loaded but "
                                "refuses nothing*truegreen's network guard decides"])  # fmt: skip
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-p", "socket", "--disable-socket")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["truegreen beside pytest-socket: pytest-socket's "
                                 "--disable-socket refuses sockets before truegreen's network "
                                 "guard sees them: pytest-socket decides*"])  # fmt: skip


def test_without_an_overlapping_plugin_the_header_says_nothing_of_one(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_ok(): pass")
    result = pytester.runpytest_subprocess(
        *NO_TREE_GUARD, "-p", "no:socket", "-p", "no:rerunfailures"
    )
    result.assert_outcomes(passed=1)
    assert "truegreen beside" not in result.stdout.str()
