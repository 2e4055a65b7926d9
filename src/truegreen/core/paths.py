"""Which writes leak: a path under a protected root (the real home, the project tree)
that no allowed root, tool cache or ``allow-writes`` glob covers.

Imported by every guarded child process at start-up, so it stays free of heavy imports.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Optional

# Tool caches a test run legitimately writes anywhere in the tree.
CACHE_PARTS = frozenset(
    {
        ".pytest_cache",
        "__pycache__",
        ".hypothesis",
        ".mypy_cache",
        ".ruff_cache",
        ".truegreen_cache",
    }
)


# pytest (8.1 on) makes its cache directory in a temporary directory beside it, named with
# this prefix, and renames that into place: the first ``config.cache`` use inside a test
# (pytest-xprocess's session fixture) writes there.
PYTEST_CACHE_STAGING = "pytest-cache-files-"


def is_tool_cache(part: str) -> bool:
    """Whether one path component is a tool cache (coverage.py's data files included,
    ``.coverage`` and ``.coverage.<host>.<pid>``; ``.coveragerc`` is configuration), or the
    directory pytest stages its cache in."""
    return (
        part in CACHE_PARTS
        or part == ".coverage"
        or part.startswith((".coverage.", PYTEST_CACHE_STAGING))
    )


class Roots:
    """Real (resolved) paths: what is protected, what is allowed, and the allowed globs."""

    __slots__ = ("allowed", "globs", "protected", "sep")

    def __init__(
        self,
        protected: tuple[tuple[str, str], ...],
        allowed: tuple[str, ...] = (),
        globs: tuple[str, ...] = (),
        sep: str = os.sep,
    ) -> None:
        self.protected = protected  # (label, path), e.g. ("home", "/home/dev"); home first
        self.allowed = allowed
        self.globs = globs  # absolute, '/'-separated fnmatch patterns
        self.sep = sep

    def as_data(self) -> dict[str, object]:
        return {
            "protected": [list(p) for p in self.protected],
            "allowed": list(self.allowed),
            "globs": list(self.globs),
            "sep": self.sep,
        }

    @classmethod
    def from_data(cls, data: dict[str, object]) -> Roots:
        protected = data["protected"]
        assert isinstance(protected, list)
        return cls(
            protected=tuple((str(label), str(path)) for label, path in protected),
            allowed=tuple(str(a) for a in data["allowed"]),  # type: ignore[attr-defined]
            globs=tuple(str(g) for g in data["globs"]),  # type: ignore[attr-defined]
            sep=str(data["sep"]),
        )


def under(path: str, root: str, sep: str = os.sep) -> bool:
    """Whether ``path`` is ``root`` or lies below it (both already normalised)."""
    return path == root or path.startswith(root if root.endswith(sep) else root + sep)


def leaked_into(path: str, roots: Roots) -> Optional[str]:
    """The label of the protected root a write to ``path`` leaks into, or None.

    The most specific root decides: the system temp directory may contain the project
    (a project checked out under /tmp stays protected), and pytest's basetemp may lie
    inside the project (it stays allowed).
    """
    best: Optional[tuple[str, str]] = None
    for label, root in roots.protected:  # on a tie the later root wins: list home first
        if under(path, root, roots.sep) and (best is None or len(root) >= len(best[1])):
            best = (label, root)
    if best is None:
        return None
    label, root = best
    if any(under(path, a, roots.sep) and len(a) >= len(root) for a in roots.allowed):
        return None
    if any(is_tool_cache(p) for p in path[len(root) :].split(roots.sep)):
        return None
    if roots.globs:
        from fnmatch import fnmatchcase

        slashed = path.replace(roots.sep, "/")
        # "build/*" also covers making the directory "build" itself.
        if any(fnmatchcase(slashed, g) or fnmatchcase(slashed + "/", g) for g in roots.globs):
            return None
    return label


def absolute_globs(globs: tuple[str, ...], *, project: str, home: str) -> tuple[str, ...]:
    """``allow-writes`` globs made absolute: ``~/x`` under the real home, others under the
    project root."""
    result = []
    for glob in globs:
        if glob.startswith("~/") or glob == "~":
            base, rest = home, glob[2:]
        elif os.path.isabs(glob):
            base, rest = "", glob
        else:
            base, rest = project, glob
        full = os.path.join(base, rest) if base else rest
        result.append(full.replace(os.sep, "/"))
    return tuple(result)
