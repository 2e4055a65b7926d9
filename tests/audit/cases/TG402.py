import asyncio
import time
import time as clock
from time import sleep
from time import sleep as nap

import pytest
import time_machine
from freezegun import freeze_time


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


def test_sleeps_under_a_ticking_frozen_clock():
    with freeze_time("2012-01-14", tick=True):
        time.sleep(0.001)
        assert time.time() > 1326499200


def test_sleeps_under_a_clock_double_of_another_library():
    with time_machine.travel(0, tick=True) as traveller:
        sleep(0.01)
    traveller.shift(1)


async def test_awaits_a_real_sleep_under_a_frozen_clock():
    with freeze_time("1970-01-02", real_asyncio=True):
        await asyncio.sleep(0.05)


def test_runs_a_coroutine_that_sleeps_under_a_frozen_clock():
    async def coroutine():
        await asyncio.sleep(0.15)

    with freeze_time("1970-01-02", real_asyncio=True):
        asyncio.run(coroutine())


def test_sleeps_after_the_frozen_clock_block():
    with freeze_time("2012-01-14"):
        pass
    time.sleep(1)  # expect: TG402


def test_runs_a_coroutine_that_sleeps_outside_the_frozen_clock():
    async def coroutine():
        await asyncio.sleep(0.15)  # expect: TG402

    with freeze_time("1970-01-02"):
        pass
    asyncio.run(coroutine())


def test_sleeps_under_another_context_manager(tmp_path):
    with open(tmp_path / "log", "w"):
        time.sleep(1)  # expect: TG402


@freeze_time("2012-01-14", tick=True)
def test_sleeps_under_a_decorating_clock_double():
    time.sleep(0.001)  # expect: TG402
