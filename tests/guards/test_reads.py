"""The read guard's decision, path by path: the real home and the directories above the rootdir
are outside the sandbox; the project, the temporary directories and what Python itself reads
are not."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from truegreen.core.paths import Roots
from truegreen.guards.active import listeners_for
from truegreen.guards.policy import Policy
from truegreen.guards.reads import ReadGuard, ancestors
from truegreen.guards.runtime import Guard


class Machine:
    """A home, a checkout two levels below a workspace, a temporary directory."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.workspace = root / "work"
        self.project = self.workspace / "src" / "proj"
        self.temp = root / "tmp"
        for folder in (self.home, self.project, self.temp):
            folder.mkdir(parents=True)

    def guard(self, **policy: object) -> Guard:
        roots = Roots(
            protected=(("home", str(self.home)), ("project", str(self.project))),
            allowed=(str(self.temp),),
        )
        made = Guard(Policy(roots=roots, reads="fail", run_dir="", **policy), role="session")  # type: ignore[arg-type]
        made.test = made.where = "test_x.py::test_x"
        return made

    def read(self, guard: Guard, path: Path) -> list[str]:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            path.write_text("x")
        before = len(guard.violations)
        ReadGuard(guard)(str(path))
        return [v.target for v in guard.violations[before:]]


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    return Machine(tmp_path)


def test_a_file_under_the_real_home_is_outside(machine: Machine) -> None:
    """Ablation: replace `not text.startswith(self.home_prefixes)` with `True` in
    `src/truegreen/guards/reads.py`. Restored."""
    target = machine.home / ".cache" / "tool" / "stale.json"
    assert machine.read(machine.guard(), target) == [f"{target} (under the real home)"]


def test_a_file_in_a_directory_above_the_rootdir_is_outside(machine: Machine) -> None:
    """The ``.env`` found by walking up from the test file.

    Ablation: replace `(text[:cut] or _SEP) not in self.above` with `True` in
    `src/truegreen/guards/reads.py`. Restored."""
    for folder in (machine.workspace / "src", machine.workspace):
        target = folder / ".env"
        assert machine.read(machine.guard(), target) == [
            f"{target} (in a directory above the rootdir)"
        ]


def test_the_project_and_everything_not_above_it_stay_inside(machine: Machine) -> None:
    guard = machine.guard()
    assert machine.read(guard, machine.project / "data" / "x.json") == []
    # beside the checkout, not above it: not "walking up"
    assert machine.read(guard, machine.workspace / "other" / ".env") == []
    assert machine.read(guard, machine.temp / "scratch" / "x") == []


def test_a_checkout_inside_the_home_reads_its_own_files(tmp_path: Path) -> None:
    """The usual laptop: ~/src/proj. Its own files are the project's; ~/src/.env is not.

    Ablation: replace `project and under(real, project)` with `False` in
    `src/truegreen/guards/reads.py`: a project file read through the symlinked home, resolved
    by the slow path, is taken for the home's. Restored."""
    home = tmp_path / "home"
    project = home / "src" / "proj"
    project.mkdir(parents=True)
    (tmp_path / "link").symlink_to(home)  # HOME spelled through a symlink (/home -> /usr/home)
    (project / "data.txt").write_text("x")
    (home / "src" / ".env").write_text("x")
    roots = Roots(protected=(("home", str(home)), ("project", str(project))))
    policy = Policy(roots=roots, reads="fail", run_dir="", read_homes=(str(tmp_path / "link"),))
    guard = Guard(policy, role="session")
    guard.test = "t"
    reads = ReadGuard(guard)
    reads(str(tmp_path / "link" / "src" / "proj" / "data.txt"))
    assert guard.violations == []
    reads(str(home / "src" / ".env"))
    assert [v.target for v in guard.violations] == [
        f"{home}/src/.env (in a directory above the rootdir)"
    ]


def test_a_file_directly_in_the_temporary_directory_is_no_walk_up(tmp_path: Path) -> None:
    """A checkout under /tmp has /tmp above it, and mkstemp's files land right there.

    Ablation: replace `folder == allowed` with `False` in
    `src/truegreen/guards/reads.py`. Restored."""
    temp = tmp_path / "tmp"
    project = temp / "checkouts" / "proj"
    project.mkdir(parents=True)
    (temp / "tmpab12cd").write_text("x")
    (temp / "checkouts" / ".env").write_text("x")
    roots = Roots(
        protected=(("home", str(tmp_path / "home")), ("project", str(project))),
        allowed=(str(temp),),
    )
    guard = Guard(Policy(roots=roots, reads="fail", run_dir=""), role="session")
    guard.test = "t"
    reads = ReadGuard(guard)
    reads(str(temp / "tmpab12cd"))
    assert guard.violations == []
    reads(str(temp / "checkouts" / ".env"))
    assert len(guard.violations) == 1  # premise: the walk-up is seen in the same place


def test_what_python_reads_under_the_home_stays_inside(machine: Machine) -> None:
    """A venv or a sys.path entry under the home (or above the rootdir) is Python's own.

    Ablation: delete `found += [p or os.curdir for p in sys.path]` in
    `src/truegreen/guards/reads.py`. Restored."""
    site = machine.home / ".local" / "venvs" / "proj" / "lib"
    data = site / "pkg" / "templates" / "page.html"
    sys.path.append(str(site))
    try:
        assert machine.read(machine.guard(), data) == []
    finally:
        sys.path.remove(str(site))
    # the session's paths, handed to a child through the policy, count as well
    guard = machine.guard(python_paths=(str(site),))
    assert machine.read(guard, data) == []
    assert machine.read(guard, machine.home / ".netrc") != []  # premise: the home is watched


def test_the_home_on_sys_path_lets_through_only_what_imports_read(machine: Machine) -> None:
    """``python -m pytest`` run from the home puts the home on sys.path: its modules import,
    its dotfiles stay outside.

    Ablation: replace `p not in broad` with `True` in `src/truegreen/guards/reads.py`.
    Restored."""
    guard = machine.guard(python_paths=(str(machine.home), str(machine.workspace)))
    assert machine.read(guard, machine.home / "helper.py") == []
    assert machine.read(guard, machine.home / ".pypirc") == [
        f"{machine.home}/.pypirc (under the real home)"
    ]
    assert machine.read(guard, machine.workspace / ".env") == [
        f"{machine.workspace}/.env (in a directory above the rootdir)"
    ]


def test_the_data_of_an_imported_package_stays_inside(machine: Machine) -> None:
    """An editable install found by a meta-path finder is on no sys.path entry: the package's
    own directory tells that its data is Python's.

    Ablation: replace `folder in packages` with `False` in
    `src/truegreen/guards/reads.py`. Restored."""
    package = machine.home / "src" / "sibling" / "sibling"
    module = type(sys)("tg_test_sibling")
    module.__path__ = [str(package)]  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        assert machine.read(machine.guard(), package / "data" / "table.csv") == []
    finally:
        del sys.modules[module.__name__]
    assert machine.read(machine.guard(), package / "data" / "table.csv") != []  # premise


def test_allow_reads_a_directory_and_one_file_a_test(machine: Machine) -> None:
    target = machine.home / ".config" / "tool" / "settings.toml"
    glob = str(machine.home / ".config" / "tool" / "*").replace(os.sep, "/")
    assert machine.read(machine.guard(read_globs=(glob,)), target) == []
    guard = machine.guard()
    reads = ReadGuard(guard)
    for _ in range(3):
        reads(str(target))
    assert len(guard.violations) == 1


def test_opening_a_directory_is_no_file_read_but_probing_a_missing_file_is(
    machine: Machine,
) -> None:
    """A missing rc file is a read too: on a developer's machine it is there."""
    guard = machine.guard()
    (machine.home / ".config").mkdir()
    ReadGuard(guard)(str(machine.home / ".config"))
    assert guard.violations == []
    ReadGuard(guard)(str(machine.home / ".toolrc"))
    assert [v.target for v in guard.violations] == [f"{machine.home}/.toolrc (under the real home)"]


def test_ancestors_stop_at_the_root() -> None:
    assert ancestors(f"{os.sep}a{os.sep}b") == {f"{os.sep}a", os.sep}


def test_the_read_guard_alone_listens_to_opens() -> None:
    """Ablation: replace `guard.notes_reads or guard.policy.reads != "off"` with
    `guard.notes_reads` in `src/truegreen/guards/active.py`. Restored."""
    guard = Guard(Policy(writes="off", reads="warn", run_dir=""), role="session")
    assert "open" in listeners_for(guard)
    off = Guard(Policy(writes="off", reads="off", run_dir=""), role="session")
    assert "open" not in listeners_for(off)  # premise: nothing else wants them here
