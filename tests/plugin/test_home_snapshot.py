"""The real home at the end of a run: what changed in it unseen (a program that is not Python)
fails the run, named entry by entry; what the run itself may change does not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ambient_home

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*NO_TREE_GUARD, *args)


def runs_a_program(pytester: pytest.Pytester, command: str) -> None:
    """A test file whose one test runs ``sh -c COMMAND``: a program no Python guard sees."""
    pytester.makepyfile(
        "import subprocess\n\n"
        "def test_runs_a_program():\n"
        f"    subprocess.run(['sh', '-c', {command!r}], check=True)\n"
    )


def test_a_program_creating_an_entry_in_the_real_home_fails_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``git``/``gpg`` making ``~/.gnupg`` during a commit: no Python write, no guard sees it.

    Ablation: delete `self._compare_home()` in `src/truegreen/plugin/guards.py`: the run
    passes. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    (home / ".bashrc").write_text("x")
    (home / ".profile").write_text("x")
    metrics = tmp_path / "metrics"
    runs_a_program(pytester, f"mkdir {home}/.gnupg && rm {home}/.profile")
    result = run(pytester, f"--truegreen-metrics={metrics}")
    result.assert_outcomes(passed=1)  # premise: the test itself passed
    assert (home / ".gnupg").is_dir()
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*truegreen: the real home changed*",
            "the real home changed during the run: a program that is not Python*",
            "  new: ~/.gnupg",
            "  removed: ~/.profile",
            "the run fails; *",
        ]
    )
    records = [
        json.loads(line)
        for stream in metrics.rglob("*.jsonl")
        for line in stream.read_text().splitlines()
    ]
    changed = [r for r in records if r.get("where") == "the session"]
    assert {(r["operation"], r["target"]) for r in changed} == {
        ("new", f"{home}/.gnupg (under the real home)"),
        ("removed", f"{home}/.profile (under the real home)"),
    }


def test_a_program_changing_an_existing_entry_in_the_real_home_fails_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A shell appending to ``~/.bashrc``: the entry is there before and after, with another
    size and time.

    Ablation: replace `old != seen` with `False` in `src/truegreen/core/homesnap.py`: the
    run passes. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    bashrc = home / ".bashrc"
    bashrc.write_text("x\n")
    runs_a_program(pytester, f"echo y >> {bashrc}")
    result = run(pytester)
    result.assert_outcomes(passed=1)  # premise: the test itself passed
    assert bashrc.read_text() == "x\ny\n"  # premise: the program changed the file
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*truegreen: the real home changed*",
            "the real home changed during the run: a program that is not Python*",
            "  changed: ~/.bashrc",
            "the run fails; *",
        ]
    )


def test_a_directory_a_python_write_was_refused_in_is_watched_to_the_end(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The top level alone misses a file made in ``~/.config/tool``; the refused write's
    directory is compared too.

    Ablation: delete `self.guard.on_refused = self._refused` in
    `src/truegreen/plugin/guards.py`: the program's file goes unnamed. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    tool = home / ".config" / "tool"
    tool.mkdir(parents=True)
    pytester.makepyfile(
        f"""
        import subprocess

        import pytest

        def test_refused_then_a_program_writes():
            with pytest.raises(PermissionError):
                open("{tool}/replay.json", "w")
            subprocess.run(["sh", "-c", "echo x > {tool}/replay.json"], check=True)
        """
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)  # the refused write fails the test
    assert (tool / "replay.json").exists()  # premise: the program wrote it
    assert result.ret == 1
    result.stdout.fnmatch_lines(["  new: ~/.config/tool/replay.json"])


def test_under_xdist_the_controller_compares_what_its_workers_were_refused_in(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ablation: delete `watch.merge(shipped)` in `src/truegreen/plugin/guards.py`: the
    controller never learns of the worker's directory. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    tool = home / ".config" / "tool"
    tool.mkdir(parents=True)
    pytester.makepyfile(
        f"""
        import subprocess

        import pytest

        def test_refused_then_a_program_writes():
            with pytest.raises(PermissionError):
                open("{tool}/replay.json", "w")
            subprocess.run(["sh", "-c", "echo x > {tool}/replay.json"], check=True)

        def test_other():
            pass
        """
    )
    result = run(pytester, "-n", "2")
    result.assert_outcomes(passed=1, failed=1)
    assert (tool / "replay.json").exists()  # premise: the program wrote it
    result.stdout.fnmatch_lines(["  new: ~/.config/tool/replay.json"])
    assert result.stdout.str().count("truegreen: the real home changed") == 1


def test_what_the_run_itself_changes_in_the_home_is_not_named(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A checkout directly in the home: pytest's cache and the project's own files change the
    checkout's top-level entry, which is the project's, not the home's.

    Ablation: replace `leaked_into(path, policy.roots) != "home"` with `False` in
    `src/truegreen/plugin/guards.py`: the checkout is named as a change. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    project = home / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.truegreen]\nallow-writes = ["out/*"]\n')
    (project / "test_x.py").write_text(
        "from pathlib import Path\n\n"
        "def test_writes(tmp_path):\n"
        "    (tmp_path / 'a').write_text('x')\n"
        "    out = Path(__file__).parent / 'out'\n"
        "    out.mkdir()\n"
        "    (out / 'b').write_text('x')\n"
    )
    before = (project.stat().st_mtime_ns, sorted(p.name for p in project.iterdir()))
    result = run(pytester, str(project), f"--rootdir={project}", "-p", "cacheprovider")
    result.assert_outcomes(passed=1)
    after = (project.stat().st_mtime_ns, sorted(p.name for p in project.iterdir()))
    assert before != after  # premise: the checkout's entry in the home did change
    assert result.ret == 0
    assert "the real home changed" not in result.stdout.str()


def test_home_writes_warn_names_the_change_and_passes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    pytester.makepyprojecttoml('[tool.truegreen]\nhome-writes = "warn"\n')
    runs_a_program(pytester, f"mkdir {home}/.gnupg")
    result = run(pytester)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["  new: ~/.gnupg", 'home-writes = "warn": *'])


def test_the_file_the_run_prints_to_is_not_named(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``pytest > ~/log.txt``: the run's own output grows a file in the home.

    Ablation: replace `outputs and _path_id(path) in outputs` with `False` in
    `src/truegreen/plugin/guards.py`. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    pytester.makepyfile("def test_ok():\n    pass\n")
    log = home / "log.txt"
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", *NO_TREE_GUARD, str(pytester.path)],
            cwd=pytester.path,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
        )
    text = log.read_text()
    assert "1 passed" in text  # premise: the run wrote its output into the home
    assert done.returncode == 0, text
    assert "the real home changed" not in text
