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
        "home_writes",
        "network",
        "python_paths",
        "read_globs",
        "read_homes",
        "read_projects",
        "reads",
        "root_pid",
        "roots",
        "run_dir",
        "tree_writes",
    )

    def __init__(
        self,
        *,
        writes: Optional[str] = None,  # both places at once
        home_writes: str = "block",  # off | warn | fail | block
        tree_writes: str = "fail",  # off | warn | fail | block
        reads: str = "off",  # off | warn | fail
        python_paths: tuple[str, ...] = (),
        read_globs: tuple[str, ...] = (),
        read_homes: tuple[str, ...] = (),
        read_projects: tuple[str, ...] = (),
        roots: Optional[Roots] = None,
        network: str = "owned",  # allow | loopback | owned | block
        allow_hosts: tuple[tuple[str, Optional[int]], ...] = (),
        deny_programs: frozenset[str] = frozenset(),
        root_pid: int = 0,
        run_dir: str = "",
    ) -> None:
        self.home_writes = writes or home_writes
        self.tree_writes = writes or tree_writes
        self.reads = reads
        # What the session's Python itself reads from (its prefixes, sys.path, site
        # packages): a child reads from them too, whatever its own interpreter.
        self.python_paths = python_paths
        self.read_globs = read_globs  # allow-reads, absolute, '/'-separated
        # The home and the project root as spelled before resolving symlinks (the roots hold
        # the real paths): the read guard's first look is lexical.
        self.read_homes = read_homes
        self.read_projects = read_projects
        self.roots = roots if roots is not None else Roots(protected=())
        self.network = network
        self.allow_hosts = allow_hosts
        self.deny_programs = deny_programs
        self.root_pid = root_pid
        self.run_dir = run_dir

    def dumps(self) -> bytes:
        return marshal.dumps(
            {
                "home_writes": self.home_writes,
                "tree_writes": self.tree_writes,
                "reads": self.reads,
                "python_paths": list(self.python_paths),
                "read_globs": list(self.read_globs),
                "read_homes": list(self.read_homes),
                "read_projects": list(self.read_projects),
                "roots": self.roots.as_data(),
                "network": self.network,
                "allow_hosts": [[host, port] for host, port in self.allow_hosts],
                "deny_programs": sorted(self.deny_programs),
                "root_pid": self.root_pid,
                "run_dir": self.run_dir,
            }
        )

    def write_mode(self, label: str) -> str:
        """The mode of writes under the protected root ``label`` ("home", "project"); a
        path truegreen cannot resolve follows the project tree's (it is never known to be
        under the home)."""
        return self.home_writes if label == "home" else self.tree_writes

    @property
    def writes_on(self) -> bool:
        return self.home_writes != "off" or self.tree_writes != "off"

    @classmethod
    def loads(cls, data: bytes) -> Policy:
        raw = marshal.loads(data)
        return cls(
            home_writes=raw["home_writes"],
            tree_writes=raw["tree_writes"],
            reads=raw["reads"],
            python_paths=tuple(raw["python_paths"]),
            read_globs=tuple(raw["read_globs"]),
            read_homes=tuple(raw["read_homes"]),
            read_projects=tuple(raw["read_projects"]),
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
