"""Reading JSON truegreen keeps or is given, so that no file can end a verb with a traceback.

``json.loads`` raises ``ValueError`` for text that is not JSON, but ``RecursionError`` for
JSON nested deeper than the interpreter's stack (``[[[[...]]]]`` a few thousand deep), and
reading a path can fail for a directory or a file without permission: each becomes one line
naming the file (and the line, for a stream), what was expected and what was found. Python's
``json`` also reads ``NaN`` and ``Infinity``, which JSON does not have: the readers' schemas
refuse them as values (core/events.py, core/manifests.py, core/durations.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Union

from truegreen.core.errors import DataError, TruegreenError


def loads(
    text: Union[str, bytes], where: object, expected: str, error: type[TruegreenError] = DataError
) -> Any:
    """``text`` parsed, or ``error`` saying ``where: expected <expected>, found <why not>``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise error(f"{where}: expected {expected}, found JSON nested too deeply") from None
    except ValueError as exc:  # UnicodeDecodeError too: bytes that are not UTF-8
        raise error(f"{where}: expected {expected}, found {exc}") from None


def read_text(path: Path, what: str, error: type[TruegreenError] = DataError) -> str:
    """``path``'s text, or ``error`` saying ``path: expected a readable <what>, found <why>``."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: expected a readable {what}, found {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: expected a UTF-8 {what}, found {exc.reason}") from None


def load(path: Path, what: str, expected: str, error: type[TruegreenError] = DataError) -> Any:
    """The JSON in ``path``: :func:`read_text`, then :func:`loads`."""
    return loads(read_text(path, what, error), path, expected, error)
