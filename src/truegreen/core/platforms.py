"""The ``platforms`` marker as data: hosts, specs, and which OS lanes a marker reaches.

Specs: ``linux``, ``macos``, ``windows``, ``posix`` (linux or macos), ``any``, and
``not <spec>``. Several specs in one marker mean any-of; ``arch`` narrows to CPU
architectures (one truegreen does not know is an error, as a misspelt spec is). The host
is data here, so every host can be tested on any host.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from truegreen.core.errors import UsageError

OSES = ("linux", "macos", "windows")
_SETS = {
    "linux": frozenset({"linux"}),
    "macos": frozenset({"macos"}),
    "windows": frozenset({"windows"}),
    "posix": frozenset({"linux", "macos"}),
    "any": frozenset(OSES),
}
SPECS = tuple(_SETS)

# Spellings of one architecture; the first of each family is the name truegreen uses.
_ARCHES = {
    "x86_64": ("x86_64", "amd64", "x64", "x86-64"),
    "arm64": ("arm64", "aarch64", "armv8", "arm64e"),
    "x86": ("x86", "i386", "i486", "i586", "i686"),
    "arm": ("arm", "armv7", "armv7l", "armv6l", "armhf"),
    "ppc64le": ("ppc64le", "powerpc64le"),
    "s390x": ("s390x",),
    "riscv64": ("riscv64",),
    "ppc64": ("ppc64", "powerpc64"),
    "loongarch64": ("loongarch64",),
}
_ARCH_OF = {alias: name for name, aliases in _ARCHES.items() for alias in aliases}


class PlatformSpecError(UsageError):
    """A ``platforms`` marker that cannot be evaluated: a collection error, never a skip."""

    slug = "platforms"


@dataclass(frozen=True)
class Host:
    """The machine a test runs on: an OS of :data:`OSES` and a normalised architecture."""

    os: str
    arch: str

    def __str__(self) -> str:
        return f"{self.os}, {self.arch}"


def normalize_arch(name: str) -> str:
    """``AMD64`` -> ``x86_64``, ``aarch64`` -> ``arm64``; unknown names pass lowered."""
    lowered = name.strip().lower()
    return _ARCH_OF.get(lowered, lowered)


def checked_arch(name: object) -> str:
    """The architecture ``name`` spells (its normalised name); PlatformSpecError if none."""
    if not isinstance(name, str):
        raise PlatformSpecError(
            f"platforms: expected arch to be a string or a tuple of strings, found {name!r}"
        )
    lowered = name.strip().lower()
    if lowered in _ARCH_OF:
        return _ARCH_OF[lowered]
    close = difflib.get_close_matches(lowered, _ARCH_OF, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise PlatformSpecError(
        f"platforms: expected arch to be one of {', '.join(_ARCHES)} or an alias of one, "
        f"found {name!r}{hint}"
    )


def host_from(sys_platform: str, machine: str) -> Host:
    """The host as the interpreter reports it (WSL reports linux and counts as linux)."""
    if sys_platform.startswith("linux"):
        os_name = "linux"
    elif sys_platform == "darwin":
        os_name = "macos"
    elif sys_platform in {"win32", "cygwin", "msys"}:
        os_name = "windows"
    else:
        os_name = sys_platform  # a BSD: matches `any` and `not <os>` only
    return Host(os_name, normalize_arch(machine))


def _did_you_mean(word: str) -> str:
    close = difflib.get_close_matches(word, SPECS, n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_spec(spec: object) -> tuple[bool, str]:
    """``"not posix"`` -> (True, "posix"); raise PlatformSpecError for anything else."""
    if not isinstance(spec, str):
        raise PlatformSpecError(
            f"platforms: expected a spec string such as 'linux', found {spec!r} "
            f"({type(spec).__name__})"
        )
    words = spec.strip().lower().split()
    negated = bool(words) and words[0] == "not"
    rest = words[1:] if negated else words
    if len(rest) != 1 or rest[0] not in _SETS:
        shown = " ".join(rest) or spec
        raise PlatformSpecError(
            f"platforms: expected one of {', '.join(SPECS)} or 'not <spec>', "
            f"found {spec!r}{_did_you_mean(shown)}"
        )
    return negated, rest[0]


def spec_oses(spec: str) -> frozenset[str]:
    """The operating systems one spec reaches."""
    negated, name = parse_spec(spec)
    return frozenset(OSES) - _SETS[name] if negated else _SETS[name]


@dataclass(frozen=True)
class Marker:
    """One ``platforms(*specs, arch=None)`` marker, checked."""

    specs: tuple[str, ...]
    arch: tuple[str, ...] = ()

    @classmethod
    def from_args(
        cls, args: Sequence[object], arch: Union[str, Sequence[object], None] = None
    ) -> Marker:
        if not args:
            raise PlatformSpecError(
                "platforms: expected at least one spec such as 'linux', found an empty marker"
            )
        for spec in args:
            parse_spec(spec)  # raises for a spec that is not one
        specs = tuple(str(spec) for spec in args)
        if arch is None:
            arches: tuple[str, ...] = ()
        elif isinstance(arch, str):
            arches = (checked_arch(arch),)
        elif isinstance(arch, (tuple, list)) and arch and all(isinstance(a, str) for a in arch):
            arches = tuple(checked_arch(a) for a in arch)
        else:
            raise PlatformSpecError(
                f"platforms: expected arch to be a string or a tuple of strings, found {arch!r}"
            )
        return cls(specs, arches)

    def oses(self) -> frozenset[str]:
        """Every OS at least one spec reaches."""
        return frozenset().union(*(spec_oses(spec) for spec in self.specs))

    def matches(self, host: Host) -> bool:
        os_ok = any(
            (host.os not in _SETS[name]) if negated else (host.os in _SETS[name])
            for negated, name in map(parse_spec, self.specs)
        )
        return os_ok and (not self.arch or host.arch in self.arch)

    def reaches(self, os_name: str, arch: Optional[str] = None) -> bool:
        """Whether a lane for ``os_name`` (and ``arch``, when given) must import the test."""
        if os_name not in self.oses():
            return False
        return arch is None or not self.arch or normalize_arch(arch) in self.arch

    def describe(self) -> str:
        args = ", ".join(repr(s) for s in self.specs)
        if self.arch:
            shown = repr(self.arch[0]) if len(self.arch) == 1 else repr(self.arch)
            args += f", arch={shown}"
        return f"platforms({args})"


# The marker's name, as tests write it: @pytest.mark.platforms("linux").
MARKER = "platforms"


def checked_marker(found: Sequence[Any]) -> Optional[Marker]:
    """The one marker among ``found`` (pytest's marks named :data:`MARKER` on one test, each
    with ``args`` and ``kwargs``), checked; None when there is none. PlatformSpecError when
    there are two, a keyword other than ``arch``, or a wrong spec."""
    if not found:
        return None
    if len(found) > 1:
        shown = "; ".join(
            Marker.from_args(m.args, m.kwargs.get("arch")).describe() if m.args else "platforms()"
            for m in found
        )
        raise PlatformSpecError(
            f"platforms: expected one marker per test, found {len(found)} ({shown}); "
            "put every spec in one marker, e.g. platforms('linux', 'macos')"
        )
    mark = found[0]
    unknown = sorted(set(mark.kwargs) - {"arch"})
    if unknown:
        raise PlatformSpecError(f"platforms: expected only arch=..., found {unknown[0]}=...")
    return Marker.from_args(mark.args, mark.kwargs.get("arch"))
