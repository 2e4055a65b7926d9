"""What tells a program which OS it runs on: the names the platform rules look for."""

from __future__ import annotations

import ast
import re
from typing import Optional

from truegreen.audit.base import FileContext

# Read as values (``sys.platform``) or called (``platform.system()``).
HOST_NAMES = frozenset(
    {
        "sys.platform",
        "os.name",
        "os.uname",
        "sys.getwindowsversion",
        "platform.system",
        "platform.platform",
        "platform.uname",
        "platform.release",
        "platform.version",
        "platform.machine",
        "platform.mac_ver",
        "platform.win32_ver",
        "platform.win32_edition",
        "platform.freedesktop_os_release",
    }
)

# Module-level flags projects derive from the above: IS_WINDOWS, ON_MACOS, RUNNING_ON_LINUX.
HOST_FLAG = re.compile(
    r"^_?(IS|ON|RUNNING_ON)_(WINDOWS|WIN32|WIN|MAC|MACOS|OSX|DARWIN|LINUX|POSIX)$"
)

PLATFORM_VALUES = frozenset(
    {"linux", "linux2", "darwin", "macos", "osx", "mac", "win32", "windows", "win", "nt",
     "posix", "cygwin", "freebsd"}
)  # fmt: skip


def host_name(ctx: FileContext, node: ast.AST) -> Optional[str]:
    """The host-OS name an expression reads, if it is one (``sys.platform``, ``IS_WINDOWS``)."""
    name = ctx.qualname(node)
    if name is None:
        return None
    if name in HOST_NAMES:
        return name
    last = name.rsplit(".", 1)[-1]
    return name if HOST_FLAG.match(last) else None


def mentions_host(ctx: FileContext, expr: ast.AST) -> Optional[str]:
    """The first host-OS name anywhere in an expression (a condition), or None."""
    for node in ast.walk(expr):
        if isinstance(node, (ast.Name, ast.Attribute)):
            found = host_name(ctx, node)
            if found is not None:
                return found
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            # pytest's string conditions: skipif("sys.platform == 'win32'")
            for candidate in ("sys.platform", "os.name", "platform.system"):
                if candidate in node.value:
                    return candidate
    return None
