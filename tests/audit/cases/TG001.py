import time


def test_a_suppression_with_a_reason():
    time.sleep(0.1)  # truegreen: ignore[TG402] measures the real timer


def test_a_suppression_without_a_reason():
    time.sleep(0.1)  # truegreen: ignore[TG402]  # expect: TG001


def test_two_codes_without_a_reason():
    time.sleep(0.1)  # truegreen: ignore[TG402,TG101]  # expect: TG001


def test_spaces_only():
    time.sleep(0.1)  # truegreen: ignore[TG402]     # expect: TG001


def test_a_noqa_without_a_reason():
    time.sleep(0.1)  # noqa: TG402  # expect: TG001


def test_a_noqa_of_two_codes_without_a_reason():
    time.sleep(0.1)  # NOQA:TG402,TG101  # expect: TG001


def test_a_noqa_with_a_reason():
    time.sleep(0.1)  # noqa: TG402 measures the real timer


# Look-alikes: the text in a string, a seam marker, a plain comment, noqa for other tools.


def test_a_bare_noqa():
    import os  # noqa


def test_a_noqa_for_another_linter():
    import os  # noqa: F401


def test_a_noqa_ruff_does_not_read():
    time.sleep(0.1)  # noqa: tg402


def test_the_text_in_a_string():
    assert "# truegreen: ignore[TG402]" in HELP


def test_a_seam_marker(monkeypatch):
    run()  # truegreen: seam the one place that spawns


def test_a_comment_about_suppressions():
    pass  # truegreen: ignore a finding with a reason, see the docs
