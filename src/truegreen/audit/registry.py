"""Every rule, found by importing each module of :mod:`truegreen.audit.rules`."""

from __future__ import annotations

import importlib
import os
from functools import cache

from truegreen.audit.base import Rule
from truegreen.core.errors import UsageError


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, ordered by code."""
    from truegreen.audit import rules

    found: list[type[Rule]] = []
    # the rule modules by their files (pkgutil, which would list them, costs more to import)
    names = sorted(n[:-3] for p in rules.__path__ for n in os.listdir(p)
                   if n.endswith(".py") and n != "__init__.py")  # fmt: skip
    for name in names:
        module = importlib.import_module(f"{rules.__name__}.{name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value.__module__ == module.__name__
                and "code" in vars(value)
            ):
                found.append(value)
    return tuple(sorted(found, key=lambda rule: rule.code))


def rule(code: str) -> type[Rule]:
    """The rule with this code or name; a did-you-mean error for anything else."""
    for candidate in all_rules():
        if code.upper() == candidate.code or code == candidate.name:
            return candidate
    known = ", ".join(f"{r.code} ({r.name})" for r in all_rules())
    raise UsageError(f"expected a rule code or name, found {code!r}; known rules: {known}")
