"""Failure hints: a failing sealed test's report says what the seal took away, and the fix."""

from __future__ import annotations

import pytest

from tests.helpers import HAVE_GIT

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")
requires_git = pytest.mark.skipif(not HAVE_GIT, reason="needs git (git --version does not run)")

RC_FIXTURE = """
from pathlib import Path

import pytest

@pytest.fixture
def settings():
    return (Path.home() / ".myapprc").read_text()

def test_loads_settings(settings):
    assert "mode" in settings
"""

# user.useConfigOnly: git may not guess an identity from the host name, on any machine.
COMMITS = """
import subprocess
import sys

COMMIT = ["git", "-c", "user.useConfigOnly=true", "commit", "-q", "--allow-empty", "-m", "x"]

def test_commits(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(COMMIT, cwd=tmp_path, check=True, capture_output=True)

def test_commits_from_a_python_child(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    code = f"import subprocess; subprocess.run({COMMIT!r}, check=True)"
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True)
"""

ESTABLISHED = """
import os
import subprocess
from pathlib import Path

def commit(repo):
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "x"],
                   check=True, capture_output=True)

def test_establishes_all_it_needs(hermetic, monkeypatch, tmp_path):
    hermetic.home_file(".myapprc", "mode = test\\n")
    assert (Path.home() / ".myapprc").read_text() == "mode = test\\n"
    hermetic.git_identity()
    commit(tmp_path)
    if os.environ.get("MYAPP_MODE") is None:  # cleared by the seal: it sets its own
        monkeypatch.setenv("MYAPP_MODE", "test")
    assert os.environ["MYAPP_MODE"] == "test"
    assert os.environ.get("NOT_SET_ANYWHERE") is None
    assert False, "deliberately, after ~/.myapprc and everything else it needed worked"

def test_names_itself_in_the_repository(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for key, value in (("user.name", "Repo Author"), ("user.email", "repo@example.invalid")):
        subprocess.run(["git", "-C", str(tmp_path), "config", key, value], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "--allow-empty", "-m", "x"],
                   check=True, capture_output=True)
    assert False, "deliberately, after the commit worked"
"""


def test_a_fixture_reading_a_missing_rc_file_gets_the_home_file_hint(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(RC_FIXTURE)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "--junitxml=report.xml")
    result.assert_outcomes(errors=1)
    hint = (
        "truegreen hint: it read ~/.myapprc, absent from its sealed home (every test starts "
        'with an empty one); establish it in the test: hermetic.home_file(".myapprc", ...)'
    )
    result.stdout.fnmatch_lines(["*FileNotFoundError*", "*- truegreen hint -*", hint])
    assert hint in (pytester.path / "report.xml").read_text(encoding="utf-8")


@requires_git
def test_a_commit_with_no_identity_gets_the_git_identity_hint(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(COMMITS)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=2)
    hint = (
        "truegreen hint: it ran git commit with no git identity (the seal configures none); "
        "give it one in the test: hermetic.git_identity()"
    )
    result.stdout.fnmatch_lines(["*_ test_commits _*", "*CalledProcessError*", hint])
    result.stdout.fnmatch_lines(["*_ test_commits_from_a_python_child _*", hint])
    result.stdout.fnmatch_lines(["fatal: no email was given and auto-detection is disabled"])
    assert result.stdout.str().count(hint) == 2


def test_a_read_of_a_cleared_declared_variable_gets_the_declare_hint(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MYAPP_MODE", "fast")
    monkeypatch.setenv("OTHER_LEVEL", "3")
    pytester.makepyprojecttoml(
        '[tool.truegreen]\nclear-env = ["MYAPP_MODE"]\nclear-env-prefixes = ["OTHER_"]\n'
    )
    pytester.makepyfile(
        """
        import os

        def test_reads_its_mode():
            assert os.getenv("MYAPP_MODE") == "fast"

        def test_reads_its_level():
            assert "OTHER_LEVEL" in os.environ
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "truegreen hint: it read MYAPP_MODE, which the seal cleared (clear-env); declare it "
            "with set-env or keep-env in [tool.truegreen], or set it in the test: "
            'monkeypatch.setenv("MYAPP_MODE", ...)',
            "truegreen hint: it read OTHER_LEVEL, which the seal cleared (clear-env-prefixes "
            "OTHER_); declare it with set-env or keep-env in [tool.truegreen], or set it in the "
            'test: monkeypatch.setenv("OTHER_LEVEL", ...)',
        ]
    )


def test_a_passing_test_that_reached_for_the_same_shows_no_hint(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ablation: replace `not report.failed` with `False` in `src/truegreen/plugin/hints.py`."""
    pytester.makepyfile(
        """
        import os
        import shutil
        from pathlib import Path

        def read_rc():
            try:
                return (Path.home() / ".myapprc").read_text()
            except FileNotFoundError:
                return None

        def test_falls_back_without_rc():
            assert read_rc() is None
            assert os.environ["TZ"] == "UTC"
            assert shutil.get_terminal_size().columns == 80

        def test_fails_without_rc():
            assert (Path.home() / ".myapprc").read_text()
        """
    )
    monkeypatch.setenv("COLUMNS", "40")  # a developer's terminal, which the seal clears
    # -rP prints the passing test's report sections too, where a hint would show.
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "-rP")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*_ test_fails_without_rc _*", "truegreen hint: it read ~/.myapprc*"]
    )
    assert result.stdout.str().count("truegreen hint: ") == 1


# A tool with three ways to read its rc file, and tests that fail after each; a doctest that
# fails (doctest starts pdb, which reads ~/.pdbrc if there is one).
TOOLRC = """
import pdb
from pathlib import Path

class ToolError(Exception):
    pass

def load_strict():
    return (Path.home() / ".toolrc").read_text()

def load_checked():
    try:
        return (Path.home() / ".toolrc").read_text()
    except FileNotFoundError:
        raise ToolError("no configuration: create ~/.toolrc") from None

def load_optional():
    try:
        return (Path.home() / ".toolrc").read_text()
    except FileNotFoundError:
        return "mode = default"

def add(a, b):
    \"\"\"
    >>> add(1, 2)
    4
    \"\"\"
    return a + b

def test_fails_on_the_missing_file():
    assert "mode" in load_strict()

def test_fails_with_an_error_that_names_it():
    assert "mode" in load_checked()

def test_fails_after_an_optional_probe():
    assert not (Path.home() / ".toolrc").exists()
    assert load_optional() == "mode = default"
    assert 1 + 1 == 3

def test_fails_after_pdb_probed_its_rc():
    assert not (Path.home() / ".pdbrc").exists()
    pdb.Pdb()
    assert 1 + 1 == 3
"""


def test_a_missing_file_is_hinted_only_when_its_absence_reached_the_failure(
    pytester: pytest.Pytester,
) -> None:
    """A read that raised, or an error that names the file, gets the hint; an optional probe
    (a fallback to defaults, pdb's ~/.pdbrc on a failing doctest) does not.

    Ablation: delete `missing = named_in(missing, failure_text(report.longrepr), os.sep)` in
    `src/truegreen/plugin/hints.py`."""
    pytester.makepyfile(test_tool=TOOLRC)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD, "--doctest-modules")
    result.assert_outcomes(failed=5)
    hint = (
        "truegreen hint: it read ~/.toolrc, absent from its sealed home (every test starts "
        'with an empty one); establish it in the test: hermetic.home_file(".toolrc", ...)'
    )
    result.stdout.fnmatch_lines(
        [
            "*_ [[]doctest[]] test_tool.add _*",
            "*DocTestFailure",
            "*_ test_fails_on_the_missing_file _*",
            "E   *FileNotFoundError: *.toolrc'",
            hint,
            "*_ test_fails_with_an_error_that_names_it _*",
            "E   *ToolError: no configuration: create ~/.toolrc",
            hint,
            "*_ test_fails_after_an_optional_probe _*",
            "*_ test_fails_after_pdb_probed_its_rc _*",
        ]
    )
    assert result.stdout.str().count("truegreen hint: ") == 2


@requires_git
def test_a_failing_test_that_established_what_it_needed_shows_no_hint(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rc file, the identity (given by the hermetic fixture, or in the repository) and the
    variable were there when the test reached for them; it failed for its own reasons.

    Ablation: replace `not os.path.exists(path)` with `True` in
    `src/truegreen/plugin/hints.py`.

    Ablation: replace `env.get("GIT_CONFIG_GLOBAL") != devnull` with `False` in
    `src/truegreen/guards/identity.py`.

    Ablation: replace `names_a_user(handle.read())` with `False` in
    `src/truegreen/guards/identity.py`.

    Ablation: replace `key in watch.names` with `True` in `src/truegreen/plugin/ambient.py`.

    Ablation: replace `name in os.environ` with `False` in `src/truegreen/plugin/hints.py`.
    """
    monkeypatch.setenv("MYAPP_MODE", "fast")
    pytester.makepyprojecttoml('[tool.truegreen]\nclear-env = ["MYAPP_MODE"]\n')
    pytester.makepyfile(ESTABLISHED)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "E       AssertionError: deliberately, after ~/.myapprc and everything else it "
            "needed worked",
            "E       AssertionError: deliberately, after the commit worked",
        ]
    )
    assert "truegreen hint" not in result.stdout.str()


SEALED_VALUES = """
import os
import shutil

def test_reads_the_zone():
    assert os.environ.get("TZ") == "Europe/Paris"

def test_reads_the_locale_and_the_terminal():
    assert (os.getenv("LANG"), os.environ["TERM"]) == ("en_US.UTF-8", "xterm-256color")

def test_reads_the_width():
    assert shutil.get_terminal_size().columns == 40

def test_reads_no_color():
    assert "NO_COLOR" in os.environ
"""


def developer_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the developer's shell sets, and the seal clears, for the inner pytest to find."""
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("NO_COLOR", "1")


def test_a_failing_test_that_read_a_value_the_seal_fixed_is_told_so(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ablation: replace `name in watch.hits` with `False` in `src/truegreen/plugin/hints.py`:
    no test is told of TZ, LANG or TERM."""
    developer_terminal(monkeypatch)
    pytester.makepyfile(SEALED_VALUES)
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        [
            "*_ test_reads_the_zone _*",
            "truegreen hint: the seal set TZ=UTC; this test read the time zone; if it expects "
            'another value, set it in the test: monkeypatch.setenv("TZ", ...) then time.tzset()',
            "*_ test_reads_the_locale_and_the_terminal _*",
            "truegreen hint: the seal set LANG=C.UTF-8, TERM=dumb; this test read the locale and "
            "the terminal type; if it expects other values, set them in the test: "
            'monkeypatch.setenv("LANG", ...)',
            "*_ test_reads_the_width _*",
            "truegreen hint: the seal cleared COLUMNS (set on this machine); this test read the "
            'terminal size; if it expects a value, set it in the test: monkeypatch.setenv("COLUMNS"'
            ", ...)",
            "*_ test_reads_no_color _*",
            "truegreen hint: the seal cleared NO_COLOR (set on this machine); this test read the "
            'colour settings; if it expects a value, set it in the test: monkeypatch.setenv("'
            'NO_COLOR", ...)',
        ]
    )


def test_a_failing_test_that_did_not_rely_on_a_sealed_value_is_not_told(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Setting its own zone, building an argparse parser (which asks for the terminal size of
    every argument, and gettext for the locale of every message), copying the environment for a
    child: none of it is relying on what the seal set or cleared.

    Ablation: replace `os.environ.get(name) == value` with `True` in
    `src/truegreen/plugin/hints.py`.

    Ablation: replace `name in watch.hits` with `True` in `src/truegreen/plugin/hints.py`.

    Ablation: replace `"argparse"` with `"nothing"` in `src/truegreen/plugin/hints.py`.

    Ablation: replace `"gettext"` with `"nothing"` in `src/truegreen/plugin/hints.py`.

    Ablation: replace `"shutil"` with `"nothing"` in `src/truegreen/plugin/hints.py`.

    Ablation: replace `key in names and not copied` with `key in names` in
    `src/truegreen/plugin/ambient.py`.
    """
    developer_terminal(monkeypatch)
    pytester.makepyfile(
        """
        import argparse
        import gettext
        import os

        def test_sets_its_own_zone(monkeypatch):
            monkeypatch.setenv("TZ", "Europe/Paris")
            assert os.environ["TZ"] == "Europe/Paris"
            assert 1 + 1 == 3

        def test_builds_a_parser():
            parser = argparse.ArgumentParser()
            parser.add_argument("--n", type=int)
            assert parser.parse_args(["--n", "1"]).n == 1
            assert gettext.gettext("hello") == "hello"
            assert 1 + 1 == 3

        def test_copies_the_environment():
            env = dict(os.environ)
            assert (env["TZ"], env["LANG"], env["TERM"]) == ("UTC", "C.UTF-8", "dumb")
            assert "COLUMNS" not in env
            assert 1 + 1 == 3
        """
    )
    result = pytester.runpytest_subprocess(*NO_TREE_GUARD)
    result.assert_outcomes(failed=3)
    assert result.stdout.str().count("E       assert (1 + 1) == 3") == 3
    assert "truegreen hint" not in result.stdout.str()
