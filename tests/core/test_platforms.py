"""The platforms matcher over every host, as data: no test fakes sys.platform."""

from __future__ import annotations

import pytest

from truegreen.core.platforms import Host, Marker, PlatformSpecError, host_from, normalize_arch

LINUX, MAC, WIN = Host("linux", "x86_64"), Host("macos", "arm64"), Host("windows", "x86_64")
WIN_ARM = Host("windows", "arm64")


@pytest.mark.parametrize(
    ("sys_platform", "machine", "expected"),
    [
        ("linux", "x86_64", Host("linux", "x86_64")),
        ("linux", "aarch64", Host("linux", "arm64")),  # WSL and containers report linux
        ("darwin", "arm64", Host("macos", "arm64")),
        ("win32", "AMD64", Host("windows", "x86_64")),
        ("win32", "ARM64", Host("windows", "arm64")),
        ("cygwin", "x86_64", Host("windows", "x86_64")),
        ("freebsd14", "amd64", Host("freebsd14", "x86_64")),
    ],
)
def test_host_from_the_interpreter(sys_platform: str, machine: str, expected: Host) -> None:
    assert host_from(sys_platform, machine) == expected


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("AMD64", "x86_64"),
        ("x64", "x86_64"),
        ("aarch64", "arm64"),
        ("i686", "x86"),
        ("armv7l", "arm"),
        ("mips", "mips"),
    ],
)
def test_arch_aliases(alias: str, name: str) -> None:
    assert normalize_arch(alias) == name


# (marker args, arch) -> the hosts among LINUX, MAC, WIN, WIN_ARM it runs on.
TABLE = [
    (("linux",), None, {LINUX}),
    (("macos",), None, {MAC}),
    (("windows",), None, {WIN, WIN_ARM}),
    (("posix",), None, {LINUX, MAC}),
    (("any",), None, {LINUX, MAC, WIN, WIN_ARM}),
    (("not linux",), None, {MAC, WIN, WIN_ARM}),
    (("not posix",), None, {WIN, WIN_ARM}),
    (("not any",), None, set()),
    (("linux", "macos"), None, {LINUX, MAC}),
    (("not windows", "windows"), None, {LINUX, MAC, WIN, WIN_ARM}),
    (("windows",), "arm64", {WIN_ARM}),
    (("windows",), "aarch64", {WIN_ARM}),
    (("any",), ("x86_64", "amd64"), {LINUX, WIN}),
    (("  Not   MacOS ",), None, {LINUX, WIN, WIN_ARM}),
]


@pytest.mark.parametrize(("args", "arch", "runs_on"), TABLE)
def test_marker_outcome_on_every_host(
    args: tuple[str, ...], arch: object, runs_on: set[Host]
) -> None:
    marker = Marker.from_args(args, arch)  # type: ignore[arg-type]
    actual = {host for host in (LINUX, MAC, WIN, WIN_ARM) if marker.matches(host)}
    assert actual == runs_on


@pytest.mark.parametrize(
    ("args", "arch", "oses"),
    [
        (("posix",), None, {"linux", "macos"}),
        (("not linux",), None, {"windows", "macos"}),
        (("windows", "linux"), "arm64", {"windows", "linux"}),
    ],
)
def test_the_oses_a_marker_reaches(args: tuple[str, ...], arch: object, oses: set[str]) -> None:
    assert Marker.from_args(args, arch).oses() == oses  # type: ignore[arg-type]


def test_reaches_narrows_by_arch_only_when_the_lane_names_one() -> None:
    marker = Marker.from_args(("windows",), "arm64")
    assert marker.reaches("windows")
    assert marker.reaches("windows", "aarch64")
    assert not marker.reaches("windows", "x86_64")
    assert not marker.reaches("linux")


@pytest.mark.parametrize(
    ("args", "arch", "message"),
    [
        (("lnux",), None, r"found 'lnux' \(did you mean 'linux'\?\)"),
        (("not wndows",), None, r"found 'not wndows' \(did you mean 'windows'\?\)"),
        (
            ("linux or macos",),
            None,
            r"expected one of linux, macos, windows, posix, any or "
            r"'not <spec>', found 'linux or macos'",
        ),
        ((), None, r"expected at least one spec such as 'linux', found an empty marker"),
        ((3,), None, r"expected a spec string such as 'linux', found 3 \(int\)"),
        ((["linux", "macos"],), None, r"found \['linux', 'macos'\] \(list\)"),
        (("linux",), 64, r"expected arch to be a string or a tuple of strings, found 64"),
        (("linux",), "amd46", r"found 'amd46' \(did you mean 'amd64'\?\)"),
        (("linux",), ("arm64", "x68_64"), r"found 'x68_64' \(did you mean 'x86_64'\?\)"),
        (("linux",), "mips", r"expected arch to be one of x86_64, arm64, .*, found 'mips'\Z"),
    ],
)
def test_wrong_markers_are_errors_with_their_message(
    args: tuple[object, ...], arch: object, message: str
) -> None:
    with pytest.raises(PlatformSpecError, match=message):
        Marker.from_args(args, arch)  # type: ignore[arg-type]


def test_describe_reads_like_the_marker() -> None:
    assert Marker.from_args(("linux", "macos"), "aarch64").describe() == (
        "platforms('linux', 'macos', arch='arm64')"
    )
