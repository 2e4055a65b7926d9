"""Provenance and evidence across lanes as data: the commit, the attempts, the lanes' platforms."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

from tests.core.test_shards import manifest
from truegreen.core.errors import DataError
from truegreen.core.evidence import Head, from_head, group, one_lane, verify_lanes
from truegreen.core.manifests import Manifest, parse
from truegreen.core.platforms import Marker
from truegreen.core.provenance import decode_marker, encode_marker, fields, head_commit

SHA = "a" * 40
GATED = "t.py::test_0"  # windows only


def lane(
    name: str, os_name: str, outcome: str = "passed", where: str = "", **changes: Any
) -> Manifest:
    """One lane of one shard running the nine tests of ``manifest``, the first gated to
    windows with ``outcome``."""
    data = manifest(1, 1, [f"t.py::test_{i}" for i in range(9)])
    data["outcomes"][GATED] = outcome
    data.update(commit=SHA, run_id="7", run_attempt=1, os=os_name, arch="x86_64",
                python="cpython-3.12.4", lane=name, platforms={GATED: ["windows"]})  # fmt: skip
    data.update(changes)
    return parse(data, Path(where or name, f"shard-{data['k']}-of-{data['n']}.json"))


def failing(manifests: list[Manifest], head: Optional[str] = SHA) -> dict[str, str]:
    checks, _ = verify_lanes(manifests, Head(head, "--commit"))
    return {c.name: c.detail for c in checks if not c.ok}


def test_github_sha_wins_and_git_is_asked_only_without_it() -> None:
    asked: list[str] = []

    def git_head() -> str:
        asked.append("git")
        return "C" * 40 + "\n"

    assert head_commit({"GITHUB_SHA": SHA}, git_head) == (SHA, "GITHUB_SHA")
    assert asked == []
    assert head_commit({"GITHUB_SHA": " "}, git_head) == ("c" * 40, "git HEAD")
    assert head_commit({}, lambda: None) == (None, "")


def test_the_fields_name_the_run_the_host_and_a_lane_by_default() -> None:
    env = {"GITHUB_RUN_ID": "99", "GITHUB_RUN_ATTEMPT": "3"}
    found = fields(env, SHA, sys_platform="win32", machine="AMD64", implementation="CPython",
                   version=(3, 12, 4))  # fmt: skip
    assert found == {"commit": SHA, "run_id": "99", "run_attempt": 3, "os": "windows",
                     "arch": "x86_64", "python": "cpython-3.12.4",
                     "lane": "windows-x86_64-py3.12"}  # fmt: skip
    pypy = fields({"GITHUB_RUN_ATTEMPT": "x"}, None, sys_platform="darwin", machine="arm64",
                  implementation="PyPy", version=(3, 10, 14), lane="nightly")  # fmt: skip
    assert (pypy["run_id"], pypy["run_attempt"], pypy["lane"]) == (None, None, "nightly")
    assert fields({}, None, sys_platform="darwin", machine="arm64", implementation="PyPy",
                  version=(3, 10, 14))["lane"] == "macos-arm64-pypy3.10"  # fmt: skip


def test_a_marker_survives_the_manifest() -> None:
    marker = Marker(("linux", "not windows"), ("arm64",))
    assert encode_marker(marker) == ["linux", "not windows", "arch=arm64"]
    assert decode_marker(encode_marker(marker)) == marker


def test_a_manifest_written_before_these_fields_still_reads() -> None:
    old = parse(manifest(1, 1, ["t.py::test_0"]), Path("shard-1-of-1.json"))
    assert (old.commit, old.lane, old.platforms) == (None, None, {})


def test_a_wrong_platforms_entry_is_one_line() -> None:
    """Ablation: replace `decode_marker(values)` with `Marker(("linux",))` in
    `src/truegreen/core/manifests.py`."""
    data = manifest(1, 1, ["t.py::test_0"], platforms={GATED: ["windos"]})
    assert parse(manifest(1, 1, ["t.py::test_0"], platforms={GATED: ["windows"]}), Path("m"))
    with pytest.raises(DataError, match=r"^m: key 'platforms'\['t.py::test_0'\]: expected a "
                       r"platforms marker's specs, found \['windos'\] \(platforms: "):  # fmt: skip
        parse(data, Path("m"))


def test_a_gated_test_counts_only_on_a_lane_of_its_platform() -> None:
    """A test gated to windows that "passed" on linux (its marker changed since, or a lane
    misnamed its OS) is no evidence for windows.

    Ablation: replace `marker is None or marker.matches(hosts[lane])` with `True` in
    `src/truegreen/core/evidence.py`."""
    windows = lane("win", "windows")
    linux = lane("lin", "linux", "skipped")
    assert failing([windows, linux]) == {}  # premise: the windows lane proves it
    found = failing([lane("win", "windows", "skipped"), lane("lin", "linux", "passed")])
    name = "every platforms-gated test passed on a lane it names (1 test, 2 lanes)"
    assert found[name] == (
        "1 test passed on no lane of its platform\n"
        "  t.py::test_0 platforms('windows'): skipped on win"
    )


def test_a_gate_gated_to_a_platform_must_pass_on_that_platform() -> None:
    """Ablation: replace `markers.get(nodeid)` with `None` in
    `src/truegreen/core/evidence.py`."""
    gate = {"must_run": [GATED]}
    assert failing([lane("win", "windows", **gate), lane("lin", "linux", "skipped")]) == {}
    found = failing([lane("win", "windows", "failed", exitstatus=1, **gate),
                     lane("lin", "linux", "passed")])  # fmt: skip
    assert found["every must-run test passed on a lane of its platform (1 pattern)"] == (
        "1 gate passed on no lane\n  t.py::test_0: failed on win"
    )


def test_evidence_from_another_commit_proves_nothing_for_the_head() -> None:
    """Ablation: replace `head.commit is None or same_commit(m.commit, head.commit)` with
    `True` in `src/truegreen/core/evidence.py`."""
    windows = lane("win", "windows")
    assert failing([windows, lane("lin", "linux", "skipped")]) == {}
    stale = lane("win", "windows", commit="b" * 40)
    found = failing([stale, lane("lin", "linux", "skipped")])
    assert "every platforms-gated test passed on a lane it names (1 test, 2 lanes)" in found


def test_without_a_head_the_manifests_must_name_one_commit() -> None:
    """Ablation: replace `len(named) == 1` with `True` in
    `src/truegreen/core/evidence.py`."""
    one = [lane("a", "linux"), lane("b", "linux")]
    assert from_head(one, Head(None)) is not None
    assert from_head(one, Head(None)).ok  # type: ignore[union-attr]
    two = from_head([lane("a", "linux"), lane("b", "linux", commit=None)], Head(None))
    assert two is not None
    assert not two.ok
    assert two.detail.startswith("2 commits\n  a/shard-1-of-1.json: commit: " + SHA)
    old = parse(manifest(1, 1, ["t.py::test_0"]), Path("m"))
    assert from_head([old], Head(None)) is None  # nothing names a commit: nothing to compare


def test_two_manifests_of_one_lane_shard_and_attempt_are_refused() -> None:
    """Two CI jobs with one lane name overwrite nothing and prove nothing: one line naming
    both files.

    Ablation: replace `twin is not None` with `False` in
    `src/truegreen/core/evidence.py`."""
    assert group([lane("a", "linux"), lane("a", "linux", run_attempt=2)]).superseded
    with pytest.raises(DataError, match=r"^b/shard-1-of-1.json: lane a shard 1: expected one "
                       r"manifest per lane, shard and attempt, found another in "
                       r"a/shard-1-of-1.json: "):  # fmt: skip
        group([lane("a", "linux"), lane("a", "linux", where="b")])


def test_one_lane_on_two_platforms_is_refused() -> None:
    """Ablation: replace `first[0] != host` with `False` in
    `src/truegreen/core/evidence.py`."""
    assert group([lane("a", "linux"), lane("b", "windows")]).hosts  # premise: two lanes read
    with pytest.raises(DataError, match=r"key 'os'/'arch': expected linux, x86_64 as lane a's "):
        group([lane("a", "linux"), lane("a", "windows", run_attempt=2)])


def test_lanes_need_manifests_that_name_their_lane() -> None:
    """An older truegreen's manifest cannot be put in a lane: one line, not a guess.

    Ablation: replace `value is None` with `False` in `src/truegreen/core/evidence.py`."""
    assert group([lane("a", "linux")]).newest  # premise: a manifest that names its lane groups
    old = parse(manifest(1, 1, ["t.py::test_0"]), Path("m"))
    with pytest.raises(DataError, match=r"^m: key 'lane': expected string \(--lanes reads "):
        group([old])


def test_one_directory_holds_one_lane() -> None:
    """Shards of two lanes merged into one directory are no lane's whole run.

    Ablation: replace `len(shards) == 1` with `True` in
    `src/truegreen/core/evidence.py`."""
    one = one_lane([lane("a", "linux")])
    assert one is not None
    assert one.ok
    two = one_lane([lane("a", "linux"), lane("b", "windows", k=2, n=2)])
    assert two is not None
    assert not two.ok
    assert two.detail == (
        "2 lanes (a: shard 1; b: shard 2): verify each lane's directory alone, or all of them "
        "with --lanes"
    )
