import os
import subprocess
import subprocess as sp
from subprocess import check_output

import pytest


def test_first_line_of_run_stdout():
    result = subprocess.run(["app", "--version"], capture_output=True, text=True)
    assert result.stdout.splitlines()[0] == "app 1.2"  # expect: TG103


def test_first_line_of_stderr_split():
    result = sp.run(["app"], capture_output=True, text=True)
    assert result.stderr.split("\n")[0].startswith("error")  # expect: TG103


def test_first_line_of_check_output():
    out = check_output(["app", "--help"]).decode()
    assert out.splitlines()[0] == "usage: app"  # expect: TG103


def test_first_line_through_a_strip():
    assert subprocess.check_output(["app"], text=True).strip().split("\n")[0]  # expect: TG103


def test_first_line_through_a_list_of_lines():
    result = subprocess.run(["app"], capture_output=True, text=True)
    lines = result.stdout.splitlines()
    assert lines[0] == "ready"  # expect: TG103


def test_first_line_of_capsys(capsys):
    main(["--version"])
    assert capsys.readouterr().out.splitlines()[0] == "1.2"  # expect: TG103


def test_first_line_of_captured_err(capsys):
    main([])
    captured = capsys.readouterr()
    assert captured.err.partition("\n")[0] == "usage"  # expect: TG103


def test_first_line_of_unpacked_capture(capfd):
    main([])
    out, err = capfd.readouterr()
    assert out.split(os.linesep)[0] == "ok"  # expect: TG103


def test_first_line_of_a_fixture_result(run):
    result = run(["app"])
    assert result.stdout.splitlines()[0] == "ok"  # expect: TG103


def test_first_line_of_click_output():
    result = runner.invoke(cli, ["--version"])
    assert result.output.splitlines()[0] == "1.2"  # expect: TG103


def test_first_line_of_pytester(pytester):
    result = pytester.runpytest("-q")
    assert result.outlines[0] == "collected"  # expect: TG103
    assert result.stdout.lines[0] == "x"  # expect: TG103
    assert result.stdout.str().splitlines()[0] == "x"  # expect: TG103


def test_first_line_of_communicate():
    process = subprocess.Popen(["app"], stdout=subprocess.PIPE, text=True)
    out, _ = process.communicate()
    assert out.splitlines()[0] == "ok"  # expect: TG103


def test_first_line_of_a_pipe():
    process = subprocess.Popen(["app"], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readlines()[0] == "ok\n"  # expect: TG103


# Look-alikes: text that is not a program's output, other lines, other separators.


def test_first_line_of_a_file(tmp_path):
    text = (tmp_path / "notes.txt").read_text()
    assert text.splitlines()[0] == "title"


def test_first_field_of_a_line():
    result = subprocess.run(["app"], capture_output=True, text=True)
    assert result.stdout.split(",")[0] == "name"


def test_last_line_of_output():
    result = subprocess.run(["app"], capture_output=True, text=True)
    assert result.stdout.splitlines()[-1] == "done"


def test_scans_for_the_marker():
    result = subprocess.run(["app"], capture_output=True, text=True)
    assert "app 1.2" in result.stdout.splitlines()


def test_first_line_of_a_literal():
    assert "a\nb".split("\n")[0] == "a"


def test_first_element_of_a_result_list():
    results = compute()
    assert results[0] == 1


def test_first_line_of_a_docstring():
    assert main.__doc__.splitlines()[0] == "Run the app."


def test_the_first_argument_of_a_run(mock_run):
    assert mock_run.call_args[0] == (["app"],)


def test_a_model_output(model):
    assert model.output.splitlines()[0] == "x"


def test_a_name_rebound_to_other_text():
    out = subprocess.check_output(["app"], text=True)
    out = "fixed\ntext"
    assert out.splitlines()[0] == "fixed"


def test_sys_stdout_is_a_stream(capsys):
    assert sys.stdout.readlines()[0]
