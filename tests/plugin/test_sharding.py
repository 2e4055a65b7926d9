"""Sharding in real runs: an 800-test suite split 3 ways adds up, with and without xdist."""

from __future__ import annotations

import json

import pytest

from truegreen.cli import main


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
    assert out.count("ok   ") == 9
    data = [json.loads((manifests / f"shard-{k}-of-3.json").read_text()) for k in (1, 2, 3)]
    groups = {}
    for d in data:
        for nodeid in d["selected"]:
            unit = d["units"][nodeid]
            groups.setdefault(unit, set()).add(d["k"])
    assert all(len(shards) == 1 for shards in groups.values())
    assert any(unit.startswith("xdist_group:") for unit in groups)


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
        (["--truegreen-shard=4/3"], "--truegreen-shard: expected K/N with 1 <= K <= N, "
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
