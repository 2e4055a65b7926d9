"""The write guard, end to end: writes under the real home or the project tree fail the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import ambient_home, snapshot_tree

NO_TREE_GUARD = ("--truegreen-tree-guard=off", "-p", "no:randomly")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*NO_TREE_GUARD, *args)


def test_a_write_next_to_the_test_fails_it_even_when_the_error_is_swallowed(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: replace `flags & _WRITE_FLAGS` with `0` in `src/truegreen/guards/writes.py`.
    Restored."""
    pytester.makepyfile(
        """
        from pathlib import Path

        def test_writes_next_to_itself():
            try:
                (Path(__file__).parent / "out.txt").write_text("x")
            except Exception:
                pass

        def test_writes_into_tmp_path(tmp_path):
            (tmp_path / "ok.txt").write_text("x")
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    out = pytester.path / "out.txt"
    assert out.exists()  # under "fail" the write happens, and the test fails at its report
    result.stdout.fnmatch_lines(
        [
            "*_ test_writes_next_to_itself _*",
            "truegreen: this test reached outside its sandbox:",
            f"  write: did open for writing {out} (under the project tree) at "
            f"{pytester.path}/test_a_write_next_to_the_test_fails_it_even_when_the_error_is_"
            "swallowed.py:5",
            'Write into tmp_path instead; to allow it deliberately: allow-writes = ["out.txt"] '
            "in [tool.truegreen]",
        ]
    )


def test_block_refuses_the_write_on_the_spot(pytester: pytest.Pytester) -> None:
    """Ablation: replace `mode == "block"` with `False` in
    `src/truegreen/guards/writes.py`: the file appears. Restored."""
    pytester.makepyprojecttoml('[tool.truegreen]\nwrites = "block"\n')
    pytester.makepyfile(
        """
        from pathlib import Path

        import pytest

        def test_blocked():
            with pytest.raises(PermissionError, match="is under the project tree"):
                (Path(__file__).parent / "out.txt").write_text("x")
        """
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)  # refused, and still a violation
    assert not (pytester.path / "out.txt").exists()
    result.stdout.fnmatch_lines(["*write: blocked open for writing*out.txt*"])


def test_warn_reports_without_failing(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.truegreen]\nwrites = "warn"\n')
    pytester.makepyfile(
        "from pathlib import Path\n\n"
        "def test_w():\n    (Path(__file__).parent / 'out.txt').write_text('x')\n"
    )
    result = run(pytester)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(['warnings (mode "warn") by test:', "*out.txt*"])


def test_allow_writes_lets_a_declared_path_through(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.truegreen]\nallow-writes = ["build/*"]\n')
    pytester.makepyfile(
        """
        from pathlib import Path

        def test_builds():
            build = Path(__file__).parent / "build"
            build.mkdir()
            (build / "out.txt").write_text("x")
        """
    )
    run(pytester).assert_outcomes(passed=1)


def test_a_python_child_writing_into_the_project_fails_the_test(
    pytester: pytest.Pytester,
) -> None:
    """Ablation: delete `self._setenv(RUN_VAR, run_dir)` in `src/truegreen/plugin/guards.py`:
    the child no longer knows the run, so its write goes unseen. Restored."""
    pytester.makepyfile(
        """
        import subprocess
        import sys
        from pathlib import Path

        def test_child_writes():
            target = Path(__file__).parent / "child.txt"
            code = f"open({str(target)!r}, 'w').write('from a child')"
            subprocess.run([sys.executable, "-c", code], check=True)
        """
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"  write: did open for writing {pytester.path}/child.txt (under the project tree) "
            "at <string>:1 (in child process *)"
        ]
    )


def test_children_of_consecutive_tests_in_one_module_are_each_blamed_on_their_own_test(
    pytester: pytest.Pytester,
) -> None:
    """A child's record counts against the test the session publishes as running when the
    child acts (it starts knowing its test from pytest's PYTEST_CURRENT_TEST too, which the
    seal, staying on between two tests of a module, never compares or restores).

    Ablation: replace `self.publisher.publish(nodeid)` with `self.publisher.publish(None)` in
    `src/truegreen/plugin/guards.py`: both writes are blamed on no test. Restored."""
    pytester.makepyfile(
        """
        import subprocess
        import sys
        from pathlib import Path

        def write_from_a_child(name):
            target = Path(__file__).parent / name
            code = f"open({str(target)!r}, 'w').write('from a child')"
            subprocess.run([sys.executable, "-c", code], check=True)

        def test_first():
            write_from_a_child("first.txt")

        def test_second():
            write_from_a_child("second.txt")
        """
    )
    result = run(pytester, "-p", "no:randomly")
    result.assert_outcomes(failed=2)
    failures = result.stdout.str().split("= FAILURES =")[1].split(" truegreen guards ")[0]
    first = failures[failures.index("_ test_first _") : failures.index("_ test_second _")]
    second = failures[failures.index("_ test_second _") :]
    assert "first.txt" in first
    assert "second.txt" not in first
    assert "second.txt" in second
    assert "first.txt" not in second


def test_a_multiprocessing_child_writing_into_the_project_fails_the_test(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import multiprocessing
        from pathlib import Path

        def write(path):
            Path(path).write_text("from a worker")

        def test_pool_writes():
            ctx = multiprocessing.get_context("spawn")
            target = str(Path(__file__).parent / "worker.txt")
            with ctx.Pool(1) as pool:
                pool.map(write, [target])
        """
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*write: did open for writing*worker.txt*(in child process *)"])


def test_an_unsealed_test_writing_into_the_real_home_is_refused_and_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The real home is never changed: the write is refused on the spot by default, and the
    test still fails with the violation.

    Ablation: replace `(("home", self.home), ("project", project))` with
    `(("project", project),)` in `src/truegreen/plugin/guards.py`. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    pytester.makepyfile(
        """
        from pathlib import Path

        import pytest

        @pytest.mark.truegreen_ambient
        def test_writes_home():
            try:
                (Path.home() / ".myapprc").write_text("x")
            except PermissionError:
                pass  # swallowed: the violation still fails the test
        """
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"  write: blocked open for writing {home}/.myapprc (under the real home) at *"]
    )
    assert 'allow-writes = ["~/.myapprc"]' in result.stdout.str()
    assert not (home / ".myapprc").exists()


def test_the_home_is_refused_while_the_project_tree_keeps_fail(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """By default the two places have their own modes: block for the home, fail for the tree.

    Ablation: replace `policy.home_writes` with `policy.tree_writes` in
    `src/truegreen/guards/writes.py`: the home's write happens. Restored."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    pytester.makepyfile(
        """
        import subprocess
        import sys
        from pathlib import Path

        import pytest

        @pytest.mark.truegreen_ambient
        def test_writes_both():
            (Path(__file__).parent / "tree.txt").write_text("x")
            with pytest.raises(PermissionError, match="is under the real home"):
                (Path.home() / ".myapprc").write_text("x")
            code = f"open({str(Path.home() / '.childrc')!r}, 'w').write('x')"
            assert subprocess.run([sys.executable, "-c", code]).returncode != 0
        """
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert (pytester.path / "tree.txt").exists()  # premise: the tree's write happened
    assert not (home / ".myapprc").exists()
    assert not (home / ".childrc").exists()  # a Python child applies the same modes
    result.stdout.fnmatch_lines(
        [
            "*write: did open for writing *tree.txt (under the project tree)*",
            "*write: blocked open for writing *.myapprc (under the real home)*",
            "*write: blocked open for writing *.childrc (under the real home)*(in child*",
        ]
    )


@pytest.mark.parametrize(
    ("table", "expected_home", "expected_tree"),
    [
        ('writes = "warn"', "did", "did"),
        ('writes = "warn"\nhome-writes = "block"', "blocked", "did"),
        ('tree-writes = "block"', "blocked", "blocked"),
        ('home-writes = "off"', None, "did"),
    ],
)
def test_each_place_has_its_own_mode_and_writes_sets_both(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    table: str,
    expected_home: str | None,
    expected_tree: str,
) -> None:
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    pytester.makepyprojecttoml(f"[tool.truegreen]\n{table}\n")
    pytester.makepyfile(
        """
        from pathlib import Path

        import pytest

        @pytest.mark.truegreen_ambient
        def test_writes_both():
            for target in (Path(__file__).parent / "tree.txt", Path.home() / ".myapprc"):
                try:
                    target.write_text("x")
                except PermissionError:
                    pass
        """
    )
    out = run(pytester).stdout.str()
    assert f"write: {expected_tree} open for writing {pytester.path}/tree.txt" in out
    assert (pytester.path / "tree.txt").exists() == (expected_tree == "did")
    if expected_home is None:
        assert ".myapprc" not in out
    else:
        assert f"write: {expected_home} open for writing {home}/.myapprc" in out
    assert (home / ".myapprc").exists() == (expected_home != "blocked")


def test_rmtree_inside_the_project_is_reported_with_full_paths(
    pytester: pytest.Pytester,
) -> None:
    """``shutil.rmtree`` reports names relative to a directory descriptor; the guard rebuilds
    the path."""
    pytester.makepyfile(
        """
        import shutil
        from pathlib import Path

        def test_rmtree():
            doomed = Path(__file__).parent / "data"
            shutil.rmtree(doomed)
        """
    )
    (pytester.path / "data" / "sub").mkdir(parents=True)
    (pytester.path / "data" / "sub" / "file.txt").write_text("x")
    result = run(pytester, "--truegreen-set", "writes=warn")
    result.stdout.fnmatch_lines(
        [
            f"*did remove {pytester.path}/data/sub/file.txt (under the project tree)*",
            f"*did rmdir {pytester.path}/data/sub (under the project tree)*",
        ]
    )


def test_a_sqlite_database_in_the_real_home_is_refused_and_one_in_tmp_path_is_not(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """sqlite opens its files in C, unseen by the open event: its connect is the write.

    Ablation: replace `sqlite_file(args[0])` with `None` in `src/truegreen/guards/writes.py`."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    pytester.makepyprojecttoml('[tool.truegreen]\nwrites = "block"\n')
    pytester.makepyfile(
        """
        import sqlite3
        from pathlib import Path

        import pytest

        def test_sqlite_in_tmp_path(tmp_path):
            sqlite3.connect(tmp_path / "ok.db").execute("create table t (x)")
            assert (tmp_path / "ok.db").exists()  # premise: a connect writes its file
            sqlite3.connect(":memory:").close()
            sqlite3.connect("file::memory:", uri=True).close()

        @pytest.mark.truegreen_ambient
        def test_sqlite_in_the_home():
            try:
                sqlite3.connect(Path.home() / "app.db").execute("create table t (x)")
            except PermissionError:
                pass  # swallowed: the violation still fails the test
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    assert not (home / "app.db").exists()
    result.stdout.fnmatch_lines(
        [f"  write: blocked open sqlite database {home}/app.db (under the real home) at *"]
    )


def test_os_open_with_dir_fd_is_reported_where_it_writes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A name relative to a directory descriptor is resolved through the descriptor, not
    against the working directory (the project).

    Ablation: replace `check("open for writing", path, dir_fd, follow)` with
    `check("open for writing", path, None, follow)` in `src/truegreen/guards/writes.py`."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    pytester.makepyfile(
        """
        import os
        from pathlib import Path

        import pytest

        @pytest.mark.truegreen_ambient
        def test_opens_at():
            folder = os.open(Path.home(), os.O_RDONLY)
            try:
                os.close(os.open("at.rc", os.O_WRONLY | os.O_CREAT, dir_fd=folder))
            except PermissionError:
                pass
            finally:
                os.close(folder)
        """
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    # premise: the name, against the working directory, is a project path and not the home's
    assert not str(pytester.path).startswith(str(home))
    assert not (home / "at.rc").exists()
    assert not (pytester.path / "at.rc").exists()
    result.stdout.fnmatch_lines(
        [f"  write: blocked open for writing {home}/at.rc (under the real home) at *"]
    )
    assert 'allow-writes = ["~/at.rc"]' in result.stdout.str()


def test_writes_during_collection_and_in_a_session_fixture_are_attributed(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
        from pathlib import Path

        import pytest

        @pytest.fixture(scope="session")
        def stamp():
            (Path(__file__).parent / "stamp.txt").write_text("x")
        """
    )
    pytester.makepyfile(
        """
        from pathlib import Path

        (Path(__file__).parent / "at-import.txt").write_text("x")

        def test_uses_stamp(stamp):
            pass
        """
    )
    result = run(pytester)
    assert result.ret == 1
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "violations outside any test (the run fails):",
            "  ?collection? write: did open for writing *at-import.txt*",
        ]
    )
    result.stdout.fnmatch_lines(["*stamp.txt (under the project tree)* ?session fixture 'stamp'?"])


def test_our_tool_caches_and_the_sealed_home_are_not_violations(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    before = snapshot_tree(home)
    pytester.makepyfile(
        """
        from pathlib import Path

        def test_caches():
            root = Path(__file__).parent
            for cache in (".hypothesis", ".mypy_cache", "__pycache__", ".ruff_cache"):
                (root / cache).mkdir(exist_ok=True)
                (root / cache / "x").write_text("x")
            (root / ".coverage.host.1234").write_text("x")
            (Path.home() / ".config").mkdir()
        """
    )
    run(pytester).assert_outcomes(passed=1)
    assert snapshot_tree(home) == before


def test_pytests_cache_made_during_a_test_is_no_violation(pytester: pytest.Pytester) -> None:
    """In werkzeug's suite pytest-xprocess's session fixture is the first to use pytest's
    cache, so the cache directory is made inside a test's setup: pytest makes it in a staging
    directory beside it (``pytest-cache-files-*``) and renames that into place.

    Ablation: replace `part.startswith((".coverage.", PYTEST_CACHE_STAGING))` with
    `part.startswith(".coverage.")` in `src/truegreen/core/paths.py`. Restored."""
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture(scope="session")
        def state(request):
            return request.config.cache.mkdir("plugin-state")
        """
    )
    pytester.makepyfile(
        """
        def test_uses_state(state):
            assert state.is_dir()
        """
    )
    cache = pytester.path / ".pytest_cache"
    assert not cache.exists()
    result = run(pytester)
    assert (cache / "d" / "plugin-state").is_dir()  # premise: the fixture made the cache
    assert "pytest-cache-files-" not in result.stdout.str()
    result.assert_outcomes(passed=1)


def test_calls_bound_to_fail_are_no_writes(pytester: pytest.Pytester) -> None:
    """filelock's tests lock "" and ".": `Path("").parent.mkdir(exist_ok=True)` makes the
    existing project root, and opening "" or "." for writing fails before anything is written.

    Ablation: replace `mode == "off" or bound_to_fail(operation, path, real)` with
    `mode == "off"` in `src/truegreen/guards/writes.py`."""
    pytester.makepyfile(
        """
        import os
        from pathlib import Path

        import pytest

        def test_cannot_write():
            Path("").parent.mkdir(parents=True, exist_ok=True)
            with pytest.raises(FileNotFoundError):
                os.open("", os.O_RDWR | os.O_CREAT)
            with pytest.raises(OSError):  # IsADirectoryError; PermissionError on Windows
                os.open(".", os.O_RDWR | os.O_TRUNC)

        def test_makes_a_directory():
            Path("made").mkdir(exist_ok=True)
        """
    )
    result = run(pytester, "-rA")
    result.assert_outcomes(passed=1, failed=1)
    assert (pytester.path / "made").is_dir()  # premise: a mkdir that happens is reported
    result.stdout.fnmatch_lines([f"  write: did mkdir {pytester.path / 'made'} (under the*"])
    result.stdout.fnmatch_lines(["PASSED *::test_cannot_write"])


def test_a_directory_turned_into_a_symlink_is_resolved_again(pytester: pytest.Pytester) -> None:
    """The guard remembers each directory's real path (filelock writes one lock file 60,000
    times); a directory replaced by a symlink into the project must not keep its old one.

    Ablation: delete `resolver.forget(path, dir_fd)` in `src/truegreen/guards/writes.py`."""
    pytester.makepyfile(
        """
        import os
        from pathlib import Path

        def test_writes_through_a_swapped_directory(tmp_path):
            lock = tmp_path / "locks"
            lock.mkdir()
            for _ in range(3):
                (lock / "a.lock").write_text("x")
                (lock / "a.lock").unlink()
            lock.rmdir()
            os.symlink(Path.cwd(), lock)
            (lock / "through.txt").write_text("x")

        def test_writes_through_a_symlink(tmp_path):
            os.symlink(Path.cwd(), tmp_path / "project")
            (tmp_path / "project" / "direct.txt").write_text("x")
        """
    )
    result = run(pytester)
    result.assert_outcomes(failed=2)
    # premise: a write through a symlink is seen where it lands
    result.stdout.fnmatch_lines([f"  write: did open for writing {pytester.path}/direct.txt *"])
    result.stdout.fnmatch_lines([f"  write: did open for writing {pytester.path}/through.txt *"])


def test_a_write_through_a_symlinked_file_in_a_known_directory_lands_where_it_points(
    pytester: pytest.Pytester,
) -> None:
    """The guard's fast path (a directory it has resolved before, a plain last name) still
    follows a symlink at the last name for a call that follows it.

    Ablation: replace `not (_lexists(text) and os.path.islink(text))` with `True` in
    `src/truegreen/guards/writes.py`."""
    pytester.makepyfile(
        """
        import os
        from pathlib import Path

        def test_writes_through_a_symlinked_file(tmp_path):
            (tmp_path / "warm.txt").write_text("x")  # the directory is now remembered
            os.symlink(Path.cwd() / "target.txt", tmp_path / "link.txt")
            (tmp_path / "link.txt").write_text("x")
        """
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    assert (pytester.path / "target.txt").exists()  # premise: the write went through the link
    result.stdout.fnmatch_lines(
        [f"  write: did open for writing {pytester.path / 'target.txt'} (under the project*"]
    )


def test_removing_a_symlink_is_a_write_where_the_link_is(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """Removing a symlink changes the directory holding it, not what it points to: a link in
    the project tree pointing outside it is a write into the project.

    Ablation: replace
    `{"mkdir", "remove", "rename", "rename onto", "rmdir", "rmtree", "symlink", "link"}` with
    `{"mkdir", "rename", "rename onto", "rmdir", "rmtree", "symlink", "link"}` in
    `src/truegreen/guards/writes.py`."""
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    (pytester.path / "link").symlink_to(outside)
    pytester.makepyfile(
        """
        import os

        def test_removes_a_link_in_the_project():
            os.remove("link")
        """
    )
    result = run(pytester)
    assert not (pytester.path / "link").is_symlink()  # premise: the link was removed
    assert outside.exists()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"  write: did remove {pytester.path / 'link'} (under the*"])


def test_an_exclusive_create_of_a_symlink_writes_nothing_and_is_no_violation(
    pytester: pytest.Pytester,
) -> None:
    """``O_CREAT | O_EXCL`` fails on an existing symlink wherever it points (filelock's soft
    lock opens its lock file so): nothing is written through it, so nothing is reported.

    Ablation: replace `flags & _EXCLUSIVE != _EXCLUSIVE and not flags & _NOFOLLOW` with
    `True` in `src/truegreen/guards/writes.py`."""
    pytester.makepyfile(
        """
        import os
        from pathlib import Path

        import pytest

        def test_exclusive(tmp_path):
            os.symlink(Path.cwd() / "target.txt", tmp_path / "link.txt")
            with pytest.raises(FileExistsError):
                os.open(tmp_path / "link.txt", os.O_WRONLY | os.O_CREAT | os.O_EXCL)

        def test_following(tmp_path):
            os.symlink(Path.cwd() / "other.txt", tmp_path / "link.txt")
            os.close(os.open(tmp_path / "link.txt", os.O_WRONLY | os.O_CREAT))
        """
    )
    result = run(pytester, "-rA")
    assert not (pytester.path / "target.txt").exists()
    # premise: the same open without O_EXCL writes through the link and is reported
    result.stdout.fnmatch_lines([f"  write: did open for writing {pytester.path / 'other.txt'} *"])
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["PASSED *::test_exclusive"])


def test_removing_a_symlink_to_the_home_is_not_a_write_into_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A venv in tmp_path links bin/python to an interpreter under the home (pyenv, uv):
    removing or renaming the link, or the whole venv, leaves the interpreter alone, and is no
    violation; writing through the link still is.

    Ablation: replace `operation not in _NOT_FOLLOWING` with `True` in
    `src/truegreen/guards/writes.py`."""
    home = ambient_home(monkeypatch, tmp_path / "real-home", identity=False)
    interpreter = home / ".pyenv" / "python3"
    interpreter.parent.mkdir()
    interpreter.write_text("#!/bin/sh\n")
    pytester.makepyfile(
        f"""
        import os
        import shutil

        import pytest

        INTERPRETER = {str(interpreter)!r}

        def venv(tmp_path):
            (tmp_path / "venv" / "bin").mkdir(parents=True)
            link = tmp_path / "venv" / "bin" / "python"
            os.symlink(INTERPRETER, link)
            assert os.path.realpath(link) == INTERPRETER  # premise: it leads into the home
            return link

        def test_removes_and_renames_links(tmp_path):
            link = venv(tmp_path)
            os.rename(link, link.with_name("python3"))
            os.remove(link.with_name("python3"))
            venv(tmp_path / "again")
            shutil.rmtree(tmp_path / "again" / "venv")

        def test_writes_through_a_link(tmp_path):
            with pytest.raises(PermissionError):
                venv(tmp_path).write_text("x")
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([f"  write: blocked open for writing {interpreter} (under *"])
    assert "blocked remove" not in result.stdout.str()
    assert "blocked rename" not in result.stdout.str()
    assert interpreter.read_text() == "#!/bin/sh\n"
