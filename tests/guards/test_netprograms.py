"""Programs that reach the network, read from their command line."""

from __future__ import annotations

import pytest

from truegreen.guards.netprograms import destinations, scp_host, url_host


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["git", "clone", "https://example.invalid/r.git"], [("example.invalid", 443)]),
        (["git", "-C", "x", "fetch", "git@example.invalid:o/r.git"], [("example.invalid", 22)]),
        (["git", "ls-remote", "git://example.invalid/r"], [("example.invalid", 9418)]),
        (["git", "pull", "https://example.invalid/r.git", "main"], [("example.invalid", 443)]),
        (["git", "push", "git@example.invalid:o/r.git", "HEAD"], [("example.invalid", 22)]),
        (["git", "clone", "--filter", "blob:none", "http://127.0.0.1:8080/r"],
         [("127.0.0.1", 8080)]),
        (["/usr/bin/curl", "-s", "-o", "out", "https://example.invalid/x"],
         [("example.invalid", 443)]),
        (["curl", "--url=http://localhost:9/x"], [("localhost", 9)]),
        (["wget", "-q", "http://[::1]:81/"], [("::1", 81)]),
        (["pip", "install", "requests"], [("pypi.org", 443)]),
        (["pip3.12", "download", "-i", "http://127.0.0.1:3141/simple", "x"],
         [("127.0.0.1", 3141)]),
        (["python3", "-m", "pip", "install", "-r", "requirements.txt"], [("pypi.org", 443)]),
        (["pip", "wheel", "-w", "dist", "requests"], [("pypi.org", 443)]),
        (["pip", "wheel", "--index-url=http://127.0.0.1:3141/simple", "x"],
         [("127.0.0.1", 3141)]),
        (["pip", "install", "x @ https://files.example.invalid/x.whl"],
         [("files.example.invalid", 443)]),
        (["ssh", "-p", "2222", "-o", "BatchMode=yes", "u@example.invalid", "ls"],
         [("example.invalid", 2222)]),
        (["ssh", "localhost"], [("localhost", 22)]),
        (["scp", "-P", "2200", "notes.txt", "u@example.invalid:/tmp/"],
         [("example.invalid", 2200)]),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) and v and isinstance(v[0], str) else "",
)  # fmt: skip
def test_it_names_the_hosts_a_command_will_dial(
    words: list[str], expected: list[tuple[str, int]]
) -> None:
    """Ablation: replace `"pull"` with `"nothing"` in `src/truegreen/guards/netprograms.py`.

    Ablation: replace `"push"` with `"nothing"` in `src/truegreen/guards/netprograms.py`.

    Ablation: replace `"wheel"` with `"nothing"` in `src/truegreen/guards/netprograms.py`."""
    assert destinations(words) == expected


@pytest.mark.parametrize(
    "words",
    [
        ["git", "clone", "/srv/repo", "copy"],
        ["git", "clone", "file:///srv/repo"],
        ["git", "fetch", "origin"],
        ["git", "pull", "/srv/repo", "main"],
        ["git", "push", "../mirror.git", "HEAD"],
        ["git", "status"],
        ["curl", "file:///etc/hostname"],
        ["pip", "install", "--no-index", "pkg"],
        ["pip", "install", "-e", "."],
        ["pip", "install", "./dist/pkg-1.0.whl"],
        ["pip", "wheel", "./pkg"],
        ["pip", "wheel", "-w", "dist", "--no-deps", "."],
        ["pip", "wheel", "--wheel-dir", "dist", "--no-index", "x"],
        ["pip", "list"],
        ["ssh", "-V"],
        ["scp", "a.txt", "b.txt"],
        ["make", "https://example.invalid/"],
    ],
    ids=" ".join,
)
def test_local_work_dials_nothing(words: list[str]) -> None:
    """Ablation: replace `not _local(word)` with `True` in
    `src/truegreen/guards/netprograms.py`.

    Ablation: replace `"-w"` with `"--no-such-option"` in
    `src/truegreen/guards/netprograms.py`: `pip wheel -w dist .` asks the index for `dist`."""
    assert destinations(["curl", "https://example.invalid/"]) != []  # premise: curl is read
    assert destinations(["pip", "wheel", "x"]) != []  # premise: pip wheel is read
    assert destinations(words) == []


def test_pip_honours_its_own_variables() -> None:
    """Ablation: replace `"--no-index" in rest or no_index` with `False` in
    `src/truegreen/guards/netprograms.py`."""
    env = {"PIP_INDEX_URL": "http://127.0.0.1:3141/simple"}
    assert destinations(["pip", "install", "x"], env) == [("127.0.0.1", 3141)]
    assert destinations(["pip", "install", "x"], {"PIP_NO_INDEX": "1"}) == []


def test_a_drive_letter_is_no_host_and_a_user_at_host_is() -> None:
    assert scp_host("C:\\data\\x") is None
    assert scp_host("u@h:/x") == ("h", None)
    assert url_host("git+ssh://u@example.invalid:2/r") == ("example.invalid", 2)
    assert url_host("not a url") is None
