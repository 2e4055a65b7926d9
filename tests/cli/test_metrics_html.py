"""The timeline page in a real headless Chromium: it loads cleanly and draws every test."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from truegreen.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]  # fmt: skip


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (.ci/run installs it)")
def test_the_timeline_loads_without_console_errors_and_draws_one_bar_per_test(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(
        """
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
    assert main(["metrics", str(metrics), "--html", str(page)]) == 0
    html = page.read_text()
    assert "http://" not in html  # nothing is fetched when the page is viewed
    assert "https://" not in html
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    bars = re.findall(r'class="bar ([a-z ]+)"', done.stdout)
    assert len(bars) == 6  # five parametrized runs and the killed test
    assert bars.count("failed") == 1
    assert bars.count("passed unfinished") == 1
    assert "6 tests in 1 processes" in done.stdout
    console = [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []
