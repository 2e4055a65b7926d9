"""The platforms marker in a real run: gated by the real host, wrong markers stop collection."""

from __future__ import annotations

import platform
import sys

import pytest

from truegreen.core.platforms import Marker, host_from

HOST = host_from(sys.platform, platform.machine())
FORMS = [
    ("linux",), ("macos",), ("windows",), ("posix",), ("any",), ("not linux",),
    ("not windows",), ("linux", "windows"), ("not any",),
]  # fmt: skip
ARCHES = [None, HOST.arch, "riscv64" if HOST.arch != "riscv64" else "x86_64"]


def test_every_spec_form_on_this_host(pytester: pytest.Pytester) -> None:
    """The outcome table on the host we have: each test runs exactly where its marker says."""
    lines, expected_pass, expected_skip = ["import pytest"], 0, 0
    for i, specs in enumerate(FORMS):
        for j, arch in enumerate(ARCHES):
            args = ", ".join(repr(s) for s in specs) + (f", arch={arch!r}" if arch else "")
            lines += [f"@pytest.mark.platforms({args})", f"def test_{i}_{j}():", "    pass"]
            if Marker.from_args(specs, arch).matches(HOST):
                expected_pass += 1
            else:
                expected_skip += 1
    pytester.makepyfile("\n".join(lines))
    result = pytester.runpytest_subprocess("--strict-markers", "-rs")
    result.assert_outcomes(passed=expected_pass, skipped=expected_skip)
    assert expected_pass > 0
    assert expected_skip > 0
    result.stdout.fnmatch_lines([f"*platforms('not any') does not match this host ({HOST})"])


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "@pytest.mark.platforms('lnux')\ndef test_x(): pass",
            "test_x.py::test_x: platforms: expected one of linux, macos, windows, posix, any or "
            "'not <spec>', found 'lnux' (did you mean 'linux'?)",
        ),
        (
            "@pytest.mark.platforms()\ndef test_x(): pass",
            "test_x.py::test_x: platforms: expected at least one spec such as 'linux', found an "
            "empty marker",
        ),
        (
            "@pytest.mark.platforms(('linux', 'macos'))\ndef test_x(): pass",
            "test_x.py::test_x: platforms: expected a spec string such as 'linux', found "
            "('linux', 'macos') (tuple)",
        ),
        (
            "pytestmark = pytest.mark.platforms('posix')\n\n"
            "@pytest.mark.platforms('linux')\ndef test_x(): pass",
            "test_x.py::test_x: platforms: expected one marker per test, found 2 "
            "(platforms('linux'); platforms('posix')); put every spec in one marker, e.g. "
            "platforms('linux', 'macos')",
        ),
        (
            "@pytest.mark.platforms('linux', os='linux')\ndef test_x(): pass",
            "test_x.py::test_x: platforms: expected only arch=..., found os=...",
        ),
        (
            "@pytest.mark.platforms('linux', arch='amd46')\ndef test_x(): pass",
            "test_x.py::test_x: platforms: expected arch to be one of x86_64, arm64, x86, arm, "
            "ppc64le, s390x, riscv64, ppc64, loongarch64 or an alias of one, found 'amd46' "
            "(did you mean 'amd64'?)",
        ),
    ],
    ids=["misspelt", "empty", "not-a-string", "stacked", "unknown-keyword", "misspelt-arch"],
)
def test_wrong_markers_are_collection_errors_never_skips(
    pytester: pytest.Pytester, source: str, message: str
) -> None:
    """Ablation: delete `config.hook.pytest_collectreport(report=report)` in
    `src/truegreen/plugin/platforms.py`: each run is green. Restored."""
    pytester.makepyfile(test_x="import pytest\n\n" + source + "\n\ndef test_other(): pass\n")
    result = pytester.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_x.py*", message, "*1 error*"])
    result.assert_outcomes(errors=1)
