"""What truegreen's plugin objects list to ``dir()``: their pytest hooks, nothing else.

pytest reads a registered plugin object through ``dir()`` twice: pluggy for its hooks (only
names starting ``pytest_`` can be one), and the fixture manager for fixtures, which for each
name walks the class's MRO, reads the attribute twice and unwraps it. A plugin object lists
30 to 50 names (its methods, its attributes, ``object``'s own), none of them a fixture; for
the dozen truegreen registers in a run that walk cost about 20 million instructions of every
pytest process's start-up (bench/guard_overhead.py --startup). Fixtures are defined in
``plugin/fixtures.py``, a module, which lists everything as modules do.
"""

from __future__ import annotations


class HooksOnly:
    """A plugin object whose ``dir()`` is its hooks: the ``pytest_`` methods of its class
    (truegreen sets no hook on an instance)."""

    __slots__ = ()

    def __dir__(self) -> list[str]:
        return [name for name in dir(type(self)) if name.startswith("pytest_")]
