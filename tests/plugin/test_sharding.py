"""Sharding in real runs: an 800-test suite split 3 ways adds up, with and without xdist."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from truegreen.cli import main
from truegreen.core.platforms import host_from
from truegreen.core.provenance import python_tag


def make_suite(pytester: pytest.Pytester) -> int:
    """40 files: parametrized functions, classes with parametrized methods, xdist groups."""
    count = 0
    for f in range(40):
        lines = ["import pytest", ""]
        lines += ["@pytest.mark.parametrize('x', range(6))", f"def test_family_{f}(x): pass", ""]
        lines += [f"class TestClass{f}:", "    @pytest.mark.parametrize('y', 'abcd')",
                  "    def test_method(self, y): pass", ""]  # fmt: skip
        for g in range(4):
            lines += [f"@pytest.mark.xdist_group('group{f % 5}')", f"def test_grouped_{g}(): pass"]
        lines += [f"def test_single_{i}(): pass" for i in range(6)]
        pytester.makepyfile(**{f"test_m{f:02}": "\n".join(lines)})
        count += 6 + 4 + 4 + 6
    return count


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_three_shards_are_disjoint_complete_and_keep_units_whole(
    pytester: pytest.Pytester, xdist: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    total = make_suite(pytester)
    assert total == 800
    manifests = pytester.path / "manifests"
    counts = []
    for k in (1, 2, 3):
        result = pytester.runpytest_subprocess(
            f"--truegreen-shard={k}/3", f"--truegreen-manifest={manifests}", *xdist
        )
        assert result.ret == 0, result.stdout.str()[-2000:]
        counts.append(result.parseoutcomes()["passed"])
    assert sum(counts) == 800
    assert min(counts) > 0
    assert main(["shards", "verify", str(manifests), "--count", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("ok   ") == 10
    assert "ok   every shard from one lane (" in out
    data = [json.loads((manifests / f"shard-{k}-of-3.json").read_text()) for k in (1, 2, 3)]
    # where each shard ran, written by the process that writes the manifest (under xdist, the
    # controller, which collects nothing itself)
    host = host_from(sys.platform, platform.machine())
    assert {(d["os"], d["arch"]) for d in data} == {(host.os, host.arch)}
    assert {d["lane"] for d in data} == {f"{host.os}-{host.arch}-" + python_tag(
        platform.python_implementation(), sys.version_info)}  # fmt: skip
    groups = {}
    for d in data:
        for nodeid in d["selected"]:
            unit = d["units"][nodeid]
            groups.setdefault(unit, set()).add(d["k"])
    assert all(len(shards) == 1 for shards in groups.values())
    assert any(unit.startswith("xdist_group:") for unit in groups)


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_a_shard_the_cut_leaves_empty_is_green(
    pytester: pytest.Pytester, xdist: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """More shards than tests: a shard with nothing to run has done its share. pytest's own
    status for it is 5 ("no tests collected"), which would fail the CI job and verify.

    Ablation: replace `self.emptied and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED`
    with `False` in `src/truegreen/plugin/sharding.py`: the empty shards exit 5 and verify
    calls them red. Restored.
    Ablation: replace `bool(data.get("emptied"))` with `False` in
    `src/truegreen/plugin/sharding.py`: under xdist the controller exits 5. Restored."""
    pytester.makepyfile(test_few="def test_a(): pass\ndef test_b(): pass\ndef test_c(): pass\n")
    manifests = pytester.path / "manifests"
    ran = {}
    for k in range(1, 7):
        result = pytester.runpytest_subprocess(
            f"--truegreen-shard={k}/6", f"--truegreen-manifest={manifests}", *xdist
        )
        ran[k] = result.parseoutcomes().get("passed", 0)
        assert result.ret == 0, result.stdout.str()[-2000:]
    # premise: some shards got no test (six shards, three tests)
    assert sum(ran.values()) == 3
    assert 0 in ran.values()
    assert main(["shards", "verify", str(manifests), "--count", "6"]) == 0
    assert "ok   every shard green" in capsys.readouterr().out


DOCUMENT_PLUGIN = """
import pytest

NAMESPACE = {}


class Block(pytest.Item):
    def __init__(self, *, code, **kwargs):
        super().__init__(**kwargs)
        self.code = code

    def runtest(self):
        exec(self.code, NAMESPACE)  # each block builds on the ones before it, as in Sybil


class Document(pytest.File):
    def collect(self):
        for number, code in enumerate(self.path.read_text().split("---")):
            yield Block.from_parent(self, name=f"line:{number}", code=code)


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".rst":
        return Document.from_parent(parent, path=file_path)
"""


def test_the_blocks_of_one_document_stay_in_one_shard_in_their_order(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each block of a document runs in the namespace the blocks before it left (Sybil, a
    text file's doctests): split over shards, the later ones fail with a NameError.

    Ablation: replace `group is None and item.nodeid in found` with `False` in
    `src/truegreen/plugin/sharding.py`: the blocks are split and fail. Restored."""
    pytester.makeconftest(DOCUMENT_PLUGIN)
    blocks = ["x0 = 0"] + [f"x{i} = x{i - 1} + 1" for i in range(1, 12)]
    pytester.path.joinpath("guide.rst").write_text("---".join(blocks))
    pytester.makepyfile(test_other="\n".join(f"def test_{i}(): pass" for i in range(6)))
    manifests = pytester.path / "manifests"
    passed = 0
    for k in (1, 2, 3):
        result = pytester.runpytest_subprocess(
            "-p", "no:randomly", f"--truegreen-shard={k}/3", f"--truegreen-manifest={manifests}"
        )
        assert result.ret == 0, result.stdout.str()[-3000:]
        passed += result.parseoutcomes().get("passed", 0)
    assert passed == 12 + 6
    assert main(["shards", "verify", str(manifests), "--count", "3"]) == 0
    assert "ok   no unit split across shards" in capsys.readouterr().out


def test_shard_composes_after_k_and_the_header_says_how_to_reproduce(
    pytester: pytest.Pytester,
) -> None:
    make_suite(pytester)
    result = pytester.runpytest_subprocess("--truegreen-shard=2/4", "-k", "single")
    result.stdout.fnmatch_lines(
        [
            "truegreen shard 2/4 (digest); reproduce it with --truegreen-shard=2/4 "
            "--truegreen-shard-mode=digest"
        ]
    )
    passed = result.parseoutcomes()["passed"]
    assert 0 < passed < 240  # 240 single tests in all, about a quarter here


def test_duration_mode_reads_durations_and_predicts_the_balance(
    pytester: pytest.Pytester,
) -> None:
    make_suite(pytester)
    durations = {f"test_m{f:02}.py::test_single_0": 30.0 for f in range(3)}
    (pytester.path / ".test_durations").write_text(json.dumps(durations))
    result = pytester.runpytest_subprocess(
        "--truegreen-shard=1/2", "--truegreen-shard-mode=duration",
        "--truegreen-durations=.test_durations",
    )  # fmt: skip
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["truegreen shard 1/2 (duration): expected shard times *s to *s, slowest / floor *"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--truegreen-shard=4/3"], "--truegreen-shard: expected K/N with 1 <= K <= N <= 1000, "
         "found '4/3'"),
        (["--truegreen-shard=1/2", "--truegreen-shard-mode=duration",
          "--truegreen-durations=broken.json"], "broken.json: expected JSON of {node id: seconds}"),
    ],
)  # fmt: skip
def test_bad_shard_input_is_one_line(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    pytester.makepyfile("def test_ok(): pass")
    (pytester.path / "broken.json").write_text("{nope")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    assert "Traceback" not in result.stderr.str()


# Another sharding plugin, as pytest-split is built: a trylast pytest_collection_modifyitems
# that keeps group K of N and reports the rest through pytest_deselected.
SPLITTER = """
import pytest


def pytest_addoption(parser):
    parser.addoption("--fake-splits", type=int, default=0)
    parser.addoption("--fake-group", type=int, default=0)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    n, k = config.getoption("fake_splits"), config.getoption("fake_group")
    if not n:
        return
    keep = [item for i, item in enumerate(items) if i % n == k - 1]
    away = [item for i, item in enumerate(items) if i % n != k - 1]
    config.hook.pytest_deselected(items=away)
    items[:] = keep
"""
SPLITTERS = {
    "conftest": ("conftest", ("--fake-splits", "--fake-group")),
    "pytest-split": ("pytest_split.plugin", ("--splits", "--group")),
}


def splitting_suite(pytester: pytest.Pytester, splitter: str) -> tuple[str, tuple[str, str]]:
    """30 tests, and the flags of the plugin that splits them: its module and N, K options."""
    if splitter == "pytest-split":
        pytest.importorskip("pytest_split")
    pytester.makeconftest(SPLITTER)
    pytester.makepyfile(test_many="\n".join(f"def test_{i}(): pass" for i in range(30)))
    return SPLITTERS[splitter]


def verify_lines(manifests: Path, count: int) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-m", "truegreen", "shards", "verify", str(manifests),
         "--count", str(count)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert not done.stderr, done.stderr
    return done.returncode, done.stdout.splitlines()


@pytest.mark.parametrize("splitter", sorted(SPLITTERS))
def test_verify_fails_when_another_plugin_split_and_a_group_is_missing(
    pytester: pytest.Pytester, splitter: str
) -> None:
    """Another plugin splits in 3 groups; each job writes its manifest, and the three land on
    one name (shard-1-of-1.json): verify sees a third of the suite run and says so.

    Ablation: replace `eligible(self.collected, self.deselected)` with `selected` in
    `src/truegreen/plugin/sharding.py`; replace `source.split(".", 1)[0] in SELECTION_SOURCES`
    with `True` in `src/truegreen/core/manifests.py`."""
    source, (splits, group) = splitting_suite(pytester, splitter)
    manifests = pytester.path / "manifests"
    manifests.mkdir()
    for k in (1, 2, 3):
        job = pytester.path / f"job{k}"
        result = pytester.runpytest_subprocess(
            splits, "3", group, str(k), "-k", "not test_29", f"--truegreen-manifest={job}"
        )
        # Premise: each group is green and runs about a third of the tests.
        assert result.ret == 0, result.stdout.str()
        assert 5 <= result.parseoutcomes()["passed"] <= 15
        shutil.copy(job / "shard-1-of-1.json", manifests)  # the artifacts, merged
    data = json.loads((manifests / "shard-1-of-1.json").read_text())
    assert len(data["selected"]) == len(data["outcomes"]) < 29
    assert data["deselected"]["_pytest.mark"] == ["test_many.py::test_29"]
    assert source in data["deselected"]

    status, lines = verify_lines(manifests, 1)

    assert status == 1
    failed = [line for line in lines if line.startswith("FAIL")]
    assert len(failed) == 1, lines
    assert failed[0].startswith(
        "FAIL every test ran in a shard (29 tests; 1 of 30 collected left out by your selection): "
    )
    missing = 29 - len(data["outcomes"])
    assert f"{missing} never ran: " in failed[0]
    assert failed[0].endswith(
        f"; deselected by another plugin and run in no other shard: {source} ({missing})"
    )


@pytest.mark.parametrize("splitter", sorted(SPLITTERS))
def test_a_run_split_by_another_plugin_verifies_in_external_mode(
    pytester: pytest.Pytester, splitter: str
) -> None:
    _, (splits, group) = splitting_suite(pytester, splitter)
    manifests = pytester.path / "manifests"
    ran = 0
    for k in (1, 2, 3):
        result = pytester.runpytest_subprocess(
            splits, "3", group, str(k), "-k", "not test_29", f"--truegreen-shard={k}/3",
            "--truegreen-shard-mode=external", f"--truegreen-manifest={manifests}",
        )  # fmt: skip
        assert result.ret == 0, result.stdout.str()
        result.stdout.fnmatch_lines([f"truegreen shard {k}/3 (external): another plugin *"])
        ran += result.parseoutcomes()["passed"]
    assert ran == 29

    status, lines = verify_lines(manifests, 3)

    assert status == 0, lines
    assert (
        "ok   every test ran in a shard (29 tests; 1 of 30 collected left out by your "
        "selection)" in lines
    )


def test_external_mode_names_the_group_that_ran_twice_and_the_one_that_never_ran(
    pytester: pytest.Pytester,
) -> None:
    """A matrix that passes the same group to two jobs: every job is green, and verify names
    the tests run twice and the tests no job ran.

    Ablation: replace `eligible - ran` with `set()` in `src/truegreen/core/manifests.py`."""
    splitting_suite(pytester, "conftest")
    manifests = pytester.path / "manifests"
    for k, group in ((1, 1), (2, 2), (3, 2)):
        result = pytester.runpytest_subprocess(
            "--fake-splits", "3", "--fake-group", str(group), f"--truegreen-shard={k}/3",
            "--truegreen-shard-mode=external", f"--truegreen-manifest={manifests}",
        )  # fmt: skip
        assert result.ret == 0, result.stdout.str()  # premise: every job is green

    status, lines = verify_lines(manifests, 3)

    assert status == 1
    failed = {line.split(":")[0]: line for line in lines if line.startswith("FAIL")}
    assert set(failed) == {
        "FAIL no test in two shards",
        "FAIL every test ran in a shard (30 tests)",
        "FAIL no unit split across shards",  # in external mode each test is its own unit
    }
    assert (
        "10 tests ran twice: test_many.py::test_1 (shards 2 and 3)"
        in failed["FAIL no test in two shards"]
    )
    assert failed["FAIL every test ran in a shard (30 tests)"].endswith(
        "; deselected by another plugin and run in no other shard: conftest (10)"
    )
