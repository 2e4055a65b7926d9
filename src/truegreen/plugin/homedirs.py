"""platformdirs, redirected under the test's home by patching its properties, not the environment.

On Windows platformdirs asks the shell for known folders and ignores the environment, so
setting ``APPDATA`` would leave the real profile in reach. Every ``user_*`` property of
``platformdirs.PlatformDirs`` is wrapped once per session; while a test runs, a result that
lies under the real home is moved to the same place under the test's home, and one under the
real runtime directory (``/run/user/1000``) is moved under ``<home>/.outside-home``. Any
other result is where the test itself pointed platformdirs (an ``XDG_*`` variable set to its
``tmp_path``, a mocked uid) and is left there.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from typing import Any, Optional, Union

OUTSIDE = ".outside-home"


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory + os.sep)


def _runtime_dirs() -> tuple[str, ...]:
    """This user's runtime directories, as platformdirs finds them on POSIX (on Windows they
    lie under the home). Computed here: asking platformdirs would warn, or create one."""
    found = [os.environ.get("XDG_RUNTIME_DIR", "")]
    getuid = getattr(os, "getuid", None)
    if getuid is not None:
        uid = getuid()
        found += [f"/run/user/{uid}", f"/var/run/user/{uid}", f"/tmp/runtime-{uid}"]
    return tuple(os.path.normcase(os.path.abspath(d)) for d in found if d)


class PlatformdirsRedirect:
    """Wraps platformdirs' user directories; passes through when no test is sealed."""

    def __init__(self, real_home: str) -> None:
        self.real_home = os.path.normcase(os.path.abspath(real_home))
        self.real_runtime = _runtime_dirs()
        self.basetemp = ""  # pytest's, once the first home is made under it
        self.current: Optional[str] = None
        self.session: Optional[str] = None  # the process seal's home, between tests
        self._saved: dict[str, Any] = {}
        self._cls: Optional[type] = None
        self._finder: Optional[_OnImport] = None

    def rebase(self, value: Union[str, Path], home: str) -> Union[str, Path]:
        """Where ``value`` lands under ``home``: the same path relative to the real home."""
        text = os.path.abspath(str(value))
        folded = os.path.normcase(text)
        if folded == os.path.normcase(home) or folded.startswith(os.path.normcase(home) + os.sep):
            return value
        in_home = _within(folded, self.real_home)
        # The test's own tmp_path stays; the most specific place decides, as for the guards.
        in_tmp = bool(self.basetemp) and _within(folded, self.basetemp)
        if in_tmp and (not in_home or len(self.basetemp) > len(self.real_home)):
            return value
        if in_home:
            moved = home + text[len(self.real_home) :]
        elif not any(_within(folded, d) for d in self.real_runtime):
            return value  # where the test itself pointed platformdirs
        else:
            drive, rest = os.path.splitdrive(text)
            moved = os.path.join(home, OUTSIDE, drive.strip(":\\/"), rest.lstrip("\\/"))
        return Path(moved) if isinstance(value, Path) else moved

    def _wrap(self, original: property) -> property:
        getter = original.fget
        assert getter is not None

        def get(obj: object) -> Any:
            value = getter(obj)
            home = self.current or self.session
            if home is None or not isinstance(value, (str, Path)):
                return value
            return self.rebase(value, home)

        return property(get, doc=original.__doc__)

    def install(self) -> bool:
        """Patch platformdirs if it is installed; False when it is not.

        Not imported for this: most suites never import it, and importing it cost every
        run a few milliseconds at start-up. When it is not imported yet, it is patched as it
        is first imported (:class:`_OnImport`), before any code can use it.
        """
        found = sys.modules.get("platformdirs")
        if found is not None:
            self.patch(found)
            return True
        if importlib.util.find_spec("platformdirs") is None:
            return False
        self._finder = _OnImport(self)
        sys.meta_path.insert(0, self._finder)
        return True

    def patch(self, platformdirs: Any) -> None:
        """Wrap the ``user_*`` properties of ``platformdirs.PlatformDirs``."""
        if self._cls is not None:
            return
        cls = platformdirs.PlatformDirs
        for name in dir(cls):
            attr = inspect.getattr_static(cls, name)
            if name.startswith("user_") and isinstance(attr, property):
                self._saved[name] = cls.__dict__.get(name)
                setattr(cls, name, self._wrap(attr))
        self._cls = cls

    def uninstall(self) -> None:
        finder, self._finder = self._finder, None
        if finder is not None:
            finder.leave()
        cls, self._cls = self._cls, None
        if cls is None:
            return
        for name, original in self._saved.items():
            if original is None:
                delattr(cls, name)
            else:
                setattr(cls, name, original)
        self._saved.clear()


class _OnImport:
    """First on ``sys.meta_path`` until platformdirs is imported: it finds platformdirs' own
    spec and patches the module as soon as the module has run, then leaves."""

    def __init__(self, redirect: PlatformdirsRedirect) -> None:
        self.redirect = redirect

    def leave(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "platformdirs":
            return None
        self.leave()
        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        if spec is None or loader is None or not hasattr(loader, "exec_module"):
            return spec
        spec.loader = _Patching(loader, self.redirect)
        return spec


class _Patching(importlib.abc.Loader):
    """platformdirs' own loader, then the patch."""

    def __init__(self, loader: Any, redirect: PlatformdirsRedirect) -> None:
        self.loader = loader
        self.redirect = redirect

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        self.redirect.patch(module)
