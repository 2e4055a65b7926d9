import threading
import unittest

import pytest


def test_a_helper_that_waits(job):
    job.cancel()
    assert not wait_until(lambda: job.ran, timeout=0.5)  # expect: TG407


def test_an_event_wait():
    ran = threading.Event()
    assert not ran.wait(0.1)  # expect: TG407


def test_is_false(job):
    assert poll_until(job.done, 1) is False  # expect: TG407
    assert eventually(job.done) == False  # expect: TG407


async def test_awaited(job):
    assert not await job.wait_for_completion(timeout=0.2)  # expect: TG407


class TestWaits(unittest.TestCase):
    def test_assert_false(self):
        self.assertFalse(self.waitForReady(0.3))  # expect: TG407


def test_a_wait_that_must_succeed(job):
    assert wait_until(lambda: job.ran, timeout=10)
    assert job.wait(10) is True


def test_exit_statuses(proc):
    assert not proc.wait()
    assert not proc.wait(timeout=5)
    assert not os.waitpid(pid, 0)[1]
    assert proc.poll() is None
    assert not proc.poll()


def test_other_negations(job):
    assert not job.failed()
    assert not waiting_room
    assert job.waiting is False
