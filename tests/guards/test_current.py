"""The running test, as the session publishes it for its child processes."""

from __future__ import annotations

from pathlib import Path

from truegreen.guards.current import UNKNOWN, Publisher, running


def test_a_child_reads_the_test_running_now_and_none_between_tests(tmp_path: Path) -> None:
    assert running(str(tmp_path)) == UNKNOWN  # no session publishes here
    publisher = Publisher(str(tmp_path))
    try:
        assert running(str(tmp_path)) == UNKNOWN  # nothing published yet
        publisher.publish("tests/test_a.py::test_a_long_name[param]")
        assert running(str(tmp_path)) == "tests/test_a.py::test_a_long_name[param]"
        publisher.publish("tests/test_b.py::test_b")  # shorter: the old tail stays behind
        assert running(str(tmp_path)) == "tests/test_b.py::test_b"
        publisher.publish(None)
        assert running(str(tmp_path)) is None
    finally:
        publisher.close()
