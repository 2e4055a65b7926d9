"""What a guard raises when it stops a call on the spot; each refines the builtin it stands for.

They survive pickling (xdist sends exceptions between processes) because
``__reduce__`` rebuilds them from their message alone.
"""

from __future__ import annotations

import errno


class _Blocked(OSError):
    """One message, rebuilt from it when unpickled."""

    refused_by_truegreen = True  # what the audit hook looks for (it imports no module)

    def __init__(self, message: str) -> None:
        super().__init__(errno.EACCES, message)
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[type[_Blocked], tuple[str]]:
        return (type(self), (self.message,))


class WriteBlocked(_Blocked, PermissionError):
    """A write under the real home or the project tree, refused under ``writes = "block"``."""


class NetworkBlocked(_Blocked, ConnectionRefusedError):
    """A connection or name lookup the network guard refused before any packet left."""


class ProgramDenied(_Blocked, PermissionError):
    """A program listed in ``deny-programs``, refused before it started."""
