"""platformdirs, redirected under the test's home by patching its properties, not the environment.

On Windows platformdirs asks the shell for known folders and ignores the
environment, so setting ``APPDATA`` would leave the real profile in reach
(doctrine 000). Every ``user_*`` property of ``platformdirs.PlatformDirs`` is
wrapped once per session; while a test runs, a result that lies under the real
home is moved to the same place under the test's home, and one that lies
elsewhere (a runtime directory) is moved under ``<home>/.outside-home``.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
from pathlib import Path
from typing import Any, Optional, Union

OUTSIDE = ".outside-home"


class PlatformdirsRedirect:
    """Wraps platformdirs' user directories; passes through when no test is sealed."""

    def __init__(self, real_home: str) -> None:
        self.real_home = os.path.normcase(os.path.abspath(real_home))
        self.current: Optional[str] = None
        self._saved: dict[str, Any] = {}
        self._cls: Optional[type] = None

    def rebase(self, value: Union[str, Path], home: str) -> Union[str, Path]:
        """Where ``value`` lands under ``home``: the same path relative to the real home."""
        text = os.path.abspath(str(value))
        folded = os.path.normcase(text)
        if folded == os.path.normcase(home) or folded.startswith(os.path.normcase(home) + os.sep):
            return value
        if folded == self.real_home or folded.startswith(self.real_home + os.sep):
            moved = home + text[len(self.real_home) :]
        else:
            drive, rest = os.path.splitdrive(text)
            moved = os.path.join(home, OUTSIDE, drive.strip(":\\/"), rest.lstrip("\\/"))
        return Path(moved) if isinstance(value, Path) else moved

    def _wrap(self, original: property) -> property:
        getter = original.fget
        assert getter is not None

        def get(obj: object) -> Any:
            value = getter(obj)
            home = self.current
            if home is None or not isinstance(value, (str, Path)):
                return value
            return self.rebase(value, home)

        return property(get, doc=original.__doc__)

    def install(self) -> bool:
        """Patch platformdirs if it is installed; False when it is not."""
        if importlib.util.find_spec("platformdirs") is None:
            return False
        import platformdirs

        cls = platformdirs.PlatformDirs
        for name in dir(cls):
            attr = inspect.getattr_static(cls, name)
            if name.startswith("user_") and isinstance(attr, property):
                self._saved[name] = cls.__dict__.get(name)
                setattr(cls, name, self._wrap(attr))
        self._cls = cls
        return True

    def uninstall(self) -> None:
        cls, self._cls = self._cls, None
        if cls is None:
            return
        for name, original in self._saved.items():
            if original is None:
                delattr(cls, name)
            else:
                setattr(cls, name, original)
        self._saved.clear()
