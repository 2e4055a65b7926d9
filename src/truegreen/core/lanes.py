"""Which test files an OS lane must import, read from the source without importing it."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional

from truegreen.core.platforms import Marker, PlatformSpecError


@dataclass(frozen=True)
class FileMarkers:
    """The ``platforms`` markers one test file carries, as far as its source tells."""

    markers: tuple[Marker, ...] = ()
    problems: tuple[str, ...] = field(default=())  # markers that cannot be read or are wrong

    def reaches(self, os_name: str, arch: Optional[str] = None, *, unmarked: bool) -> bool:
        """Whether the lane must import this file: a marker reaches it, a marker cannot be
        read (the lane must see its collection error), or, with ``unmarked``, it has none."""
        if self.problems:
            return True
        if not self.markers:
            return unmarked
        return any(marker.reaches(os_name, arch) for marker in self.markers)


def _is_platforms_call(node: ast.AST) -> bool:
    """``pytest.mark.platforms(...)`` or ``mark.platforms(...)``."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if node.func.attr != "platforms":
        return False
    owner = node.func.value
    return (isinstance(owner, ast.Attribute) and owner.attr == "mark") or (
        isinstance(owner, ast.Name) and owner.id == "mark"
    )


def read_markers(source: str, filename: str = "<test file>") -> FileMarkers:
    """Every ``platforms`` marker call in ``source``, resolved from literals only."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        problem = (
            f"{filename}:{exc.lineno or 1}: not valid Python ({exc.msg}): listed, so the lane fails"
        )
        return FileMarkers(problems=(problem,))
    except (RecursionError, MemoryError, ValueError) as exc:  # nested too deeply; a NUL byte
        why = "nested too deeply to parse" if not isinstance(exc, ValueError) else str(exc)
        return FileMarkers(
            problems=(f"{filename}: not valid Python ({why}): listed, so the lane fails",)
        )
    markers, problems = [], []
    for node in ast.walk(tree):
        if not _is_platforms_call(node):
            continue
        assert isinstance(node, ast.Call)
        where = f"{filename}:{node.lineno}"
        try:
            args = [ast.literal_eval(arg) for arg in node.args]
            kwargs = {str(kw.arg): ast.literal_eval(kw.value) for kw in node.keywords}
            if any(kw.arg is None for kw in node.keywords):
                raise ValueError("**kwargs")
        except ValueError:
            problems.append(
                f"{where}: a platforms marker whose arguments are not literals: listed, since "
                "only running it can tell"
            )
            continue
        unknown = set(kwargs) - {"arch"}
        try:
            if unknown:
                raise PlatformSpecError(f"platforms: unknown argument {sorted(unknown)[0]!r}")
            markers.append(Marker.from_args(args, kwargs.get("arch")))
        except PlatformSpecError as exc:
            problems.append(f"{where}: {exc}: listed, so the lane reports the collection error")
    return FileMarkers(tuple(markers), tuple(problems))
