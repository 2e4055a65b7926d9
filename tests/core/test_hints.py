"""The lines of a failure hint, from what a sealed test reached for."""

from __future__ import annotations

from truegreen.core.hints import Reached, hint_lines, home_relative


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
