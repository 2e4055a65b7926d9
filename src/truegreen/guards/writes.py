"""The write guard: writes under the real home or the project tree, seen at the C level,
each place with its own mode (``home-writes``, ``tree-writes``)."""

from __future__ import annotations

import os
import sys
from _thread import _local

from truegreen.core.paths import leaked_into

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Any, Callable, Optional

    from truegreen.guards.hook import Listener
    from truegreen.guards.runtime import Guard

_LABELS = {"home": "the real home", "project": "the project tree"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_RESHAPING = frozenset({"rename", "rename onto", "rmdir", "rmtree", "symlink"})
# Calls that act on a symlink at their path, not on what it points to: the link itself is
# what they write (or they fail), so the last component is not resolved.
_NOT_FOLLOWING = frozenset(
    {"mkdir", "remove", "rename", "rename onto", "rmdir", "rmtree", "symlink", "link"}
)
# An open that creates exclusively, or refuses a symlink, never writes through one.
_EXCLUSIVE = os.O_CREAT | os.O_EXCL
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _is_link(path: Any, dir_fd: Optional[int]) -> bool:
    """Whether removing ``path`` may change what another path resolves to (when unsure, yes)."""
    if isinstance(path, int) or (dir_fd is not None and dir_fd >= 0):
        return True
    return os.path.islink(path)


def fd_path(dir_fd: int) -> Optional[str]:
    """The directory a descriptor is open on (``shutil.rmtree`` reports names relative to one)."""
    try:
        if sys.platform.startswith("linux"):
            return os.readlink(f"/proc/self/fd/{dir_fd}")
        if sys.platform == "darwin":
            import fcntl

            raw = fcntl.fcntl(dir_fd, fcntl.F_GETPATH, b"\0" * 1024)  # type: ignore[attr-defined]
            return os.fsdecode(raw.rstrip(b"\0"))
    except OSError:
        return None
    return None


def resolve(path: Any, dir_fd: Optional[int] = None, follow: bool = True) -> Optional[str]:
    """The real path a call acts on, or None when it cannot be told; ``follow=False`` for a
    call that acts on a symlink at ``path`` itself (its directory is resolved, not its name)."""
    if isinstance(path, int):
        return None
    text = os.fsdecode(os.fspath(path))
    if dir_fd is not None and dir_fd >= 0 and not os.path.isabs(text):
        base = fd_path(dir_fd)
        if base is None:
            return f"<directory of descriptor {dir_fd}>{os.sep}{text}"
        text = os.path.join(base, text)
    if not follow:
        head, tail = os.path.split(text)
        if tail and tail not in (".", ".."):
            return os.path.join(os.path.realpath(head or os.curdir), tail)
    return os.path.realpath(text)


def sqlite_file(database: Any) -> Optional[str]:
    """The file ``sqlite3.connect(database)`` may write, or None: in memory (``:memory:``,
    ``file::memory:``, ``mode=memory``), read-only (``mode=ro``, ``immutable=1``), or a
    private temporary database (the empty name)."""
    if isinstance(database, int):
        return None
    text = os.fsdecode(os.fspath(database))
    if text in ("", ":memory:"):
        return None
    if not text.startswith("file:"):
        return text
    # A URI (the event does not say whether ``uri=True`` was passed; a plain file named
    # "file:..." is rare enough to read as one).
    from urllib.parse import parse_qs, unquote

    rest, _, query = text[len("file:") :].partition("?")
    rest = rest.partition("#")[0]
    params = {key: values[-1] for key, values in parse_qs(query.partition("#")[0]).items()}
    if params.get("mode") in ("ro", "memory") or params.get("immutable") == "1":
        return None
    if rest.startswith("//"):  # file://host/path: only an empty host or localhost is local
        rest = "/" + rest[2:].partition("/")[2]
    path = unquote(rest)
    return None if path in ("", ":memory:") else path


def _read_check(guard: Guard) -> Optional[Callable[[Any], None]]:
    """The read guard's check, when its mode is not off."""
    if guard.policy.reads == "off":
        return None
    from truegreen.guards.reads import ReadGuard

    return ReadGuard(guard)


def reads_listener(guard: Guard) -> Listener:
    """Only the reads (the read guard's, the failure hints'), for when the write guard is off."""
    read_check = _read_check(guard)

    def on_open(args: tuple[Any, ...]) -> None:
        if args[2] & _WRITE_FLAGS:
            return
        if guard.home is not None:
            guard.note_read(args[0])
        if read_check is not None and guard.test is not None:
            read_check(args[0])

    return on_open


class Resolver:
    """:func:`resolve`, with the real path of each directory remembered: a suite that writes
    the same lock file 60,000 times (filelock's) would otherwise pay a ``realpath`` (about
    20 µs) for each. A directory's real path is its parent's and its own name unless it is
    a symlink itself: one ``lstat`` for a new ``tmp_path``, not a walk from the root.

    Whatever can turn a path into a symlink or change what one points to (a rename, rmdir,
    rmtree, symlink, or the removal of a symlink) forgets the directories at or under that
    path, and every directory whose real path went through a symlink. pytest replaces its
    ``<name>current`` symlink for every ``tmp_path``; forgetting everything then cost each
    test two walks.
    """

    LIMIT = 1024

    def __init__(self) -> None:
        self.directories: dict[str, str] = {}
        # Directories whose real path went through a symlink: any change may move them.
        self.linked: set[str] = set()

    def forget(self, path: Any = None, dir_fd: Optional[int] = None) -> None:
        """Forget what a change at ``path`` may move (everything, when ``path`` is None)."""
        if path is None or isinstance(path, int) or (dir_fd is not None and dir_fd >= 0):
            self.directories.clear()
            self.linked.clear()
            return
        text = os.fsdecode(os.fspath(path))
        head, tail = os.path.split(os.path.abspath(text))
        if not tail or ".." in text.split(os.sep):  # only realpath knows where ".." leads
            self.forget()
            return
        directories = self.directories
        for folder in self.linked:
            directories.pop(folder, None)
        self.linked.clear()
        # Every remembered directory below a real path has that path remembered too (each
        # is derived from its parent), so one lookup tells whether any lies below the change.
        real = os.path.join(self._real(head), tail)
        if real in directories:
            below = real + os.sep
            for folder in [f for f in directories if f == real or f.startswith(below)]:
                del directories[folder]

    def _real(self, folder: str) -> str:
        """The real path of an absolute, normalised directory path."""
        directories = self.directories
        real = directories.get(folder)
        if real is not None:
            return real
        pending = []  # (directory, name), deepest first, up to one remembered or the root
        while real is None:
            head, tail = os.path.split(folder)
            if not tail:
                real = os.path.realpath(folder)
                break
            pending.append((folder, tail))
            folder = head
            real = directories.get(folder)
        for folder, tail in reversed(pending):
            real = os.path.realpath(folder) if os.path.islink(folder) else os.path.join(real, tail)
            directories[folder] = real
            if real != folder:
                self.linked.add(folder)
        return real

    def __call__(
        self, path: Any, dir_fd: Optional[int] = None, follow: bool = True
    ) -> Optional[str]:
        """The real path a call acts on; ``follow=False`` for a call that acts on a symlink
        itself rather than on what it points to (``mkdir``, ``unlink``, ``rename``, an
        ``O_CREAT | O_EXCL`` open), whose last component then needs no look."""
        if isinstance(path, int) or (dir_fd is not None and dir_fd >= 0):
            return resolve(path, dir_fd, follow)
        text = path if type(path) is str else os.fsdecode(os.fspath(path))
        cut = text.rfind(_SEP)
        head, tail = text[:cut], text[cut + 1 :]
        # The fast path: a remembered directory (its key is absolute and normal) and a plain
        # last name, the usual write into a tmp_path.
        real = self.directories.get(head) if cut > 0 else None
        if real is not None and tail not in _DOTS:
            if not follow or not (_lexists(text) and os.path.islink(text)):
                return real + _SEP + tail
            return resolve(path)
        if not _CLEAN(text) or not head:
            head, tail = os.path.split(text)
            # ".." after a symlink means the symlink's parent: only realpath knows it
            if not tail or tail in (".", "..") or ".." in head.split(os.sep):
                return resolve(path, follow=follow)
            head = os.path.abspath(head)
        if follow and _lexists(text) and os.path.islink(text):
            return resolve(path)
        if len(self.directories) >= self.LIMIT:
            self.forget()
        return self._real(head) + _SEP + tail


def _clean(text: str) -> bool:
    """Whether ``text`` is absolute and already normal: no ``//``, ``/./`` or ``/../`` in it,
    nor a trailing separator (a hidden name also fails the test, and takes the long way)."""
    return (
        text.startswith(_SEP)
        and "//" not in text
        and _SEP + "." not in text
        and not text.endswith(_SEP)
        and (os.altsep is None or os.altsep not in text)
    )


_SEP = os.sep
_CLEAN = _clean
_DOTS = ("", ".", "..")


def _lexists(path: str) -> bool:
    """``os.path.lexists`` without the exception a missing path costs inside ``lstat``
    (decoding the error message alone is most of a failed call): most writes create."""
    return os.access(path, os.F_OK, follow_symlinks=False)


if os.access not in os.supports_follow_symlinks:  # pragma: no cover - not on Linux or macOS
    _lexists = os.path.lexists


# The directory descriptor of the os.open call in progress on this thread: its "open" audit
# event names the path alone, relative to a descriptor the event does not give.
_at = _local()
_os_open = os.open


def _open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: Optional[int] = None) -> int:
    if dir_fd is None:
        return _os_open(path, flags, mode)
    _at.dir_fd = dir_fd
    try:
        return _os_open(path, flags, mode, dir_fd=dir_fd)
    finally:
        _at.__dict__.pop("dir_fd", None)


_open.__doc__ = _os_open.__doc__


def wrap_open() -> None:
    """Let the write guard see the ``dir_fd`` of ``os.open`` (undone by :func:`unwrap_open`)."""
    if os.open is _os_open and _os_open in os.supports_dir_fd:
        os.open = _open
        os.supports_dir_fd.add(_open)  # shutil asks, as it is imported, to use rmtree's fd walk


def unwrap_open() -> None:
    if os.open is _open:
        os.open = _os_open
        os.supports_dir_fd.discard(_open)


def bound_to_fail(operation: str, path: Any, real: str) -> bool:
    """Whether the call cannot write anything: it acts on the empty path (ENOENT), makes a
    directory that exists (EEXIST), or opens a directory for writing (EISDIR). filelock's
    ``Path(name).parent.mkdir(exist_ok=True)`` does the second for every lock file."""
    if os.fspath(path) in ("", b""):
        return True
    if operation == "mkdir":
        return _lexists(real)
    return operation == "open for writing" and _lexists(real) and os.path.isdir(real)


def listeners(guard: Guard) -> dict[str, Listener]:
    """The audit events of the write guard, bound to ``guard``; its ``open`` listener also
    notes the reads the failure hints want."""
    policy = guard.policy
    roots = policy.roots
    modes = {"home": policy.home_writes, "project": policy.tree_writes, "": policy.tree_writes}
    resolver = Resolver()
    read_check = _read_check(guard)
    # A real path that neither is nor lies below a protected root leaks nowhere: one
    # ``startswith`` answers for the usual write (into a tmp_path outside the project).
    sep = roots.sep
    below = tuple(r if r.endswith(sep) else r + sep for _, r in roots.protected)
    exactly = frozenset(r for _, r in roots.protected)

    def check(
        operation: str, path: Any, dir_fd: Optional[int] = None, follow: Optional[bool] = None
    ) -> None:
        if guard.where is None or isinstance(path, int):
            return
        # Removing a symlink moves only directories remembered through a symlink (none, when
        # ``linked`` is empty: one remembered as a real directory cannot be unlinked).
        if operation in _RESHAPING or (
            operation == "remove" and resolver.linked and _is_link(path, dir_fd)
        ):
            resolver.forget(path, dir_fd)
        if follow is None:
            follow = operation not in _NOT_FOLLOWING
        real = resolver(path, dir_fd, follow)
        if real is None:
            return
        if real.startswith("<"):
            place: Optional[str] = ""
            label = "a directory truegreen cannot resolve"
        elif not real.startswith(below) and real not in exactly:
            return
        else:
            place = leaked_into(real, roots)
            label = _LABELS.get(place or "", "")
        if place is None:
            return
        mode = modes[place]
        if mode == "off" or bound_to_fail(operation, path, real):
            return
        block = mode == "block"
        violation = guard.report(
            "write", operation, f"{real} (under {label})", blocked=block, mode=mode
        )
        if block:
            if place == "home" and guard.on_refused is not None:
                guard.on_refused(real)
            from truegreen.guards.errors import WriteBlocked

            raise WriteBlocked(
                f"truegreen: {violation.where} may not {operation} {real}: it is under {label}. "
                "Write into tmp_path instead, or allow it deliberately with "
                "allow-writes = [...] in [tool.truegreen]"
            )

    def on_open(args: tuple[Any, ...]) -> None:
        path, _mode, flags = args
        dir_fd = _at.__dict__.pop("dir_fd", None)  # the event does not carry os.open's dir_fd
        if flags & _WRITE_FLAGS:
            follow = flags & _EXCLUSIVE != _EXCLUSIVE and not flags & _NOFOLLOW
            check("open for writing", path, dir_fd, follow)
            return
        if dir_fd is not None and not isinstance(path, int):
            path = resolve(path, dir_fd) or path
        if guard.home is not None:
            guard.note_read(path)
        if read_check is not None and guard.test is not None:
            read_check(path)

    def two(operation: str) -> Callable[[tuple[Any, ...]], None]:
        def on(args: tuple[Any, ...]) -> None:
            check(operation, args[0], args[1] if len(args) > 1 else None)

        return on

    def on_rename(args: tuple[Any, ...]) -> None:
        src, dst, src_fd, dst_fd = args
        check("rename", src, src_fd)
        check("rename onto", dst, dst_fd)

    def on_link(operation: str) -> Callable[[tuple[Any, ...]], None]:
        def on(args: tuple[Any, ...]) -> None:
            dir_fd = args[-1] if isinstance(args[-1], int) else None
            check(operation, args[1], dir_fd)

        return on

    def on_truncate(args: tuple[Any, ...]) -> None:
        check("truncate", args[0])

    def on_sqlite(args: tuple[Any, ...]) -> None:
        # sqlite opens its files in C, where no open event is raised: the connect is the write.
        path = sqlite_file(args[0])
        if path is not None:
            check("open sqlite database", path)

    return {
        "open": on_open,
        "os.mkdir": lambda args: check("mkdir", args[0], args[2]),
        "os.rename": on_rename,
        "os.remove": two("remove"),
        "os.rmdir": two("rmdir"),
        "shutil.rmtree": two("rmtree"),
        "os.symlink": on_link("symlink"),
        "os.link": on_link("link"),
        "os.truncate": on_truncate,
        "sqlite3.connect": on_sqlite,
    }
