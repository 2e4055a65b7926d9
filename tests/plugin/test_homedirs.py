"""platformdirs redirected by patching its class, for an OS that ignores the environment."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest
from platformdirs.api import PlatformDirsABC

from truegreen.plugin.homedirs import OUTSIDE, PlatformdirsRedirect


def _known_folder(name: str) -> property:
    if name == "user_runtime_dir":
        return property(lambda self: f"/run/user/1000/{self.appname}")
    return property(lambda self: f"/real/home/AppData/Local/{self.appname}")


# Answers like Windows: from the shell's known folders, never from the environment. Built on
# the abstract base, which the session's own redirect (this suite runs sealed) leaves alone.
FakeWindows = type(
    "FakeWindows",
    (PlatformDirsABC,),
    {name: _known_folder(name) for name in PlatformDirsABC.__abstractmethods__},
)


@pytest.fixture
def redirect(monkeypatch: pytest.MonkeyPatch) -> PlatformdirsRedirect:
    monkeypatch.setattr(platformdirs, "PlatformDirs", FakeWindows)
    redirect = PlatformdirsRedirect("/real/home")
    assert redirect.install()
    yield redirect  # type: ignore[misc]
    redirect.uninstall()


def test_a_directory_under_the_real_home_moves_under_the_test_home(
    redirect: PlatformdirsRedirect,
) -> None:
    """Ablation: replace `self._wrap(attr)` with `attr` in `src/truegreen/plugin/homedirs.py`.
    Restored."""
    assert platformdirs.user_data_dir("app") == "/real/home/AppData/Local/app"  # premise
    redirect.current = "/sealed/home"
    assert platformdirs.user_data_dir("app") == "/sealed/home/AppData/Local/app"
    assert platformdirs.user_data_path("app") == Path("/sealed/home/AppData/Local/app")


def test_a_directory_outside_the_real_home_moves_under_the_test_home_too(
    redirect: PlatformdirsRedirect,
) -> None:
    redirect.current = "/sealed/home"
    assert platformdirs.user_runtime_dir("app") == f"/sealed/home/{OUTSIDE}/run/user/1000/app"


def test_outside_a_sealed_test_the_answers_are_untouched_and_uninstall_restores(
    redirect: PlatformdirsRedirect,
) -> None:
    redirect.current = None
    assert platformdirs.user_data_dir("app") == "/real/home/AppData/Local/app"
    redirect.uninstall()
    redirect.current = "/sealed/home"
    assert platformdirs.user_data_dir("app") == "/real/home/AppData/Local/app"
    assert "user_data_dir" in FakeWindows.__dict__
