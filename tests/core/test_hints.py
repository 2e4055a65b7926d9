"""The lines of a failure hint, from what a sealed test reached for."""

from __future__ import annotations

from truegreen.core.hints import Reached, hint_lines, home_relative, named_in, topic


def test_paths_under_the_home_become_tilde_paths_and_others_are_left_out() -> None:
    paths = ["/b/home/1/.myapprc", "/b/home/1/.cache/app/index.json", "/etc/app.conf"]
    assert home_relative(paths, "/b/home/1") == ["~/.cache/app/index.json", "~/.myapprc"]


def test_windows_separators_become_slashes() -> None:
    actual = home_relative(["C:\\h\\1\\AppData\\app.ini"], "C:\\h\\1\\", sep="\\")
    assert actual == ["~/AppData/app.ini"]


def test_nothing_reached_for_gives_no_lines() -> None:
    assert hint_lines(Reached()) == []


def test_each_kind_gives_one_line_with_its_fix() -> None:
    reached = Reached(
        missing=("~/.myapprc",),
        git=("commit", "commit", "tag"),
        cleared=(("MYAPP_MODE", "declared (clear-env)"),),
    )
    assert hint_lines(reached) == [
        "truegreen hint: it read ~/.myapprc, absent from its sealed home (every test starts "
        'with an empty one); establish it in the test: hermetic.home_file(".myapprc", ...)',
        "truegreen hint: it ran git commit, git tag with no git identity (the seal configures "
        "none); give it one in the test: hermetic.git_identity()",
        "truegreen hint: it read MYAPP_MODE, which the seal cleared (clear-env); declare it "
        "with set-env or keep-env in [tool.truegreen], or set it in the test: "
        'monkeypatch.setenv("MYAPP_MODE", ...)',
    ]


def test_long_lists_are_cut_after_three_names() -> None:
    missing = ("~/.a", "~/.b", "~/.c", "~/.d", "~/.e")
    (line,) = hint_lines(Reached(missing=missing))
    assert line.startswith("truegreen hint: it read ~/.a, ~/.b, ~/.c and 2 more, absent")


def test_the_declaring_key_of_a_prefix_is_named() -> None:
    cleared = (("APP_A", "declared (clear-env-prefixes APP_)"), ("APP_B", "credentials (AWS)"))
    (line,) = hint_lines(Reached(cleared=cleared))
    assert (
        "it read APP_A, APP_B, which the seal cleared (clear-env-prefixes APP_, credentials "
        "(AWS)); " in line
    )


def test_a_file_is_named_by_its_path_below_the_home_in_either_form() -> None:
    text = "FileNotFoundError: [Errno 2] No such file or directory: '/b/home/1/.config/app.toml'"
    relative = ["~/.config/app.toml", "~/.pdbrc"]
    assert named_in(relative, text) == ["~/.config/app.toml"]
    assert named_in(["~/.toolrc"], "ToolError: create ~/.toolrc first") == ["~/.toolrc"]
    windows = "No such file or directory: 'C:\\h\\1\\AppData\\app.ini'"
    assert named_in(["~/AppData/app.ini"], windows, sep="\\") == ["~/AppData/app.ini"]


def test_a_file_the_failure_does_not_name_is_left_out() -> None:
    """An optional probe (pdb's ~/.pdbrc) leaves no trace in the failure it did not cause.

    Ablation: replace `below in text` with `True` in
    `src/truegreen/core/hints.py`."""
    text = "Expected:\n    4\nGot:\n    3\nmod.py:3: DocTestFailure"
    assert named_in(["~/.pdbrc"], text) == []


def test_what_each_variable_tells() -> None:
    names = ["TZ", "LANG", "LC_ALL", "LANGUAGE", "TERM", "COLUMNS", "LINES", "NO_COLOR"]
    assert [topic(name) for name in names] == [
        "the time zone",
        "the locale",
        "the locale",
        "the locale",
        "the terminal type",
        "the terminal size",
        "the terminal size",
        "the colour settings",
    ]


def test_a_value_the_seal_set_is_named_with_what_the_test_read() -> None:
    (line,) = hint_lines(Reached(fixed=(("TZ", "UTC"),)))
    assert line == (
        "truegreen hint: the seal set TZ=UTC; this test read the time zone; if it expects "
        'another value, set it in the test: monkeypatch.setenv("TZ", ...) then time.tzset()'
    )
    (line,) = hint_lines(Reached(fixed=(("LANG", "C.UTF-8"), ("TERM", "dumb"))))
    assert line == (
        "truegreen hint: the seal set LANG=C.UTF-8, TERM=dumb; this test read the locale and "
        "the terminal type; if it expects other values, set them in the test: "
        'monkeypatch.setenv("LANG", ...)'
    )


def test_a_machine_value_the_seal_cleared_is_named_with_what_the_test_read() -> None:
    (line,) = hint_lines(Reached(unset=("COLUMNS", "LINES", "NO_COLOR")))
    assert line == (
        "truegreen hint: the seal cleared COLUMNS, LINES, NO_COLOR (set on this machine); this "
        "test read the terminal size and the colour settings; if it expects values, set them "
        'in the test: monkeypatch.setenv("COLUMNS", ...)'
    )
