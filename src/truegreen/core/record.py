"""A record compared by value, as a dataclass compares, without the dataclass.

Making a dataclass compiles its generated methods (about 3.4 million instructions each), and
the records a session builds at import would pay that at every pytest start. A subclass lists
its compared values in ``_fields``; it is unhashable, as a mutable dataclass is.
"""

from __future__ import annotations


class Record:
    """Equal to another of its exact class with equal ``_fields()``; unhashable."""

    __slots__ = ()

    def _fields(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]
