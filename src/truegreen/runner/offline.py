"""``truegreen run --offline``: this process, and every process it starts, in a network
namespace of its own with only loopback.

The kernel does it (``unshare(2)``), not a tool: a new user namespace, where an unprivileged
process may make a network namespace, maps the user to itself (util-linux's
``unshare --map-root-user`` would make every test run as root, where a permission test passes
that fails for the user), and the loopback interface is brought up before anything starts (a
new namespace has it down, and ``unshare --net`` leaves it so). Nothing that runs inside can
reach another machine, whatever it is written in: a C extension, ``curl``, a database driver.
"""

from __future__ import annotations

import os
import sys
from typing import Optional

from truegreen.core.errors import UsageError

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = "16sh22x"  # struct ifreq: the interface's name, then its flags (40 bytes)
_UNAVAILABLE = (
    "truegreen run --offline: this machine gives no network namespace to this user ({reason}: "
    "unprivileged user namespaces are off or restricted); run without --offline"
)


def unshare(flags: int) -> None:
    """``unshare(2)`` for this process: the one call that needs the kernel's consent."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def _loopback_up() -> None:
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack(_IFREQ, b"lo", 0)
        flags = struct.unpack(_IFREQ, fcntl.ioctl(sock, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))


def enter(platform: Optional[str] = None) -> None:
    """Move this process into a new network namespace with only loopback, up.

    Raises :class:`UsageError` (one line, exit 2) where the machine cannot: not Linux, or
    unprivileged user namespaces turned off. Call it before any thread or child starts.
    """
    platform = platform or sys.platform
    if not platform.startswith("linux"):
        raise UsageError(
            f"truegreen run --offline: network namespaces are Linux's; this is {platform}"
        )
    uid, gid = os.getuid(), os.getgid()
    try:
        unshare(CLONE_NEWUSER | CLONE_NEWNET)
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
        _write("/proc/self/gid_map", f"{gid} {gid} 1\n")
        _loopback_up()
    except OSError as exc:
        raise UsageError(_UNAVAILABLE.format(reason=exc.strerror or exc)) from None
