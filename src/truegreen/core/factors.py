"""The ambient factors a sealed run lacks, each applied alone: a variable, a dotfile, the zone,
the locale. Names only: nothing here returns or prints a variable's value."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

# The home is a directory, not a factor: its contents are.
HOME_VARIABLES = frozenset({"HOME", "USERPROFILE"})
LOCALE_VARIABLES = frozenset({"LANG", "LANGUAGE"})
LOCALE_PREFIX = "LC_"
ZONE_VARIABLE = "TZ"
# Where git reads its global configuration when GIT_CONFIG_GLOBAL does not say otherwise.
GIT_GLOBAL = (".gitconfig", ".config/git")
# A dotfile entry past these limits is not copied into every rerun's home (a cache, a
# toolchain); it is listed as not tried.
MAX_FILES = 2000
MAX_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Factor:
    """One ambient difference: ``kind`` is variable, home, timezone or locale; ``name`` the
    variable, the path under the home (``.gitconfig``, ``.config/gh``), ``TZ`` or ``LANG``."""

    kind: str
    name: str
    directory: bool = False

    @property
    def label(self) -> str:
        if self.kind == "variable":
            return f"variable {self.name}"
        if self.kind == "home":
            return f"~/{self.name}"
        if self.kind == "timezone":
            return "time zone (TZ)"
        return "locale (LANG, LANGUAGE, LC_*)"

    @property
    def fix(self) -> str:
        """The one-line way to make the test independent of this factor."""
        if self.kind == "variable":
            return (
                f"declare {self.name} in clear-env (or its prefix in clear-env-prefixes) in "
                "[tool.truegreen] and set it inside the tests that need it; or pass it with "
                f"--keep-env {self.name} if the suite is meant to see it"
            )
        if self.kind == "home" and self.name in GIT_GLOBAL:
            return (
                "establish the git identity inside the test: "
                "hermetic.git_identity(name, email) (docs/hermetic.md)"
            )
        if self.kind == "home":
            return (
                f"establish the file inside the test: hermetic.home_file("
                f"{self.name + '/...' if self.directory else self.name!r}, text) "
                "(docs/hermetic.md)"
            )
        if self.kind == "timezone":
            return (
                "establish the zone inside the test (monkeypatch.setenv('TZ', ...) and "
                "time.tzset()), and compute zone-dependent values there, not at import"
            )
        return (
            "establish the locale inside the test (monkeypatch.setenv('LC_ALL', ...)), or "
            "pass an explicit locale or encoding to the code under test"
        )


@dataclass(frozen=True)
class Machine:
    """The factors of one ambient machine, and the home entries too large to try."""

    factors: tuple[Factor, ...]
    untried: tuple[str, ...]


def _is_locale(name: str) -> bool:
    return name in LOCALE_VARIABLES or name.startswith(LOCALE_PREFIX)


def _too_large(path: Path) -> bool:
    if not path.is_dir():
        return path.stat().st_size > MAX_BYTES
    files = size = 0
    for root, _, names in os.walk(path):
        for name in names:
            files += 1
            try:
                size += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
            if files > MAX_FILES or size > MAX_BYTES:
                return True
    return False


def _home_entries(home: Path) -> list[str]:
    """Dotfiles and dot-directories of the home, with ``~/.config`` split by application."""
    if not home.is_dir():
        return []
    found = []
    for entry in sorted(home.iterdir()):
        if not entry.name.startswith("."):
            continue
        if entry.name == ".config" and entry.is_dir():
            found += [f".config/{child.name}" for child in sorted(entry.iterdir())]
        else:
            found.append(entry.name)
    return [name for name in found if (home / name).is_file() or (home / name).is_dir()]


def ambient_factors(ambient: Mapping[str, str], sealed: Mapping[str, str], home: Path) -> Machine:
    """Every factor the ``ambient`` environment and ``home`` have that ``sealed`` lacks: each
    variable it lacks or holds with another value, each dotfile, the zone and the locale."""
    variables = [
        Factor("variable", name)
        for name in sorted(ambient)
        if name not in HOME_VARIABLES
        and name != ZONE_VARIABLE
        and not _is_locale(name)
        and sealed.get(name) != ambient[name]
    ]
    dotfiles, untried = [], []
    for name in _home_entries(home):
        if _too_large(home / name):
            untried.append(f"~/{name}")
        else:
            dotfiles.append(Factor("home", name, (home / name).is_dir()))
    tail = []
    if ambient.get(ZONE_VARIABLE) != sealed.get(ZONE_VARIABLE):
        tail.append(Factor("timezone", ZONE_VARIABLE))
    names = {n for n in (*ambient, *sealed) if _is_locale(n)}
    if any(ambient.get(n) != sealed.get(n) for n in names):
        tail.append(Factor("locale", "LANG"))
    return Machine((*variables, *dotfiles, *tail), tuple(untried))


def _texts(path: Path) -> Iterator[str]:
    """The text of a dotfile, or of each file of a dot-directory."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    for file in files:
        try:
            yield file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue


def naming(
    path: str, factors: Sequence[Factor], ambient: Mapping[str, str], home: Path
) -> Optional[Factor]:
    """The factor that names ``path``, a place under ``home``, or a directory above it below
    the home: a variable whose value (or an entry of its ``os.pathsep`` list) is that place,
    or a dotfile whose text holds it (absolute, or as ``~/...``). The most precise wins."""
    target = Path(path)
    if not target.is_relative_to(home) or target == home:
        return None
    places = [p for p in (target, *target.parents) if p != home and p.is_relative_to(home)]
    best: Optional[tuple[int, int, Factor]] = None
    for rank, factor in enumerate(factors):
        if factor.kind == "variable":
            values = ambient.get(factor.name, "").split(os.pathsep)
            hits = [p for p in places if any(v.rstrip("/") == str(p) for v in values if v)]
        elif factor.kind == "home":
            texts = list(_texts(home / factor.name))
            hits = [p for p in places if any(_names(text, p, home) for text in texts)]
        else:
            continue
        if hits:
            depth = len(hits[0].parts)
            if best is None or depth > best[0]:
                best = (depth, rank, factor)
    return None if best is None else best[2]


def _names(text: str, place: Path, home: Path) -> bool:
    """Whether ``text`` names ``place`` itself (not a longer path that starts alike)."""
    spelled = (str(place), "~/" + place.relative_to(home).as_posix())
    return any(re.search(re.escape(s) + r"(?!/?[\w.\-])", text) for s in spelled)


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        if source.is_dir():
            shutil.copytree(source, target, ignore_dangling_symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)
    except (OSError, shutil.Error):
        pass  # an unreadable part stays out, as it would for a test that could not read it


def apply(
    factors: Sequence[Factor], sealed: Mapping[str, str], ambient: Mapping[str, str], home: Path
) -> dict[str, str]:
    """The ``sealed`` environment with ``factors`` put back as the ambient machine has them.

    Dotfiles are copied from ``home`` into the sealed environment's own fresh ``HOME``; a
    copied git configuration is also made visible to git, which the sealed environment
    points at the null device, unless the ambient one does that too.
    """
    env = dict(sealed)
    fresh = Path(env["HOME"])
    for factor in factors:
        if factor.kind == "variable":
            env[factor.name] = ambient[factor.name]
        elif factor.kind == "home":
            _copy(home / factor.name, fresh / factor.name)
            if factor.name in GIT_GLOBAL and "GIT_CONFIG_GLOBAL" not in ambient:
                env.pop("GIT_CONFIG_GLOBAL", None)
        elif factor.kind == "timezone":
            env.pop(ZONE_VARIABLE, None)
            env.update({n: v for n, v in ambient.items() if n == ZONE_VARIABLE})
        else:
            for name in [n for n in env if _is_locale(n)]:
                del env[name]
            env.update({n: v for n, v in ambient.items() if _is_locale(n)})
    return env
