import os
import subprocess
import tempfile
from pathlib import Path


def test_path_in_a_programs_output(tmp_path):
    worktree = tmp_path / "work_tree"
    res = subprocess.run(["git", "worktree", "list"], capture_output=True, text=True)
    assert str(worktree) in res.stdout  # expect: TG106


def test_path_equal_to_check_output(tmp_path):
    out = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], cwd=tmp_path, text=True)
    assert out.strip() == str(tmp_path)  # expect: TG106


def test_f_string_of_a_path(tmp_path):
    proc = subprocess.run(["ls", "-d", str(tmp_path / "x")], capture_output=True, text=True)
    assert proc.stdout == f"{tmp_path}/x\n"  # expect: TG106


def test_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert os.getcwd() == str(tmp_path)  # expect: TG106
    assert str(Path.cwd()) == os.fspath(tmp_path)  # expect: TG106


def test_text_held_in_a_name(tmpdir):
    expected = str(tmpdir.join("a"))
    out, _ = subprocess.Popen(["pwd"], stdout=subprocess.PIPE, text=True).communicate()
    assert expected in out  # expect: TG106


def test_startswith(tmp_path):
    out = subprocess.getoutput("git rev-parse --git-dir")
    assert out.startswith(tmp_path.as_posix())  # expect: TG106


def test_a_tempfile_directory():
    with tempfile.TemporaryDirectory() as d:
        out = subprocess.check_output(["pwd"], cwd=d, text=True)
        assert out.strip() == os.path.join(d)  # expect: TG106


def test_resolved_on_both_sides(tmp_path):
    out = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], cwd=tmp_path, text=True)
    assert Path(out.strip()).resolve() == tmp_path.resolve()
    assert out.strip() == str(tmp_path.resolve())


def test_the_products_own_message(tmp_path):
    try:
        load(tmp_path)
    except ValueError as error:
        assert str(error) == f"{tmp_path} is not a project"


def test_a_path_that_is_not_temporary(project_dir):
    out = subprocess.check_output(["pwd"], cwd=project_dir, text=True)
    assert out.strip() == str(project_dir)


def test_output_of_the_product_in_process(tmp_path, capsys):
    show(tmp_path)
    assert str(tmp_path) in capsys.readouterr().out


def test_a_name_rebound(tmp_path):
    out = subprocess.check_output(["pwd"], cwd=tmp_path, text=True)
    out = render(tmp_path)
    assert str(tmp_path) in out
