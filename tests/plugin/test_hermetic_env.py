"""The hermetic environment, end to end: a real pytest in a subprocess, sealed by the plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import HAVE_GIT, ambient_home, snapshot_tree

requires_git = pytest.mark.skipif(not HAVE_GIT, reason="needs git (git --version does not run)")

LEAKY_TESTS = """
import subprocess
from pathlib import Path

import platformdirs


def test_writes_via_path_home():
    (Path.home() / "notes.txt").write_text("written by a test")


def test_writes_into_the_cache():
    cache = Path("~/.cache/myapp/state.json").expanduser()
    cache.parent.mkdir(parents=True)
    cache.write_text("{}")


def test_writes_into_platformdirs_state():
    state = Path(platformdirs.user_state_dir("myapp"))
    state.mkdir(parents=True)
    (state / "last-run").write_text("now")
    assert str(state).startswith(str(Path.home()))


def test_sees_no_git_identity():
    found = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True)
    assert found.stdout == ""
"""


@requires_git
@pytest.mark.parametrize("identity", [True, False], ids=["identity", "no-identity"])
def test_home_writes_and_git_reads_leave_the_ambient_home_byte_for_byte(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, identity: bool
) -> None:
    """Ablation: replace `("HOME", "{home}")` with `("UNUSED_HOME", "{home}")` in
    `src/truegreen/core/hermetic.py`: both runs see the developer's home. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "ambient-home", identity=identity)
    pytester.makepyfile(test_leaky=LEAKY_TESTS)
    before = snapshot_tree(home)

    sealed = pytester.runpytest_subprocess("-p", "no:cacheprovider")

    sealed.assert_outcomes(passed=4)
    assert snapshot_tree(home) == before
    # Premise: the same tests, unsealed, really do reach the ambient home.
    plain = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:truegreen")
    assert snapshot_tree(home) != before
    assert {"notes.txt", ".cache/myapp/state.json"} <= set(snapshot_tree(home))
    plain.assert_outcomes(passed=3 if identity else 4, failed=1 if identity else 0)


@requires_git
def test_git_sees_no_identity_from_any_ambient_source(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ablations: replace `("GIT_CONFIG_GLOBAL", devnull)` with `("UNUSED_A", devnull)` in
    `src/truegreen/core/hermetic.py`; replace `"GIT_CONFIG_COUNT"` with `"UNUSED_B"` in
    `src/truegreen/core/hermetic.py`. Restored."""
    dotfile = tmp_path / "dotfiles.gitconfig"
    dotfile.write_text("[user]\n\tname = Dotfiles Developer\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(dotfile))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.email")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "developer@example.invalid")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Env Developer")
    pytester.makepyfile(
        """
        import os
        import subprocess

        def config(key):
            out = subprocess.run(["git", "config", key], capture_output=True, text=True)
            return out.returncode, out.stdout + out.stderr

        def test_no_name():
            assert config("user.name") == (1, "")  # 1: git looked and found no such key

        def test_no_email():
            assert config("user.email") == (1, "")

        def test_no_author_variable():
            assert "GIT_AUTHOR_NAME" not in os.environ
        """
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=3)
    pytester.runpytest_subprocess("-p", "no:truegreen").assert_outcomes(failed=3)


def test_localtime_is_utc_whatever_the_ambient_zone(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ablation: replace `"TZ" in changed or ("TZ" in seal.machine) != ("TZ" in environ)` with
    `False` in `src/truegreen/plugin/session.py`: TZ says UTC, the process keeps Tokyo."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    pytester.makepyfile(
        """
        import os, time

        def test_epoch_is_midnight():
            assert os.environ["TZ"] == "UTC"
            assert time.strftime("%H:%M", time.localtime(0)) == "00:00"
        """
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
    # Premise: the ambient zone really is elsewhere.
    pytester.runpytest_subprocess("-p", "no:truegreen").assert_outcomes(failed=1)


def test_declared_prefix_is_unset_for_the_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ablation: replace `name.startswith(prefix)` with `False` in
    `src/truegreen/core/hermetic.py`. Restored."""
    monkeypatch.setenv("MYAPP_URL", "https://gitea.example.invalid")
    pytester.makepyprojecttoml('[tool.truegreen]\nclear-env-prefixes = ["MYAPP_"]\n')
    pytester.makepyfile(
        """
        import os

        def test_myapp_url_is_unset():
            assert "MYAPP_URL" not in os.environ
        """
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
    pytester.runpytest_subprocess("-p", "no:truegreen").assert_outcomes(failed=1)


CANARY = "tg-canary-7f3a9c"
CREDENTIALS = [
    "AWS_SECRET_ACCESS_KEY",
    "AZURE_CLIENT_SECRET",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITLAB_TOKEN",
    "NPM_TOKEN",
    "PYPI_TOKEN",
    "TWINE_PASSWORD",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "HF_TOKEN",
    "SSH_AUTH_SOCK",
    "NETRC",
    "MYAPP_API_KEY",
    "DB_PASSWORD",
]


def test_a_canary_in_every_credential_family_is_invisible(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ablation: replace `credential_family(name)` with `None` in
    `src/truegreen/core/hermetic.py`. Restored."""
    for name in CREDENTIALS:
        monkeypatch.setenv(name, f"{CANARY}-{name}")
    pytester.makepyfile(
        f"""
        import os

        import pytest

        def test_no_canary():
            leaked = [k for k, v in os.environ.items() if "{CANARY}" in v]
            assert leaked == []

        @pytest.mark.truegreen_ambient
        def test_premise_the_canaries_reached_the_process():
            assert len([v for v in os.environ.values() if "{CANARY}" in v]) == {len(CREDENTIALS)}
        """
    )
    result = pytester.runpytest_subprocess("-rA")
    result.assert_outcomes(passed=2)
    assert CANARY not in result.stdout.str()


def test_a_password_url_under_any_name_never_reaches_the_junit_xml(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failing assertion that shows ``os.environ`` cannot put a password in a URL into the
    report: the seal removed the variable, whatever its name.

    Ablation: replace `has_password_url(value)` with `False` in
    `src/truegreen/core/hermetic.py`."""
    monkeypatch.setenv("DATABASE_URL", f"postgres://app:{CANARY}@db.example.invalid/app")
    pytester.makepyfile(
        f"""
        import os

        import pytest

        def test_fails_showing_the_environment():
            assert dict(os.environ) == {{}}

        @pytest.mark.truegreen_ambient
        def test_premise_the_url_reached_the_process():
            assert "{CANARY}" in os.environ["DATABASE_URL"]
        """
    )
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest_subprocess("-vv", f"--junitxml={junit}")
    result.assert_outcomes(passed=1, failed=1)
    assert "dict(os.environ)" in junit.read_text()  # the failure's display is in the report
    assert CANARY not in junit.read_text()
    assert CANARY not in result.stdout.str()


def test_keep_env_passes_a_declared_credential_through(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", CANARY)
    pytester.makepyprojecttoml('[tool.truegreen]\nkeep-env = ["GITHUB_TOKEN"]\n')
    pytester.makepyfile(
        f"""
        import os

        def test_token_passes():
            assert os.environ["GITHUB_TOKEN"] == "{CANARY}"
        """
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=1)


def test_environment_changes_made_by_a_test_do_not_reach_the_next(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: delete `_restore(sealed._before)` in `src/truegreen/plugin/hermetic.py`.
    Restored."""
    pytester.makepyfile(
        """
        import os

        def test_a_sets_a_variable_by_hand():
            os.environ["LEFT_BEHIND"] = "1"
            os.environ["PATH"] = "/nowhere"

        def test_b_does_not_see_it():
            assert "LEFT_BEHIND" not in os.environ
            assert os.environ["PATH"] != "/nowhere"
        """
    )
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=2)


def test_every_test_gets_its_own_empty_home(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import os
        from pathlib import Path

        import pytest

        SEEN = []

        @pytest.mark.parametrize("n", range(3))
        def test_home(n):
            home = Path.home()
            assert list(home.iterdir()) == []
            assert os.environ["XDG_CONFIG_HOME"] == str(home / ".config")
            assert not (home / ".config").exists()
            (home / "mark").write_text(str(n))
            SEEN.append(home)
            assert len(set(SEEN)) == len(SEEN)
        """
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=3)


@requires_git
def test_hermetic_fixture_establishes_identity_and_dotfiles(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import os
        import subprocess
        from pathlib import Path

        def git_name():
            out = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True)
            return out.stdout.strip()

        def test_identity(hermetic):
            assert git_name() == ""
            gitconfig = hermetic.git_identity("Fixture Author", "fixture@example.invalid")
            assert gitconfig == Path.home() / ".gitconfig"
            assert git_name() == "Fixture Author"

        def test_identity_does_not_outlive_its_test():
            assert git_name() == ""

        def test_home_file(hermetic):
            rc = hermetic.home_file(".myapprc", "mode = test\\n")
            assert Path("~/.myapprc").expanduser().read_text() == "mode = test\\n"
            assert rc.parent == hermetic.home
        """
    )
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=3)


def test_set_env_points_declared_variables_into_the_test_directories(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml(
        '[tool.truegreen]\nset-env = { MYAPP_TRACE_DIR = "{tmp}/trace", MYAPP_RC = "{home}/rc" }\n'
    )
    pytester.makepyfile(
        """
        import os
        from pathlib import Path

        import pytest

        def test_redirected(tmp_path):
            assert os.environ["MYAPP_TRACE_DIR"] == str(tmp_path / "trace")
            assert os.environ["MYAPP_RC"] == str(Path.home() / "rc")

        @pytest.fixture
        def early():
            return os.environ["MYAPP_TRACE_DIR"]

        def test_fixture_before_tmp_path(early, tmp_path):
            assert early == str(tmp_path / "trace")

        def test_without_tmp_path(request):
            assert os.environ["MYAPP_TRACE_DIR"].endswith("trace")
            assert os.environ["MYAPP_TRACE_DIR"] == str(
                request.getfixturevalue("tmp_path") / "trace"
            )
        """
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=3)


def test_the_seal_sits_between_wider_fixtures_and_the_test_own_fixtures(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Wider-scoped fixtures see the ambient environment and keep their own changes to it;
    function-scoped fixtures are sealed from setup through teardown.

    Ablation (two edits, so prose): moving the restore out of the finalizer that
    ``HermeticPlugin._enter`` registers into a tryfirst ``pytest_runtest_teardown`` fails
    ``func_home``'s teardown check and leaves a file in the ambient home. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "ambient-home", identity=False)
    pytester.makepyfile(
        """
        import os
        from pathlib import Path

        import pytest

        AMBIENT = os.environ["HOME"]

        @pytest.fixture(scope="session")
        def session_env():
            os.environ["SET_BY_SESSION_FIXTURE"] = "1"
            yield Path.home()
            del os.environ["SET_BY_SESSION_FIXTURE"]

        @pytest.fixture
        def func_home():
            home = Path.home()
            yield home
            assert Path.home() == home, "the seal came off before this fixture's teardown"
            (home / "written-at-teardown").write_text("x")

        def test_one(session_env, func_home):
            assert str(session_env) == AMBIENT
            assert func_home != session_env
            assert os.environ["SET_BY_SESSION_FIXTURE"] == "1"

        def test_two(session_env):
            assert os.environ["SET_BY_SESSION_FIXTURE"] == "1"
        """
    )
    before = snapshot_tree(home)
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=2)
    assert snapshot_tree(home) == before


WIDER_FIXTURES_MID_MODULE = """
import json
import os

import pytest

AMBIENT = os.environ["HOME"]
SEEN = []


@pytest.fixture(scope="module")
def late_module_fixture():
    SEEN.append(("late setup", os.environ["HOME"]))
    yield
    SEEN.append(("late teardown", os.environ["HOME"]))


@pytest.fixture(scope="module", params=["p1", "p2"])
def parametrized_module_fixture(request):
    SEEN.append((f"{request.param} setup", os.environ["HOME"]))
    yield
    SEEN.append((f"{request.param} teardown", os.environ["HOME"]))


def test_first():
    SEEN.append(("test", os.environ["HOME"]))


def test_second_sets_up_a_module_fixture(late_module_fixture):
    SEEN.append(("test", os.environ["HOME"]))


def test_uses_the_parametrized_fixture(parametrized_module_fixture):
    SEEN.append(("test", os.environ["HOME"]))


def test_uses_it_again(parametrized_module_fixture):
    SEEN.append(("test", os.environ["HOME"]))


@pytest.fixture(scope="session", autouse=True)
def report():
    yield
    with open(os.environ["SEEN_FILE"], "w") as out:
        json.dump({"ambient": AMBIENT, "seen": SEEN}, out)
"""


def test_wider_fixtures_set_up_or_torn_down_between_two_tests_see_the_ambient_environment(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The seal may stay on from one test to the next of the same module, but never while a
    module fixture is set up late, or a parametrized one is torn down for its next param.

    Ablation A1: replace `all(getattr(scope, "value", scope) == "function" for scope in
    scopes.values())` with `True` in `src/truegreen/plugin/hermetic.py`.
    Ablation A2: replace `self._held is not None` with `False` in
    `src/truegreen/plugin/hermetic.py`."""
    seen_file = tmp_path / "seen.json"
    monkeypatch.setenv("SEEN_FILE", str(seen_file))
    pytester.makepyfile(test_wide=WIDER_FIXTURES_MID_MODULE)
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=6)
    recorded = json.loads(seen_file.read_text())
    ambient, seen = recorded["ambient"], recorded["seen"]
    tests = [home for what, home in seen if what == "test"]
    fixtures = [what for what, home in seen if what != "test"]
    assert len(tests) == 6  # premise: the tests were sealed
    assert ambient not in tests
    assert fixtures == [
        "late setup", "p1 setup", "p1 teardown", "p2 setup", "p2 teardown", "late teardown"
    ]  # fmt: skip
    assert {home for what, home in seen if what != "test"} == {ambient}


def test_reset_caches_run_before_every_test(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(
        '[tool.truegreen]\nreset-caches = ["appcache:CACHE.clear"]\n'
        '[tool.pytest.ini_options]\npythonpath = ["."]\n'
    )
    pytester.makepyfile(
        appcache="CACHE = {}\n",
        test_cache="""
        from appcache import CACHE

        def test_one():
            assert CACHE == {}
            CACHE["home"] = "resolved once"

        def test_two():
            assert CACHE == {}
        """,
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=2)


def test_ambient_marker_opts_one_test_out_and_the_summary_lists_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = ambient_home(monkeypatch, tmp_path / "ambient-home", identity=False)
    pytester.makepyfile(
        f"""
        from pathlib import Path

        import pytest

        @pytest.mark.truegreen_ambient
        def test_sees_the_real_home():
            assert Path.home() == Path({str(home)!r})

        def test_is_sealed():
            assert Path.home() != Path({str(home)!r})
        """
    )
    result = pytester.runpytest_subprocess("--strict-markers")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*truegreen*",
            "hermetic: process sealed before the first conftest; 1 test sealed, each with a "
            "fresh HOME*",
            "ran unsealed (@pytest.mark.truegreen_ambient): 1 test",
            "  test_ambient_marker_opts_one_test_out_and_the_summary_lists_it.py"
            "::test_sees_the_real_home",
        ]
    )


def test_header_says_what_is_sealed_and_how_to_turn_it_off(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess()
    result.stdout.fnmatch_lines(
        [
            "truegreen 0.1.0: hermetic environment on (the whole process from before the first "
            "conftest, fresh HOME and XDG per test, git config "
            "and identity, credentials, TZ=UTC, LANG=C.UTF-8, TERM=dumb); "
            "off: -p no:truegreen, or hermetic = false in [tool.truegreen]"
        ]
    )


@pytest.mark.parametrize(
    ("how", "args", "table", "env"),
    [
        ("-p no:truegreen", ["-p", "no:truegreen"], "", {}),
        ("enabled = false", [], "enabled = false\n", {}),
        ("hermetic = false", [], "hermetic = false\n", {}),
        ("TRUEGREEN_ENABLED=0", [], "", {"TRUEGREEN_ENABLED": "0"}),
        ("--truegreen-set", ["--truegreen-set", "enabled=false"], "", {}),
    ],
)
def test_each_way_of_turning_it_off_leaves_the_test_unsealed(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
    args: list[str],
    table: str,
    env: dict[str, str],
) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makepyprojecttoml("[tool.truegreen]\n" + table)
    pytester.makepyfile(
        "import os\n\ndef test_tz():\n    assert os.environ['TZ'] == 'Asia/Tokyo'\n"
    )
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=1)
    assert "hermetic environment on" not in result.stdout.str(), how


@pytest.mark.parametrize(
    ("table", "env", "args", "message"),
    [
        (
            "clear-evn = []\n",
            {},
            [],
            "expected a known key, found 'clear-evn' (did you mean 'clear-env'?)",
        ),
        ("timezone = 3\n", {}, [], "timezone: expected a non-empty string or false, found 3"),
        (
            "",
            {"TRUEGREEN_HERMETIC": "perhaps"},
            [],
            "environment variable TRUEGREEN_HERMETIC: expected one of 1/0",
        ),
        (
            "",
            {},
            ["--truegreen-set", "nope=1"],
            "--truegreen-set: expected a known key, found 'nope'",
        ),
    ],
)
def test_bad_configuration_is_one_line_and_pytests_usage_status(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    table: str,
    env: dict[str, str],
    args: list[str],
    message: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makepyprojecttoml("[tool.truegreen]\n" + table)
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1, errors
    assert errors[0].startswith("ERROR: truegreen: ")
    assert message in errors[0]
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_unreadable_toml_above_the_rootdir_is_one_line_and_pytests_usage_status(
    pytester: pytest.Pytester,
) -> None:
    """pytest parses the rootdir's own pyproject.toml first (a broken one is its usage error,
    exit 4); a broken one further up is only ours to read."""
    pytester.makepyprojecttoml("[tool.truegreen\n")
    project = pytester.mkdir("project")
    (project / "pytest.ini").write_text("[pytest]\n")
    (project / "test_ok.py").write_text("def test_ok():\n    pass\n")
    pytester.chdir()
    result = pytester.runpytest_subprocess("project")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.errlines if line.strip()] == [
        f"ERROR: truegreen: {pytester.path / 'pyproject.toml'}: expected valid TOML, "
        "found Expected ']' at the end of a table declaration (at end of document)"
    ]


def test_an_unimportable_reset_cache_stops_the_run_with_pytests_usage_status(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml('[tool.truegreen]\nreset-caches = ["nosuchmodule:clear"]\n')
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(
        [
            "*truegreen: *pyproject.toml: reset-caches: expected an importable callable, "
            "found 'nosuchmodule:clear' (ModuleNotFoundError: No module named 'nosuchmodule')*"
        ]
    )
    result.assert_outcomes()


def test_help_still_works_with_a_bad_configuration(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("[tool.truegreen]\nnope = 1\n")
    result = pytester.runpytest_subprocess("--help")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*--truegreen-set=KEY=VALUE*"])


def test_a_module_level_ambient_marker_opts_out_every_test_of_the_module(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = ambient_home(monkeypatch, tmp_path / "ambient-home", identity=False)
    pytester.makepyfile(
        f"""
        from pathlib import Path

        import pytest

        pytestmark = pytest.mark.truegreen_ambient

        def test_function():
            assert Path.home() == Path({str(home)!r})

        class TestClass:
            def test_method(self):
                assert Path.home() == Path({str(home)!r})
        """
    )
    result = pytester.runpytest_subprocess("--truegreen-tree-guard=off")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["ran unsealed (@pytest.mark.truegreen_ambient): 2 tests"])
