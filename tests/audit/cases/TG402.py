import asyncio
import time
import time as clock
from time import sleep
from time import sleep as nap

import pytest


def test_sleeps_through_the_module():
    time.sleep(0.5)  # expect: TG402


def test_sleeps_through_an_alias():
    clock.sleep(1)  # expect: TG402


def test_sleeps_through_a_from_import():
    sleep(1)  # expect: TG402


async def test_awaits_a_sleep():
    await asyncio.sleep(0.1)  # expect: TG402


async def test_yields_to_the_loop():
    await asyncio.sleep(0)


@pytest.fixture
def server():
    time.sleep(2)  # expect: TG402
    yield "server"


class TestInAClass:
    def test_method(self):
        def wait():
            time.sleep(1)  # expect: TG402

        wait()

    def helper(self):
        time.sleep(1)


def poll_until(predicate):
    time.sleep(0.01)


def test_patches_sleep_away(monkeypatch):
    monkeypatch.setattr(time, "sleep", lambda seconds: None)


def test_sleep_of_its_own(fake_clock):
    fake_clock.sleep(10)


def test_polls_for_a_condition(tmp_path):
    deadline = time.monotonic() + 10
    while not (tmp_path / "ready").exists() and time.monotonic() < deadline:
        time.sleep(0.1)


def test_polls_a_bounded_number_of_times(server):
    for _ in range(50):
        if server.ready():
            break
        time.sleep(0.1)


def test_sleeps_under_another_name():
    nap(1)  # expect: TG402
