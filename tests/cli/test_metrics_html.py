"""The timeline page in a real headless Chromium: it loads cleanly and draws every test."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import runs
from truegreen.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]  # fmt: skip


def _dom(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.skipif(
    CHROMIUM is None or not runs(CHROMIUM, "--version"),
    reason="needs Debian's chromium (.ci/run installs it), running",
)
def test_the_timeline_loads_without_console_errors_and_draws_one_bar_per_test(
    pytester: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(
        test_killed_last="""
        import os
        import signal

        import pytest

        @pytest.fixture
        def setup_cost():
            return 1

        @pytest.mark.parametrize("n", range(5))
        def test_many(n, setup_cost):
            assert n < 4

        def test_killed_last():
            os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    metrics = pytester.path / "metrics"
    pytester.runpytest_subprocess(f"--truegreen-metrics={metrics}", "-p", "no:randomly")
    page = tmp_path / "timeline.html"
    capsys.readouterr()
    assert main(["metrics", str(metrics), "--html", str(page)]) == 0
    assert capsys.readouterr().err == (
        f"truegreen metrics: wrote the timeline to {page} (open it in a browser)\n"
    )
    html = page.read_text()
    assert "http://" not in html  # nothing is fetched when the page is viewed
    assert "https://" not in html
    done = _dom(page, tmp_path / "profile", "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    bars = re.findall(r'class="bar ([a-z ]+)"', done.stdout)
    assert len(bars) == 6  # five parametrized runs and the killed test
    assert bars.count("failed") == 1
    assert bars.count("passed unfinished") == 1
    summary = re.search(r'id="summary">([^<]+)<', done.stdout)
    assert summary is not None
    assert re.fullmatch(
        r"6 tests \(4 passed, 1 failed\) in 1 process \(session\) over "
        r"[\d.]+ m?s; 1 never finished \(striped\)",
        summary[1],
    ), summary[1]
    assert re.findall(r'class="label"[^>]*>([^<]+)<', done.stdout) == ["session"]
    assert len(re.findall(r'class="tick"', done.stdout)) >= 3  # a time axis
    assert len(re.findall(r'class="seg (setup|call|teardown)"', done.stdout)) == 15
    # what hovering a bar shows: the test, its outcome, its phases and fixtures with seconds
    labels = dict(re.findall(r'aria-label="([^":]+::[^":]+): ([^"]+)"', done.stdout))
    assert re.fullmatch(
        r"outcome failed; total [\d.]+ (ms|µs|s); process session; started at [\d.]+ (ms|s); "
        r"setup [\d.]+ (ms|µs) +passed; call [\d.]+ (ms|µs) +failed; teardown [\d.]+ (ms|µs) +"
        r"passed(; (fixture|teardown) \w+ \(function\) [\d.]+ (ms|µs))+",
        labels["test_killed_last.py::test_many[4]"].replace("&nbsp;", " "),
    ), labels
    assert "fixture setup_cost (function)" in labels["test_killed_last.py::test_many[4]"]
    assert "teardown setup_cost (function)" in labels["test_killed_last.py::test_many[4]"]
    # beside it: the slowest tests, the costliest files and the fixture setups
    assert "test_killed_last.py</td>" in done.stdout
    assert "setup_cost (function)" in done.stdout
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []
    shot = tmp_path / "timeline.png"  # drawn in full, legend and axis included
    drawn = _dom(page, tmp_path / "profile", "--window-size=1400,700", f"--screenshot={shot}")
    assert drawn.returncode == 0, drawn.stderr[-2000:]
    assert shot.stat().st_size > 10_000
