"""git status as data: the porcelain parser, cache exclusion and the before/after diff."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from truegreen.core.gitstatus import Change, Snapshot, diff_snapshots, excluded, parse_status

# -- parse_status ---------------------------------------------------------------


def test_it_maps_each_path_to_its_code() -> None:
    output = b" M src/app.py\0?? notes.txt\0A  new.py\0 D gone.py\0"
    expected = {"src/app.py": " M", "notes.txt": "??", "new.py": "A ", "gone.py": " D"}
    assert parse_status(output) == expected


def test_a_rename_is_listed_under_its_new_path_and_swallows_the_old_one() -> None:
    output = b"R  docs/new name.md\0docs/old name.md\0?? after.txt\0"
    assert parse_status(output) == {"docs/new name.md": "R ", "after.txt": "??"}


def test_a_copy_carries_its_origin_too() -> None:
    assert parse_status("C  copy.py\0orig.py\0 M x\0") == {"copy.py": "C ", "x": " M"}


def test_paths_are_verbatim_spaces_arrows_newlines_and_all() -> None:
    output = "?? a -> b\0?? line\nbreak\0 M  leading space\0"
    expected = {"a -> b": "??", "line\nbreak": "??", " leading space": " M"}
    assert parse_status(output) == expected


def test_bytes_that_are_not_utf8_survive_as_surrogate_escapes() -> None:
    assert parse_status(b"?? caf\xe9.txt\0") == {"caf\udce9.txt": "??"}


def test_a_clean_tree_is_empty() -> None:
    assert parse_status(b"") == {}


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (b"M\0", "expected a porcelain record 'XY path', found 'M'"),
        (b"?? \0", "expected a porcelain record 'XY path', found '?? '"),
        (b" Mx.py\0", "expected a porcelain record 'XY path', found ' Mx.py'"),
        (b"R  new.py", "expected the original path after 'R  new.py', found the end"),
    ],
)
def test_a_malformed_record_is_an_error_naming_it(output: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_status(output)


codes = st.one_of(
    st.sampled_from(["??", "!!"]),
    st.tuples(st.sampled_from(" MTADRCU"), st.sampled_from(" MTADRCU")).map("".join),
)
paths = st.text(st.characters(exclude_characters="\0", codec="utf-8"), min_size=1)
records = st.lists(st.tuples(codes, paths, paths), unique_by=lambda r: r[1], max_size=8)


@given(records)
def test_it_reads_back_any_list_of_records_git_could_write(
    generated: list[tuple[str, str, str]],
) -> None:
    output = ""
    for code, path, origin in generated:
        output += f"{code} {path}\0"
        if "R" in code or "C" in code:
            output += f"{origin}\0"
    expected = {path: code for code, path, _ in generated}
    assert parse_status(output) == expected
    assert parse_status(output.encode("utf-8", "surrogateescape")) == expected


# -- excluded -------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        ".pytest_cache/v/cache/lastfailed",
        "src/pkg/__pycache__/mod.cpython-311.pyc",
        ".hypothesis/examples/abc/def",
        "sub/.mypy_cache/3.11/x.json",
        ".ruff_cache/0.1/y",
        ".coverage",
        "sub/.coverage.host.123.456",
        "nested/repo/__pycache__/",
        "pytest-cache-files-ab12cd/README.md",  # pytest making its cache, before the rename
    ],
)
def test_tool_caches_are_excluded_anywhere_in_the_path(path: str) -> None:
    assert excluded(path)


@pytest.mark.parametrize(
    "path", [".coveragerc", "src/.coveragerc", "notes.txt", "src/pytest_cache.py", "coverage.xml"]
)
def test_ordinary_paths_are_not_excluded(path: str) -> None:
    """Ablation: replace `part.startswith((".coverage.", PYTEST_CACHE_STAGING))` with
    `part.startswith((".coverage", PYTEST_CACHE_STAGING))` in `src/truegreen/core/paths.py`:
    `.coveragerc` is excluded. Restored."""
    # Premise: the same rule does exclude coverage.py's data files.
    assert excluded(".coverage.host.1.2")
    assert not excluded(path)


def test_a_declared_prefix_excludes_what_lies_under_it_and_nothing_beside() -> None:
    assert excluded("tmp/basetemp/test_x0/out.txt", ["tmp/basetemp"])
    assert excluded("tmp/basetemp", ["tmp/basetemp/"])
    assert not excluded("tmp/basetemp-other/out.txt", ["tmp/basetemp"])


# -- diff_snapshots -------------------------------------------------------------


def snap(status: dict[str, str], fingerprints: dict[str, str] | None = None) -> Snapshot:
    return Snapshot(status, fingerprints or dict.fromkeys(status, "same"))


def test_an_unchanged_tree_has_no_changes() -> None:
    """Ablation: replace `before.fingerprints.get(path) != after.fingerprints.get(path)` with
    `True` in `src/truegreen/core/gitstatus.py`. Restored."""
    before = snap({"src/app.py": " M", "notes.txt": "??"})
    assert diff_snapshots(before, snap(dict(before.status))) == []


def test_each_kind_of_change_reads_as_a_sentence_in_path_order() -> None:
    before = snap({"was-dirty.py": " M", "was-untracked.txt": "??", "was-deleted.py": " D"})
    after = snap({"notes.txt": "??", "src/app.py": " M", "x": " D", "added.py": "A "})
    assert [str(c) for c in diff_snapshots(before, after)] == [
        "new file: added.py",
        "new untracked file: notes.txt",
        "modified: src/app.py",
        "no longer deleted: was-deleted.py",
        "no longer modified: was-dirty.py",
        "no longer untracked: was-untracked.txt",
        "deleted: x",
    ]


def test_a_new_status_for_a_dirty_path_names_both_codes() -> None:
    changes = diff_snapshots(snap({"app.py": " M"}), snap({"app.py": "MM"}))
    assert changes == [Change("app.py", "modified (git status was ' M', now 'MM')")]


def test_a_dirty_file_changed_further_is_caught_by_its_fingerprint() -> None:
    before = snap({"app.py": " M", "notes.txt": "??"}, {"app.py": "a", "notes.txt": "n"})
    after = snap({"app.py": " M", "notes.txt": "??"}, {"app.py": "b", "notes.txt": "n2"})
    assert [str(c) for c in diff_snapshots(before, after)] == [
        "changed further (already modified before): app.py",
        "changed further (already untracked before): notes.txt",
    ]


def test_a_dirty_file_left_alone_is_not_reported() -> None:
    """Ablation: replace `before.fingerprints.get(path) != after.fingerprints.get(path)` with
    `True` in `src/truegreen/core/gitstatus.py`: the last assertion fails. Restored."""
    before = snap({"app.py": " M"}, {"app.py": "a"})
    # Premise: the same path with another fingerprint is reported.
    assert diff_snapshots(before, snap({"app.py": " M"}, {"app.py": "b"})) != []
    assert diff_snapshots(before, snap({"app.py": " M"}, {"app.py": "a"})) == []
