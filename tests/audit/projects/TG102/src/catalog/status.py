from enum import IntEnum

__all__ = ["codes", "LIMITS"]


class codes(IntEnum):
    NOT_FOUND = 404


LIMITS = {"requests": 100}
TIMEOUT = 5  # not in __all__: a star import does not bind it
