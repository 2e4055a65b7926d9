"""The process seal: plain ``pytest`` runs sealed from before the first conftest.

Each test starts a real pytest in a subprocess on a developer's machine (a home with a git
identity, gpg signing and colour; ``TZ``, ``NO_COLOR``, ``COLUMNS`` and a token set) and
checks what import-time code, a conftest and wider-scoped fixtures see.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import HAVE_GIT, ambient_home, snapshot_tree

NO_TREE_GUARD = ("--truegreen-tree-guard=off",)
requires_git = pytest.mark.skipif(not HAVE_GIT, reason="needs git (git --version does not run)")
requires_tzset = pytest.mark.platforms("posix")  # time.tzset

# Module-level state of the kinds real suites keep: an environment copied for later
# subprocesses, a directory computed from ~, the local zone's offset at import.
IMPORT_TIME = """
import json
import os
import subprocess
import time

SUBPROCESS_ENV = os.environ.copy()
CACHE_DIR = os.path.expanduser("~/.cache/mytool")
EPOCH_HOUR = time.localtime(0).tm_hour


def git_name(env):
    done = subprocess.run(["git", "config", "user.name"], env=env, capture_output=True, text=True)
    return done.stdout.strip()


def test_report(tmp_path_factory):
    seen = {
        "import_home": SUBPROCESS_ENV.get("HOME"),
        "cache_dir": CACHE_DIR,
        "epoch_hour": EPOCH_HOUR,
        "git_name": git_name(SUBPROCESS_ENV),
        "token": "GITHUB_TOKEN" in SUBPROCESS_ENV,
        "no_color": SUBPROCESS_ENV.get("NO_COLOR"),
        "columns": SUBPROCESS_ENV.get("COLUMNS"),
        "tz": SUBPROCESS_ENV.get("TZ"),
        "conftest_home": CONFTEST_HOME,
        "session_git_name": pytest_session_name,
    }
    with open(os.environ["REPORT_TO"], "w") as handle:
        json.dump(seen, handle)
"""

CONFTEST = """
import os
import subprocess

import pytest

CONFTEST_HOME = os.path.expanduser("~")


@pytest.fixture(scope="session", autouse=True)
def template_repository():
    done = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True)
    import builtins
    builtins.pytest_session_name = done.stdout.strip()
    builtins.CONFTEST_HOME = CONFTEST_HOME
"""


def developer_machine(monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    """A developer's machine for the inner pytest: its home, zone, colour, width and a token."""
    home = ambient_home(monkeypatch, root / "home", identity=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Ambient Developer\n\temail = dev@example.invalid\n"
        "[commit]\n\tgpgsign = true\n[init]\n\tdefaultBranch = trunk\n[color]\n\tui = always\n"
    )
    monkeypatch.setenv("TZ", "XYZ-3")  # three hours east of UTC, known to every C library
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("GITHUB_TOKEN", "canary-token-value")
    return home


@requires_git
@requires_tzset
def test_import_time_code_conftests_and_session_fixtures_see_the_sealed_process(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ablation: replace `settings.enabled and settings.hermetic` with `False` in
    `src/truegreen/plugin/session.py`."""
    home = developer_machine(monkeypatch, tmp_path)
    report = tmp_path / "report.json"
    monkeypatch.setenv("REPORT_TO", str(report))
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(IMPORT_TIME)
    plain = pytester.runpytest_subprocess("-p", "no:truegreen")
    plain.assert_outcomes(passed=1)
    machine = json.loads(report.read_text())
    # premise: without the plugin, every one of them is the developer's
    assert machine["import_home"] == str(home)
    assert machine["git_name"] == machine["session_git_name"] == "Ambient Developer"
    assert machine["epoch_hour"] == 3
    assert machine["token"]
    assert machine["no_color"] == "1"
    assert machine["conftest_home"] == str(home)

    sealed_run = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    sealed_run.assert_outcomes(passed=1)
    sealed = json.loads(report.read_text())
    assert sealed["import_home"] != str(home)
    assert not sealed["cache_dir"].startswith(str(home))
    assert sealed["conftest_home"] == sealed["import_home"]
    assert sealed["git_name"] == sealed["session_git_name"] == ""
    assert sealed["epoch_hour"] == 0
    assert sealed["tz"] == "UTC"
    assert not sealed["token"]
    assert sealed["no_color"] is None
    assert sealed["columns"] is None


WIDER_FIXTURES = """
import os
from pathlib import Path

import pytest

SEEN = {}


@pytest.fixture(scope="session", autouse=True)
def suite_environment(tmp_path_factory):
    saved = dict(os.environ)
    SEEN.update(mode=os.environ.get("MYLIB_MODE"), lang=os.environ.get("LANG"))
    os.environ.pop("TZ", None)
    os.environ["MYLIB_MODE"] = "strict"
    os.environ["LANG"] = "de_DE.UTF-8"
    os.environ["HOME"] = str(tmp_path_factory.mktemp("suite-home"))
    yield os.environ["HOME"]
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(scope="module")
def module_level():
    os.environ["MYLIB_LEVEL"] = "debug"
    yield
    del os.environ["MYLIB_LEVEL"]


def test_the_seal_clears_and_sets_these_names():
    assert SEEN == {"mode": None, "lang": "C.UTF-8"}


def test_keeps_the_suites_zone():
    assert "TZ" not in os.environ


def test_keeps_the_suites_variables():
    assert os.environ["MYLIB_MODE"] == "strict"
    assert os.environ["LANG"] == "de_DE.UTF-8"


def test_keeps_a_module_fixtures_variable(module_level):
    assert os.environ["MYLIB_LEVEL"] == "debug"


def test_keeps_the_suites_home(suite_environment, hermetic):
    assert str(Path.home()) == suite_environment
    assert hermetic.home == Path(suite_environment)


def test_still_gets_a_fresh_xdg_cache(suite_environment):
    assert not os.environ["XDG_CACHE_HOME"].startswith(suite_environment)
"""


def test_a_wider_fixtures_change_is_the_suites_decision(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session fixture that removes TZ, sets a variable the configuration clears, sets LANG
    or points HOME elsewhere keeps that for the tests under it, as does a module fixture: the
    per-test layer does not put the seal's values back. The first inner test is the premise:
    the seal clears the shell's MYLIB_MODE and sets LANG.

    Ablation: replace `was == raw_value or (self.base is not None and was != self.base.get(raw))`
    with `was == raw_value` in `src/truegreen/plugin/hermetic.py`.

    Ablation: replace `base.get(raw) == before[raw]` with `True` in
    `src/truegreen/plugin/hermetic.py`: the suite's MYLIB_MODE and MYLIB_LEVEL are removed."""
    monkeypatch.setenv("MYLIB_MODE", "from-the-shell")
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    pytester.makepyprojecttoml('[tool.truegreen]\nclear-env = ["MYLIB_MODE", "MYLIB_LEVEL"]\n')
    pytester.makepyfile(WIDER_FIXTURES)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-p", "no:randomly")
    result.assert_outcomes(passed=6)


def test_a_variable_a_conftest_sets_is_kept_and_truegreen_settings_are_not_handed_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process keeps truegreen's own settings (every later reader, an xdist worker
    included, sees the same configuration); a test does not see them.

    Ablation: replace `not n.startswith(OWN_PREFIXES)` with `True` in
    `src/truegreen/plugin/session.py`: the conftest no longer finds the setting.

    Ablation: replace `base.get(raw) == before[raw]` with `True` in
    `src/truegreen/plugin/hermetic.py`: the conftest's API_TOKEN is removed for the test."""
    monkeypatch.setenv("TRUEGREEN_TIMEZONE", "XYZ-5")
    pytester.makeconftest(
        """
        import os
        SEEN = os.environ.get("TRUEGREEN_TIMEZONE")
        os.environ["API_TOKEN"] = "fake-token-for-tests"
        """
    )
    pytester.makepyfile(
        """
        import os
        import conftest

        def test_sees():
            assert conftest.SEEN == "XYZ-5"
            assert os.environ["TZ"] == "XYZ-5"
            assert os.environ["API_TOKEN"] == "fake-token-for-tests"
            assert "TRUEGREEN_TIMEZONE" not in os.environ
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(passed=1)


def test_what_a_plugin_sets_as_pytest_starts_is_kept_as_pytest_env_s_values_are(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytest-env sets the `env` of the pytest configuration in a tryfirst
    pytest_load_initial_conftests: a fake AWS key for moto, the app's test mode. The seal goes
    on before it (a hook wrapper), so those values are the suite's and stay, even for names the
    seal removes from the machine (credentials, declared prefixes).

    Ablation, by hand (ablation cannot reach `src/truegreen/plugin/__init__.py`, imported before
    any mutant): with `pytest_load_initial_conftests` a plain hook instead of a wrapper, the
    seal runs after the pytest-env-alike plugin and the test fails. Restored."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "the-developers-real-key")
    monkeypatch.setenv("MYAPP_MODE", "the-developers-shell")
    pytester.makepyprojecttoml('[tool.truegreen]\nclear-env-prefixes = ["MYAPP_"]\n')
    pytester.makepyfile(
        pytest_env_alike="""
        import os
        import pytest

        @pytest.hookimpl(tryfirst=True)
        def pytest_load_initial_conftests(args, early_config, parser):
            os.environ["AWS_ACCESS_KEY_ID"] = "testing"
            os.environ["MYAPP_MODE"] = "test"
        """,
        test_env="""
        import os

        def test_sees_the_suites_values():
            assert os.environ.get("AWS_ACCESS_KEY_ID") == "testing"
            assert os.environ.get("MYAPP_MODE") == "test"
        """,
    )
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    premise = pytester.runpytest_subprocess(*NO_TREE_GUARD)  # without it, both are removed
    premise.assert_outcomes(failed=1)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-p", "pytest_env_alike")
    result.assert_outcomes(passed=1)


def test_hermetic_false_turns_the_process_seal_off(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ablation: replace `settings.enabled and settings.hermetic` with `settings.enabled` in
    `src/truegreen/plugin/session.py`: the import-time home is the session's."""
    home = developer_machine(monkeypatch, tmp_path)
    pytester.makepyprojecttoml("[tool.truegreen]\nhermetic = false\n")
    pytester.makepyfile(
        f"""
        import os
        HOME = os.path.expanduser("~")

        def test_sees_the_machine():
            assert HOME == {str(home)!r}
            assert os.environ["TZ"] == "XYZ-3"
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(passed=1)
    assert "process sealed" not in result.stdout.str()


def test_the_session_home_is_removed_and_the_real_home_left_as_it_was(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = developer_machine(monkeypatch, tmp_path)
    before = snapshot_tree(home)
    record = tmp_path / "session-home.txt"
    pytester.makeconftest(
        f"""
        import os
        from pathlib import Path
        Path({str(record)!r}).write_text(os.path.expanduser("~"))
        Path(os.path.expanduser("~/.toolrc")).write_text("written at import")
        """
    )
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(passed=1)
    session_home = Path(record.read_text())
    assert session_home != home
    assert not session_home.exists()
    assert snapshot_tree(home) == before


def test_an_inline_run_gives_the_process_its_environment_back(pytester: pytest.Pytester) -> None:
    """Ablation: replace `self.started.items()` with `()` in
    `src/truegreen/plugin/session.py`."""
    pytester.makepyfile("def test_ok():\n    pass\n")
    before = dict(os.environ)
    assert os.environ.get("TZ") != "XYZ-7"  # premise: the inner run changes it
    pytester.makepyprojecttoml('[tool.truegreen]\ntimezone = "XYZ-7"\n')
    result = pytester.inline_run(*NO_TREE_GUARD, "-p", "no:cacheprovider")
    result.assertoutcome(passed=1)
    assert dict(os.environ) == before


def test_a_test_marked_ambient_gets_the_machines_environment(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = developer_machine(monkeypatch, tmp_path)
    pytester.makepyfile(
        f"""
        import os
        import pytest

        @pytest.mark.truegreen_ambient
        def test_unsealed():
            assert os.path.expanduser("~") == {str(home)!r}
            assert os.environ["TZ"] == "XYZ-3" and os.environ["GITHUB_TOKEN"]

        def test_sealed_after_it():
            assert os.environ["TZ"] == "UTC" and "GITHUB_TOKEN" not in os.environ
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-p", "no:randomly")
    result.assert_outcomes(passed=2)


def test_under_xdist_workers_protect_the_real_home_and_run_ambient_tests_on_the_machine(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A worker starts in the controller's sealed environment; the controller tells it the
    machine's home and environment.

    Ablation: replace `workerinput.get(WORKER_INPUT)` with `None` in
    `src/truegreen/plugin/session.py`."""
    pytest.importorskip("xdist")
    home = developer_machine(monkeypatch, tmp_path)
    pytester.makepyfile(
        f"""
        import os
        import pytest

        @pytest.mark.truegreen_ambient
        def test_unsealed():
            assert os.path.expanduser("~") == {str(home)!r}
            assert os.environ["GITHUB_TOKEN"] == "canary-token-value"

        def test_writes_into_the_real_home():
            with open({str(home / "litter.txt")!r}, "w") as handle:
                handle.write("x")
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_writes_into_the_real_home*"])
    assert "test_unsealed" not in "".join(
        line for line in result.stdout.lines if line.startswith("FAILED")
    )
