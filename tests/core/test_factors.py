"""Ambient factors of a fake machine built in tmp_path, and each one put back alone."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pytest

from truegreen.core import factors as factors_module
from truegreen.core.factors import Factor, ambient_factors, apply, naming

CANARY = "tg-canary-factors-93"


def machine(tmp_path: Path) -> tuple[dict[str, str], dict[str, str], Path]:
    """(ambient environment, sealed environment, ambient home): a developer's laptop."""
    home = tmp_path / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("github.com: {}\n")
    (home / ".config" / "lonely.conf").write_text("x = 1\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Ambient Developer\n")
    (home / ".netrc").write_text("machine example.invalid\n")
    (home / "projects").mkdir()
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    ambient = {
        "PATH": "/usr/bin",
        "HOME": str(home),
        "USERPROFILE": str(home),
        "MYAPP_MODE": CANARY,
        "TERM": "xterm-256color",
        "TZ": "XYZ-3",
        "LC_ALL": "de_DE.UTF-8",
        "KEPT": "same",
    }
    sealed = {
        "PATH": "/usr/bin",
        "HOME": str(fresh),
        "KEPT": "same",
        "TZ": "UTC",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    return ambient, sealed, home


def test_every_difference_is_one_factor(tmp_path: Path) -> None:
    ambient, sealed, home = machine(tmp_path)
    found = ambient_factors(ambient, sealed, home)
    assert found.factors == (
        Factor("variable", "MYAPP_MODE"),
        Factor("variable", "TERM"),
        Factor("home", ".config/gh", directory=True),
        Factor("home", ".config/lonely.conf"),
        Factor("home", ".gitconfig"),
        Factor("home", ".netrc"),
        Factor("timezone", "TZ"),
        Factor("locale", "LANG"),
    )
    assert found.untried == ()


def test_the_home_itself_and_shared_variables_are_not_factors(tmp_path: Path) -> None:
    """Ablation: replace `sealed.get(name) != ambient[name]` with `True` in
    `src/truegreen/core/factors.py`.

    Ablation: replace `name not in HOME_VARIABLES` with `True` in
    `src/truegreen/core/factors.py`.
    """
    ambient, sealed, home = machine(tmp_path)
    assert ambient["PATH"] == sealed["PATH"]  # premise: present in both, equal
    assert ambient["HOME"] != sealed["HOME"]  # premise: the homes differ
    names = {f.name for f in ambient_factors(ambient, sealed, home).factors}
    assert names.isdisjoint({"PATH", "KEPT", "HOME", "USERPROFILE", "projects"})


def test_a_zone_the_machine_leaves_unset_is_still_a_factor(tmp_path: Path) -> None:
    ambient, sealed, home = machine(tmp_path)
    del ambient["TZ"]
    assert Factor("timezone", "TZ") in ambient_factors(ambient, sealed, home).factors
    env = apply([Factor("timezone", "TZ")], sealed, ambient, home)
    assert "TZ" not in env  # the system zone, as the machine has it


def test_a_dotfile_too_large_to_copy_is_listed_as_untried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ambient, sealed, home = machine(tmp_path)
    (home / ".cache").mkdir()
    for i in range(5):
        (home / ".cache" / f"blob{i}").write_text("x")
    monkeypatch.setattr(factors_module, "MAX_FILES", 3)
    found = ambient_factors(ambient, sealed, home)
    assert found.untried == ("~/.cache",)
    assert all(f.name != ".cache" for f in found.factors)


def test_each_factor_goes_back_as_the_machine_has_it(tmp_path: Path) -> None:
    ambient, sealed, home = machine(tmp_path)
    chosen = [
        Factor("variable", "MYAPP_MODE"),
        Factor("home", ".gitconfig"),
        Factor("home", ".config/gh", directory=True),
        Factor("timezone", "TZ"),
        Factor("locale", "LANG"),
    ]
    env = apply(chosen, sealed, ambient, home)
    fresh = Path(sealed["HOME"])
    assert env == {
        "PATH": "/usr/bin",
        "HOME": str(fresh),
        "KEPT": "same",
        "TZ": "XYZ-3",
        "LC_ALL": "de_DE.UTF-8",
        "TERM": "dumb",
        "MYAPP_MODE": CANARY,
    }  # GIT_CONFIG_GLOBAL gone: git reads the copied ~/.gitconfig, as on the machine
    assert (fresh / ".gitconfig").read_text() == (home / ".gitconfig").read_text()
    assert (fresh / ".config" / "gh" / "hosts.yml").read_text() == "github.com: {}\n"
    assert sorted(p.name for p in fresh.iterdir()) == [".config", ".gitconfig"]


def test_a_git_config_pointed_elsewhere_by_the_machine_stays_pointed(tmp_path: Path) -> None:
    ambient, sealed, home = machine(tmp_path)
    ambient["GIT_CONFIG_GLOBAL"] = os.devnull
    env = apply([Factor("home", ".gitconfig")], sealed, ambient, home)
    assert env["GIT_CONFIG_GLOBAL"] == os.devnull


@pytest.mark.parametrize(
    ("factor", "label", "fix"),
    [
        (Factor("variable", "MYAPP_MODE"), "variable MYAPP_MODE", "in clear-env (or its prefix"),
        (Factor("home", ".gitconfig"), "~/.gitconfig", "hermetic.git_identity(name, email)"),
        (Factor("home", ".netrc"), "~/.netrc", "hermetic.home_file('.netrc', text)"),
        (Factor("home", ".config/gh", True), "~/.config/gh", "home_file('.config/gh/...', text)"),
        (Factor("timezone", "TZ"), "time zone (TZ)", "monkeypatch.setenv('TZ', ...)"),
        (Factor("locale", "LANG"), "locale (LANG, LANGUAGE, LC_*)", "setenv('LC_ALL', ...)"),
    ],
)
def test_each_factor_is_named_with_its_fix(factor: Factor, label: str, fix: str) -> None:
    assert factor.label == label
    assert fix in factor.fix


def named(tmp_path: Path, rc: str, env: Optional[dict[str, str]] = None) -> Optional[Factor]:
    """The factor that names ``~/replays/session.json`` when ``~/.replayrc`` holds ``rc``."""
    home = tmp_path / "home"
    (home / ".config" / "app").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "app" / "settings.toml").write_text("theme = 'dark'\n")
    (home / ".replayrc").write_text(rc)
    ambient = {"HOME": str(home), **(env or {})}
    found = ambient_factors(ambient, {"HOME": "/elsewhere"}, home).factors
    return naming(str(home / "replays" / "session.json"), found, ambient, home)


def test_the_dotfile_that_names_a_directory_above_the_write_is_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert named(tmp_path, f"replay_dir = {home / 'replays'}\n") == Factor("home", ".replayrc")
    assert named(tmp_path, "replay_dir = '~/replays/'\n") == Factor("home", ".replayrc")


def test_a_variable_that_names_the_place_is_found_by_name(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"MYAPP_DIRS": os.pathsep.join(["/opt/x", str(home / "replays")])}
    assert named(tmp_path, "colour = on\n", env) == Factor("variable", "MYAPP_DIRS")


def test_a_longer_path_that_starts_alike_is_not_the_place(tmp_path: Path) -> None:
    """``~/replays2`` is not above ``~/replays/session.json``.

    Ablation: replace `r"(?!/?[\\w.\\-])"` with `""` in `src/truegreen/core/factors.py`."""
    home = tmp_path / "home"
    assert named(tmp_path, f"dir = {home / 'replays'}\n")  # premise: the place is found
    assert named(tmp_path, f"replay_dir = {home / 'replays2'}\n") is None


def test_the_home_itself_names_no_place(tmp_path: Path) -> None:
    """Every dotfile that mentions the home would otherwise be the way there.

    Ablation: replace `p != home and p.is_relative_to(home)` with `p.is_relative_to(home)` in
    `src/truegreen/core/factors.py`."""
    home = tmp_path / "home"
    assert named(tmp_path, f"dir = {home / 'replays'}\n")  # premise: the place is found
    assert named(tmp_path, f"export PATH={home}:/usr/bin\n") is None
