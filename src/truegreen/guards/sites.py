"""Which line of user code made a call: the first frame outside Python, truegreen and pytest."""

from __future__ import annotations

import os
import sys

import truegreen

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Optional


def _tools() -> tuple[str, ...]:
    prefixes = {os.path.dirname(truegreen.__file__) + os.sep}
    for name in ("_pytest", "pluggy", "pytest"):
        file = getattr(sys.modules.get(name), "__file__", None)
        if file:
            prefixes.add(os.path.dirname(file) + os.sep)
    return tuple(prefixes)


def _stdlib() -> tuple[str, ...]:
    # The directory of os.py holds the standard library's Python modules: what sysconfig
    # calls "stdlib", without the 2 ms its import and its paths cost a child at its first
    # record. A frozen application's os may have no file: then sysconfig says.
    where = getattr(os, "__file__", None)
    if where:
        return (os.path.join(os.path.dirname(where), ""),)
    import sysconfig

    paths = sysconfig.get_paths()
    return tuple({os.path.join(paths[k], "") for k in ("stdlib", "platstdlib") if paths.get(k)})


_TOOLS: tuple[str, ...] = ()
_STDLIB: tuple[str, ...] = ()
_SITE_PACKAGES = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


def _skip(name: str) -> bool:
    global _TOOLS, _STDLIB
    if not _STDLIB:  # worked out at the first violation, not at start-up
        _TOOLS, _STDLIB = _tools(), _stdlib()
    if name.startswith(("<frozen", "<__array_function__", *_TOOLS)):
        return True
    return name.startswith(_STDLIB) and not any(part in name for part in _SITE_PACKAGES)


def user_site(project: Optional[str] = None) -> str:
    """``file:line`` of the user code on the stack: inside ``project`` if any frame is."""
    frame = sys._getframe(1)
    first = None
    while frame is not None:
        name = frame.f_code.co_filename
        if not _skip(name):
            here = f"{name}:{frame.f_lineno}"
            if project is None or name.startswith(project):
                return here
            first = first or here
        frame = frame.f_back  # type: ignore[assignment]
    return first or "?"
