"""TG601 call-outside-seam over its fixture project."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tests.audit.rules.harness import audit, marked_and_found, project
from truegreen.audit import registry
from truegreen.core.errors import ConfigError

SEAMS = {
    "subprocess": ["src/app/proc.py"],
    "environ": ["src/app/envvars.py"],
    "os.kill": ["src/app/process_host.py"],
}


def flagged(source: str, relpath: str = "src/app/new.py", **seams: Sequence[str]) -> list[str]:
    configured = project("TG601", settings={"seams": seams or SEAMS})
    return [f.message for f in audit(configured, "TG601", relpath, source)]


def test_it_flags_exactly_the_marked_uses() -> None:
    marked, found = marked_and_found(project("TG601", settings={"seams": SEAMS}), "TG601")
    assert marked, "the fixture project marks no line"
    assert found == marked


def test_it_is_opt_in_and_reads_only_source_files() -> None:
    rule = registry.rule("TG601")
    assert (rule.default, rule.kinds) == (False, frozenset({"source"}))


def test_it_names_the_seam_to_go_through() -> None:
    expected = [
        "subprocess.run outside the subprocess seam (src/app/proc.py): go through the seam, "
        "or mark the line `# truegreen: seam <reason>`"
    ]
    assert flagged("import subprocess\nsubprocess.run(['ls'])\n") == expected


def test_it_reports_a_marker_without_a_reason() -> None:
    expected = ["`# truegreen: seam` without a reason: say why this line may bypass it"]
    assert flagged("x = 1  # truegreen: seam\n") == expected


def test_a_marker_inside_a_string_does_not_allow_the_line() -> None:
    """Ablation: replace `token.type == tokenize.COMMENT` with `True` in
    `src/truegreen/audit/rules/call_outside_seam.py`."""
    source = "import os\nos.system('echo # truegreen: seam as text')\n"
    assert len(flagged(source)) == 1


def test_it_stays_silent_on_a_line_marked_with_a_reason() -> None:
    """Ablation: replace `self.marked.get(getattr(node, "lineno", 0))` with `False` in
    `src/truegreen/audit/rules/call_outside_seam.py`."""
    assert flagged("import os\nos.system('x')\n") != []  # premise
    assert flagged("import os\nos.system('x')  # truegreen: seam the installer shells out\n") == []


def test_it_stays_silent_in_the_seam_module_itself() -> None:
    """Ablation: replace `fnmatch.fnmatchcase(relpath, glob)` with `False` in
    `src/truegreen/audit/rules/call_outside_seam.py`."""
    source = "import os\nos.kill(1, 9)\n"
    assert flagged(source, "src/app/other.py") != []  # premise
    assert flagged(source, "src/app/process_host.py") == []


def test_it_stays_silent_on_a_variable_named_like_a_family_module() -> None:
    """Ablation: replace `root.id not in self.ctx.aliases` with `False` in
    `src/truegreen/audit/rules/call_outside_seam.py`."""
    imported = "import socket\nsocket.create_connection(('127.0.0.1', 1))\n"
    assert flagged(imported, socket=["src/app/net.py"]) != []  # premise
    local = "def send(socket):\n    socket.sendall(b'x')\n"
    assert flagged(local, socket=["src/app/net.py"]) == []


def test_it_stays_silent_on_a_dynamic_import_of_another_module() -> None:
    """Ablation: replace `{dotted} & self.imported[f]` with `{dotted}` in
    `src/truegreen/audit/rules/call_outside_seam.py`."""
    assert flagged("__import__('subprocess')\n") != []  # premise
    assert flagged("__import__('os')\n") == []


def test_it_leaves_test_files_alone() -> None:
    """Ablation: replace `frozenset({"source"})` with `frozenset({"source", "test"})` in
    `src/truegreen/audit/rules/call_outside_seam.py`."""
    source = "import os\nos.system('ls')\n"
    assert flagged(source, "src/app/other.py") != []  # premise
    assert flagged(source, "tests/test_app.py") == []


def test_it_refuses_seams_that_are_not_a_table() -> None:
    with pytest.raises(ConfigError, match=r"seams must be a table .* \(got \['subprocess'\]\)"):
        audit(project("TG601", settings={"seams": ["subprocess"]}), "TG601", "src/app/leaky.py")


def test_it_refuses_a_family_that_is_not_a_list_of_globs() -> None:
    with pytest.raises(ConfigError, match=r"seams\] environ must be a list of path globs .*'x'"):
        audit(project("TG601", settings={"seams": {"environ": "x"}}), "TG601", "src/app/leaky.py")


def test_it_stays_silent_on_an_annotation() -> None:
    """Ablation: replace `self._cover(annotation)` with `None` in
    `src/truegreen/audit/rules/call_outside_seam.py`."""
    assert flagged("import subprocess\nrunner = subprocess.Popen\n") != []  # premise
    annotated = "import subprocess\n\n\ndef wait(p: subprocess.Popen) -> subprocess.Popen:\n"
    assert flagged(annotated + "    return p\n") == []


def test_a_directory_glob_covers_the_modules_under_it() -> None:
    """Ablation: replace `fnmatch.fnmatchcase(relpath, glob + "/*")` with `False` in
    `src/truegreen/audit/rules/call_outside_seam.py`."""
    source = "import os\nos.kill(1, 9)\n"
    assert flagged(source, "src/app/host/kill.py", **{"os.kill": ["src/app/other"]}) != []
    assert flagged(source, "src/app/host/kill.py", **{"os.kill": ["src/app/host"]}) == []


def test_it_takes_globs_as_validated_settings_hold_them() -> None:
    """The audit's settings hold each family's globs as a tuple."""
    source = "import os\nos.kill(1, 9)\n"
    assert flagged(source, "src/app/host.py", **{"os.kill": ("src/app/host.py",)}) == []
    assert flagged(source, "src/app/other.py", **{"os.kill": ("src/app/host.py",)}) != []
