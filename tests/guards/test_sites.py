"""A record names the user's line: the first frame outside Python's library and the tools."""

from __future__ import annotations

import functools
import os
import sys
import sysconfig

import pytest

from truegreen.guards import sites


def test_the_standard_library_is_the_directory_of_os_py() -> None:
    (found,) = sites._stdlib()
    assert os.path.samefile(found, sysconfig.get_paths()["stdlib"])


def test_without_a_file_for_os_sysconfig_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frozen application's ``os`` may have no ``__file__``."""
    monkeypatch.delattr(os, "__file__")
    found = sites._stdlib()
    assert any(os.path.samefile(f, sysconfig.get_paths()["stdlib"]) for f in found)


def test_a_call_made_from_the_standard_library_is_charged_to_the_users_line() -> None:
    """``singledispatch``'s wrapper (functools.py, pure Python) calls ``user_site``: the line
    named is the one here that called the wrapper.

    Ablation: replace `(os.path.join(os.path.dirname(where), ""),)` with `()` in
    `src/truegreen/guards/sites.py` (the line named is functools.py's).
    """
    dispatched = functools.singledispatch(sites.user_site)
    assert dispatched.__code__.co_filename == functools.__file__  # the premise: a library frame
    line = sys._getframe().f_lineno + 1
    found = dispatched(None)
    assert found == f"{__file__}:{line}"
