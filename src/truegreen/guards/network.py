"""The network guard: nothing leaves the machine, and loopback only to listeners the run owns.

Every check happens in the audit hook, before the call: a blocked name lookup or
connection raises :class:`NetworkBlocked` and no packet is sent. Unix-domain sockets
are not network and pass (multiprocessing's forkserver talks over them).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    import socket
    from typing import Any, Optional

    from truegreen.guards.hook import Listener
    from truegreen.guards.runtime import Guard

_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


def _socket_constants() -> tuple[tuple[int, int], int]:
    """(AF_INET, AF_INET6), SOCK_DGRAM: read when a socket exists, so _socket is loaded."""
    from _socket import AF_INET, AF_INET6, SOCK_DGRAM

    return (int(AF_INET), int(AF_INET6)), int(SOCK_DGRAM)


ALLOW_DOCS = "allow-hosts = [...] in [tool.truegreen], or @pytest.mark.truegreen_network(...)"


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 (also IPv4-mapped), and the names that always mean them."""
    if host.lower() in _LOOPBACK_NAMES:
        return True
    if host.startswith("127.") and host.count(".") == 3 and host.replace(".", "").isdigit():
        return True
    import ipaddress

    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def is_own_name(host: str) -> bool:
    """Whether ``host`` is this machine's own name. ``socket.getfqdn()`` looks it up, and so
    does every tool that makes a default identity of user@host (Mercurial's username); the
    machine answers it itself (/etc/hosts, nss-myhostname), and a connection to the address it
    gives is still checked like any other."""
    from _socket import gethostname

    return host.lower() == gethostname().lower()


# What a host name is spelt with: letters, digits, dots, hyphens and underscores (and any
# non-ASCII letter, which the resolver sends encoded as IDNA).
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")


def is_no_host_name(host: str) -> bool:
    """Whether ``host`` can be neither a host name nor an address, so that a look-up of it
    fails on any machine, network or not (glibc and musl turn it away without sending a
    query). ``http.server`` serving a Unix socket looks up ``"/"``, the first character of
    its path, for its own name."""
    if all(c in _NAME_CHARS or c >= "\x80" for c in host):
        return False
    import ipaddress

    try:
        ipaddress.ip_address(host.split("%", 1)[0])  # an IPv6 address has colons
    except ValueError:
        return True
    return False


def _allowed(guard: Guard, host: str, port: Optional[int]) -> bool:
    for allowed_host, allowed_port in (*guard.policy.allow_hosts, *guard.extra_hosts):
        host_ok = allowed_host == "*" or allowed_host.lower() == host.lower()
        if host_ok and (allowed_port is None or port is None or allowed_port == port):
            return True
    return False


def _proc_listeners(protocol: str, port: int) -> set[str]:
    """Socket inodes listening on ``port`` (Linux /proc/net), any address."""
    inodes = set()
    wanted = f"{port:04X}"
    for table in (f"/proc/net/{protocol}", f"/proc/net/{protocol}6"):
        try:
            with open(table, encoding="ascii") as handle:
                next(handle)
                for line in handle:
                    fields = line.split()
                    local, state = fields[1], fields[3]
                    listening = state == "0A" if protocol == "tcp" else state == "07"
                    if listening and local.rsplit(":", 1)[1] == wanted:
                        inodes.add(fields[9])
        except (OSError, IndexError, StopIteration):
            continue
    return inodes


def owned_by_session(protocol: str, port: int, root: int) -> bool:
    """Whether a process of this session (``root`` or a descendant) listens on ``port``."""
    if not sys.platform.startswith("linux"):
        return False
    inodes = {f"socket:[{inode}]" for inode in _proc_listeners(protocol, port)}
    if not inodes:
        return False
    from truegreen.guards.procfs import descendants

    for pid in (root, *descendants(root)):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                    return True
            except OSError:
                continue
    return False


def _owned(guard: Guard, protocol: str, port: int) -> bool:
    key = (protocol, port)
    if key in guard.listening or key in guard.remote:
        return True
    guard.ingest()
    if key in guard.remote:
        return True
    return owned_by_session(protocol, port, guard.policy.root_pid or os.getpid())


def refusal(guard: Guard, host: str, port: Optional[int], protocol: str) -> Optional[str]:
    """Why the policy refuses reaching ``host:port`` now, or None when it allows it."""
    mode = guard.network_mode
    if guard.where is None or mode == "allow" or _allowed(guard, host, port):
        return None
    if not is_loopback(host):
        return "not a loopback address"
    if mode == "block":
        return "no connection is allowed, loopback included"
    if mode == "owned" and port and not _owned(guard, protocol, port):
        return "no listener started by this test session"
    return None


def listeners(guard: Guard) -> dict[str, Listener]:
    """The audit events of the network guard, bound to ``guard``."""

    def refuse(operation: str, host: str, port: Optional[int], why: str) -> None:
        target = f"{host}:{port}" if port is not None else host
        violation = guard.report("network", operation, f"{target} ({why})", blocked=True)
        from truegreen.guards.errors import NetworkBlocked

        raise NetworkBlocked(
            f"truegreen: {violation.where} may not {operation} {target}: {why} "
            f"(network = {guard.network_mode!r}). To allow it deliberately: {ALLOW_DOCS}"
        )

    def check(operation: str, host: str, port: Optional[int], protocol: str) -> None:
        why = refusal(guard, host, port, protocol)
        if why is not None:
            refuse(operation, host, port, why)

    def on_resolve(args: tuple[Any, ...]) -> None:
        host = args[0]
        if guard.where is None or guard.network_mode == "allow" or host in (None, b"", ""):
            return
        text = os.fsdecode(host) if isinstance(host, bytes) else str(host)
        port = args[1] if len(args) > 1 and isinstance(args[1], int) else None
        if is_loopback(text) or _allowed(guard, text, port) or is_own_name(text):
            return
        if not is_no_host_name(text):
            refuse("resolve", text, port, "not a loopback address")

    def on_address(operation: str) -> Listener:
        def on(args: tuple[Any, ...]) -> None:
            sock, address = args[0], args[1]
            inet, dgram = _socket_constants()
            if sock.family not in inet or not isinstance(address, tuple):
                return
            host = address[0]
            text = os.fsdecode(host) if isinstance(host, bytes) else str(host)
            protocol = "udp" if sock.type == dgram else "tcp"
            check(operation, text, address[1], protocol)

        return on

    return {
        "socket.getaddrinfo": on_resolve,
        "socket.gethostbyname": on_resolve,
        "socket.gethostbyname_ex": on_resolve,
        "socket.gethostbyaddr": on_resolve,
        "socket.connect": on_address("connect to"),
        "socket.sendto": on_address("send to"),
        "socket.sendmsg": on_address("send to"),
    }


def track_listeners(guard: Guard) -> Any:
    """Patch ``socket.socket.listen`` and ``bind`` to note the ports this process serves.

    Returns the originals, for :func:`untrack_listeners`.
    """
    import socket

    inet, dgram = _socket_constants()
    original_listen, original_bind = socket.socket.listen, socket.socket.bind

    def listen(self: socket.socket, *args: Any) -> None:
        original_listen(self, *args)
        if self.family in inet:
            guard.record_listener("tcp", self.getsockname()[1])

    def bind(self: socket.socket, address: Any) -> None:
        original_bind(self, address)
        if self.family in inet and self.type == dgram:
            guard.record_listener("udp", self.getsockname()[1])

    setattr(socket.socket, "listen", listen)  # noqa: B010 - a method of a builtin class
    setattr(socket.socket, "bind", bind)  # noqa: B010
    return original_listen, original_bind


def untrack_listeners(originals: Any) -> None:
    import socket

    setattr(socket.socket, "listen", originals[0])  # noqa: B010
    setattr(socket.socket, "bind", originals[1])  # noqa: B010
