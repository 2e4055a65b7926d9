"""The guards' policy: plain data, written once per run for child processes to load.

The file is in ``marshal`` format: a builtin, so a child loads it without importing
anything at start-up.
"""

from __future__ import annotations

import marshal

from truegreen.core.paths import Roots

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Optional

# Child processes find their run directory through this (and their test through pytest's
# PYTEST_CURRENT_TEST).
RUN_VAR = "_TRUEGREEN_RUN"
POLICY_FILE = "policy.marshal"


class Policy:
    """What the guards enforce for one pytest session and its children."""

    __slots__ = (
        "allow_hosts",
        "deny_programs",
        "network",
        "root_pid",
        "roots",
        "run_dir",
        "writes",
    )

    def __init__(
        self,
        *,
        writes: str = "fail",  # off | warn | fail | block
        roots: Optional[Roots] = None,
        network: str = "owned",  # allow | loopback | owned | block
        allow_hosts: tuple[tuple[str, Optional[int]], ...] = (),
        deny_programs: frozenset[str] = frozenset(),
        root_pid: int = 0,
        run_dir: str = "",
    ) -> None:
        self.writes = writes
        self.roots = roots if roots is not None else Roots(protected=())
        self.network = network
        self.allow_hosts = allow_hosts
        self.deny_programs = deny_programs
        self.root_pid = root_pid
        self.run_dir = run_dir

    def dumps(self) -> bytes:
        return marshal.dumps(
            {
                "writes": self.writes,
                "roots": self.roots.as_data(),
                "network": self.network,
                "allow_hosts": [[host, port] for host, port in self.allow_hosts],
                "deny_programs": sorted(self.deny_programs),
                "root_pid": self.root_pid,
                "run_dir": self.run_dir,
            }
        )

    @classmethod
    def loads(cls, data: bytes) -> Policy:
        raw = marshal.loads(data)
        return cls(
            writes=raw["writes"],
            roots=Roots.from_data(raw["roots"]),
            network=raw["network"],
            allow_hosts=tuple((host, port) for host, port in raw["allow_hosts"]),
            deny_programs=frozenset(raw["deny_programs"]),
            root_pid=raw["root_pid"],
            run_dir=raw["run_dir"],
        )


def parse_host(text: str) -> tuple[str, Optional[int]]:
    """``127.0.0.1:5432`` -> ("127.0.0.1", 5432); ``[::1]`` -> ("::1", None)."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else None
    host, sep, port = text.rpartition(":")
    if sep and port.isdigit() and ":" not in host:
        return host, int(port)
    return text, None
