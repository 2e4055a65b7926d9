"""`pkg.module:attr.path` references in the configuration (`reset-caches`), resolved.

Resolving one imports the module it names, as pytest imports a `-p` plugin: the plugin calls
the callables before every test, and `truegreen doctor` checks that each resolves."""

from __future__ import annotations

import importlib
from typing import Any, Callable


def resolve_callable(ref: str) -> Callable[[], object]:
    """Import ``pkg.module:attr.path`` and return the callable it names."""
    module_name, _, path = ref.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in path.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{ref} is a {type(obj).__name__}, not a callable")
    result: Callable[[], object] = obj
    return result
