import time
import timeit
import unittest
from time import monotonic, perf_counter

import pytest


def test_difference_in_the_assertion():
    t0 = time.monotonic()
    work()
    assert time.monotonic() - t0 < 0.5  # expect: TG406


def test_span_held_in_a_name():
    start = perf_counter()
    work()
    elapsed = perf_counter() - start
    assert elapsed < 0.1  # expect: TG406


def test_bounded_on_both_sides():
    before = time.time()
    work()
    assert 0.02 <= time.time() - before < 0.3  # expect: TG406


def test_bound_written_first():
    t0 = monotonic()
    work()
    took = monotonic() - t0
    assert 0.25 >= took  # expect: TG406


def test_two_readings():
    start = timeit.default_timer()
    work()
    end = timeit.default_timer()
    assert end - start <= 0.05, "too slow"  # expect: TG406


class TestSpeed(unittest.TestCase):
    def test_unittest_bound(self):
        t0 = time.perf_counter()
        work()
        duration = time.perf_counter() - t0
        self.assertLess(duration, 0.2)  # expect: TG406


def test_a_second_or_more_guards_a_hang():
    t0 = time.monotonic()
    work()
    assert time.monotonic() - t0 < 5
    assert time.monotonic() - t0 < 1.0


def test_a_lower_bound_checks_a_wait():
    t0 = time.monotonic()
    time.sleep(0.1)
    assert time.monotonic() - t0 >= 0.1


def test_a_computed_bound(tol):
    t0 = time.monotonic()
    work()
    assert time.monotonic() - t0 < 0.3 * (1 + tol)


def test_not_a_time():
    ratio = measure() - baseline()
    assert ratio < 0.5
    assert time.time() > 0.5


def test_a_rebound_name():
    t = time.monotonic()
    t = len(work())
    assert t < 0.5


def test_another_functions_names(elapsed):
    assert elapsed < 0.1


def test_a_timestamp_not_a_span():
    now = time.time()
    assert now - 1_700_000_000 > 0.5
