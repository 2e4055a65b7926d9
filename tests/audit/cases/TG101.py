import ast
import dataclasses
import inspect
import io
import json
import os
import re
import shutil
import unittest
from dataclasses import dataclass
from pathlib import Path

import attr
import pytest
from attr import make_class

import app
from app import spawn

ROOT = Path(__file__).resolve().parent.parent
SPAWN = ROOT / "src" / "app" / "spawn.py"
FIXTURES = ROOT / "tests" / "fixtures"


def test_reads_a_source_file_through_open():
    with open("src/app/spawn.py") as handle:  # expect: TG101
        assert "CREATE_NO_WINDOW" in handle.read()


def test_reads_a_source_file_in_binary():
    assert b"hide" in open("src/app/spawn.py", "rb").read()  # expect: TG101


def test_reads_a_module_level_path():
    assert "creationflags" in SPAWN.read_text()  # expect: TG101


def test_reads_a_path_built_with_slashes():
    text = (ROOT / "web" / "main.ts").read_text(encoding="utf-8")  # expect: TG101
    assert "spawn(" in text


def test_reads_a_tsx_file_through_a_local_name():
    page = Path(ROOT, "web", "page.tsx")
    assert "useEffect" in page.read_text()  # expect: TG101


def test_reads_a_js_file_through_joinpath():
    assert ROOT.joinpath("web", "app.js").read_bytes()  # expect: TG101


def test_reads_its_own_file():
    assert "def helper" in Path(__file__).read_text()  # expect: TG101


def test_reads_a_module_file():
    assert "import os" in Path(app.__file__).read_text()  # expect: TG101


def test_reads_a_file_named_by_inspect():
    assert "retry" in Path(inspect.getsourcefile(spawn)).read_text()  # expect: TG101


def test_gets_the_source_of_a_function():
    assert "windowsHide" in inspect.getsource(spawn.start)  # expect: TG101


def test_gets_the_source_of_a_function_a_call_returned():
    start = getattr(spawn, "start")
    assert "windowsHide" in inspect.getsource(start)  # expect: TG101


def test_reads_every_source_file():
    for path in sorted(ROOT.rglob("*.py")):
        assert "print(" not in path.read_text()  # expect: TG101


def test_opens_a_path_object():
    with SPAWN.open() as handle:  # expect: TG101
        assert handle.readline()


def test_reads_through_io_open():
    with io.open(os.path.join(ROOT, "src", "app", "spawn.py")) as handle:  # expect: TG101
        assert handle.read()


def test_reads_a_with_suffix_path():
    assert SPAWN.with_suffix(".py").read_text()  # expect: TG101


@pytest.fixture
def spawn_source():
    return SPAWN.read_text()  # expect: TG101


def test_matches_a_regex_on_the_source():
    source = SPAWN.read_text()  # expect: TG101
    lines = source.splitlines()
    assert re.search(r"spawn\(.*hidden", lines[3])


def test_parses_the_source_to_inspect_it():
    tree = ast.parse(Path("src/app/spawn.py").read_text())  # expect: TG101
    assert tree.body


class TestInUnittestStyle(unittest.TestCase):
    def test_the_text_in_an_assertion(self):
        self.assertIn("hide", inspect.getsource(spawn))  # expect: TG101

    def test_a_search_method(self):
        with open(__file__) as handle:  # expect: TG101
            text = handle.read()
        self.assertTrue(text.count("def ") > 3)


def test_writes_a_file_then_reads_the_project_source():
    target = ROOT / "src" / "app" / "spawn.py"
    out = ROOT / "build" / "spawn.py"
    out.write_text("x = 1\n")
    assert "spawn" in target.read_text()  # expect: TG101


def test_unpacks_the_project_roots():
    (src, _) = (ROOT / "src", ROOT / "tests")
    assert "def" in (src / "app" / "spawn.py").read_text()  # expect: TG101


def test_changes_into_the_project_before_reading(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert "spawn" in Path("src/app/spawn.py").read_text()  # expect: TG101


def test_a_membership_check_outside_an_assert():
    text = SPAWN.read_text()  # expect: TG101
    if "CREATE_NO_WINDOW" not in text:
        pytest.fail("the flag is gone")


# Look-alikes: data files, files the test wrote, writes, and code the test generates.


def test_reads_a_json_fixture():
    data = json.loads((FIXTURES / "catalog.json").read_text())
    assert data["models"]


def test_reads_a_text_file():
    with open("tests/fixtures/expected.txt") as handle:
        assert handle.read()


def test_reads_the_package_directory():
    assert (ROOT / "src").is_dir()


def test_writes_a_python_file(tmp_path):
    target = tmp_path / "generated.py"
    target.write_text("x = 1\n")
    with open(ROOT / "build" / "out.py", "w") as handle:
        handle.write("x = 1\n")


def test_reads_back_the_python_it_generated(tmp_path):
    module = tmp_path / "generated.py"
    generate(module)
    assert module.read_text() == "x = 1\n"


def test_reads_a_generated_project(tmp_path):
    project = make_project(tmp_path)
    assert (project / "app" / "core.py").read_bytes()


def test_pytester_writes_a_python_file(pytester):
    pytester.makepyfile(test_one="def test(): pass")
    assert (pytester.path / "test_one.py").read_text()


def test_opens_a_python_file_for_appending():
    with SPAWN.open("a") as handle:
        handle.write("# end\n")


def test_reads_the_readme():
    assert "truegreen" in (ROOT / "README.md").read_text()


def test_a_name_that_was_rebound_to_data(tmp_path):
    path = tmp_path / "module.py"
    assert path.read_text()


def test_an_unrelated_read_method(cache):
    assert cache.read_text("app.py") is None


def test_uses_its_own_file_as_any_open_file():
    with open(__file__, "rb") as handle:
        assert os.get_inheritable(handle.fileno()) is False


def test_compresses_source_files_as_data():
    for path in ROOT.glob("*.py"):
        with open(path, "rb") as handle:
            assert len(compress(handle.read())) > 0


def test_runs_the_source_it_reads():
    namespace = {}
    exec(compile(SPAWN.read_text(), str(SPAWN), "exec"), namespace)
    assert namespace["start"]


def test_reads_the_source_and_never_checks_it():
    text = SPAWN.read_text()
    assert runner.run(text) == 0


def test_reads_the_generated_init_of_a_class_it_defines():
    @dataclass
    class Point:
        x: int

    assert "self.x = x" in inspect.getsource(Point.__init__)


def test_compares_the_generated_inits_of_classes_a_factory_built():
    C1 = attr.make_class("C", {"x": attr.ib(validator=[])})
    C2 = make_class("C", {"x": attr.ib(validator=None)})
    assert inspect.getsource(C1.__init__) == inspect.getsource(C2.__init__)


def test_reads_the_generated_init_of_a_dataclass_it_builds():
    Point = dataclasses.make_dataclass("Point", ["x"])
    assert "self.x = x" in inspect.getsource(Point.__init__)


def test_reads_back_what_the_code_under_test_wrote(tmp_path):
    shutil.unpack_archive(SDIST, tmp_path / "src")
    (srcdir,) = (tmp_path / "src").iterdir()
    init: Path = Path("src", "pkg", "__init__.py")
    assert "__version__" in (srcdir / init).read_text()


def test_reads_back_every_unpacked_module(tmp_path):
    for wheel, info in unpack_all(tmp_path):
        assert "import" in (wheel / "pkg" / "_version.py").read_text()


def test_reads_back_a_file_it_wrote_in_a_workspace():
    with cache_dir() as workspace:
        path = (workspace / "file.py").resolve()
        path.write_text("print('hello')")
        invoke_formatter([str(path)])
        assert path.read_text() == 'print("hello")\n'


def test_reads_back_a_file_it_copied():
    copy = workspace_copy()
    shutil.copy(SPAWN, copy)
    assert "spawn" in copy.read_text()


def test_reads_a_relative_path_after_changing_into_tmp_path(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    run_generator()
    assert "x = 1" in Path("generated/module.py").read_text()


def test_reads_a_relative_path_in_an_isolated_filesystem(runner):
    with runner.isolated_filesystem():
        runner.invoke(cli, ["init"])
        with open("setup.py") as handle:
            assert "setup(" in handle.read()


def test_reads_a_completion_script_installed_in_the_home_directory():
    install_completion()
    script = Path.home() / ".zfunc/_tool.py"
    assert "compdef" in script.read_text()


def test_reads_a_script_under_an_expanded_home():
    assert "compdef" in open(os.path.expanduser("~/.zfunc/_tool.py")).read()
    assert "compdef" in Path("~/.zfunc/_tool.py").expanduser().read_text()


def test_reads_a_source_file_under_the_working_directory():
    assert "spawn(" in (Path.cwd() / "src/app/spawn.py").read_text()  # expect: TG101


def test_reads_a_source_file_through_a_no_op_expanduser():
    assert "spawn(" in open(os.path.expanduser("src/app/spawn.py")).read()  # expect: TG101


def helper():
    pass
