"""platformdirs redirected by patching its class, for an OS that ignores the environment."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import platformdirs
import pytest
from platformdirs.api import PlatformDirsABC

from truegreen.plugin.homedirs import OUTSIDE, PlatformdirsRedirect


def _known_folder(name: str) -> property:
    if name == "user_runtime_dir":
        return property(lambda self: "/run/user/1000" + (f"/{self.appname}" * bool(self.appname)))
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


def test_the_real_runtime_directory_moves_under_the_test_home_too(
    redirect: PlatformdirsRedirect,
) -> None:
    redirect.real_runtime = ("/run/user/1000",)
    redirect.current = "/sealed/home"
    assert platformdirs.user_runtime_dir("app") == f"/sealed/home/{OUTSIDE}/run/user/1000/app"


def test_a_directory_the_test_pointed_elsewhere_stays_where_the_test_put_it(
    redirect: PlatformdirsRedirect,
) -> None:
    """platformdirs' own suite and many apps' set `XDG_DATA_HOME` to `tmp_path`, or mock the
    uid, and assert the answer: only the real home and the real runtime directory move.

    Ablation: replace `not any(_within(folded, d) for d in self.real_runtime)` with `False`
    in `src/truegreen/plugin/homedirs.py`."""
    redirect.real_runtime = ("/run/user/1000",)
    redirect.current = "/sealed/home"
    moved = f"/sealed/home/{OUTSIDE}/run/user/1000/app"
    assert redirect.rebase("/run/user/1000/app", "/sealed/home") == moved  # premise
    assert redirect.rebase("/tmp/pytest-of-me/test0/xdg/app", "/sealed/home") == (
        "/tmp/pytest-of-me/test0/xdg/app"
    )
    assert redirect.rebase(Path("/run/user/1234"), "/sealed/home") == Path("/run/user/1234")


def test_a_sealed_test_that_points_xdg_at_its_tmp_path_gets_that_path(
    pytester: pytest.Pytester,
) -> None:
    """pytester makes its own directory the inner run's home, so `tmp_path` lies under the
    real home there, and more specifically under the basetemp.

    Ablation: replace `bool(self.basetemp) and _within(folded, self.basetemp)` with `False` in
    `src/truegreen/plugin/homedirs.py`."""
    pytester.makepyfile(
        """
        from pathlib import Path

        import platformdirs

        def test_data_follows_xdg(monkeypatch, tmp_path):
            assert platformdirs.user_data_path("app").is_relative_to(Path.home())  # premise
            monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
            assert platformdirs.user_data_path("app", ensure_exists=True) == tmp_path / "app"
            assert (tmp_path / "app").is_dir()
        """
    )
    result = pytester.runpytest_subprocess("--truegreen-tree-guard=off")
    result.assert_outcomes(passed=1)


def test_outside_a_sealed_test_the_answers_are_untouched_and_uninstall_restores(
    redirect: PlatformdirsRedirect,
) -> None:
    redirect.current = None
    assert platformdirs.user_data_dir("app") == "/real/home/AppData/Local/app"
    redirect.uninstall()
    redirect.current = "/sealed/home"
    assert platformdirs.user_data_dir("app") == "/real/home/AppData/Local/app"
    assert "user_data_dir" in FakeWindows.__dict__


def test_platformdirs_imported_after_the_redirect_is_patched_as_it_is_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The redirect does not import platformdirs itself: a suite that never imports it pays
    nothing, and one that does finds it patched from its first use."""
    for name in [n for n in sys.modules if n == "platformdirs" or n.startswith("platformdirs.")]:
        monkeypatch.delitem(sys.modules, name)
    redirect = PlatformdirsRedirect("/real/home")
    assert redirect.install()
    try:
        assert "platformdirs" not in sys.modules  # premise: installing did not import it
        fresh = importlib.import_module("platformdirs")
        assert fresh is not platformdirs
        assert redirect._cls is fresh.PlatformDirs
    finally:
        redirect.uninstall()
    assert not any(type(f).__name__ == "_OnImport" for f in sys.meta_path)
