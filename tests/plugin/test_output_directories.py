"""The directories a run writes its records into are checked before any test runs."""

from __future__ import annotations

import os

import pytest


@pytest.mark.parametrize("flag", ["--truegreen-metrics", "--truegreen-manifest"])
@pytest.mark.parametrize(
    ("where", "found"),
    [
        ("a-file", "a file"),
        pytest.param(
            "/proc",
            "one where creating a file fails (No such file or directory)",
            marks=pytest.mark.platforms("linux"),
        ),
    ],
)
def test_a_directory_no_record_can_be_written_into_is_a_usage_error(
    pytester: pytest.Pytester, flag: str, where: str, found: str
) -> None:
    """A file of that name or `/proc` ended the run with a traceback (INTERNALERROR, exit 3)
    at its first record.

    Ablation: replace `_writable(flag, directory)` with `None` in
    `src/truegreen/plugin/outputs.py`."""
    pytester.makepyfile("def test_ok(): pass")
    (pytester.path / "a-file").write_text("not a directory\n")
    # premise: no place for a file: a file, or Linux's procfs (no file can be made in it)
    assert os.path.isfile(where) or os.path.isdir("/proc/self")
    result = pytester.runpytest_subprocess(f"{flag}={where}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = [line for line in result.stderr.lines if line.strip()]
    assert err == [f"ERROR: truegreen: {flag}={where}: expected a directory to write into, "
                   f"found {found}"]  # fmt: skip
