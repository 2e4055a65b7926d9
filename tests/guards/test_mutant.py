"""The mutant import hook serves several files from one spec (an `ablate --discover` batch),
and a switch turns one claim on at a time."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

from truegreen.guards import mutant


def test_one_spec_serves_several_files_from_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file the spec names is served as the spec has it, none read from disk. (No
    ablation record: the shim imports this module before any mutant can be served.)"""
    package = tmp_path / "tg_mutant_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "first.py").write_text("VALUE = 'disk'\n")
    (package / "second.py").write_text("VALUE = 'disk'\n")
    spec = str(tmp_path / "spec.marshal")
    mutant.write_spec(spec, str(package / "first.py"), "VALUE = 'first'\n",
                      {str(package / "second.py"): "VALUE = 'second'\n"})  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(mutant.MUTANT_VAR, spec)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    for name in ("tg_mutant_pkg", "tg_mutant_pkg.first", "tg_mutant_pkg.second"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert (package / "second.py").read_text() == "VALUE = 'disk'\n"  # premise: on disk
    assert mutant.install_from_environment()
    assert importlib.import_module("tg_mutant_pkg.first").VALUE == "first"
    assert importlib.import_module("tg_mutant_pkg.second").VALUE == "second"


def test_a_switch_is_on_here_and_in_the_children_started_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(mutant.ACTIVE_VAR, raising=False)
    try:
        mutant.switch(3)
        assert mutant.on(3)
        assert not mutant.on(2)
        assert os.environ[mutant.ACTIVE_VAR] == "3"
    finally:
        mutant.switch(0)
    assert not mutant.on(3)
    assert mutant.ACTIVE_VAR not in os.environ
