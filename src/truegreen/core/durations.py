"""The durations file duration sharding reads: ``{nodeid: seconds}``, pytest-split's
``.test_durations`` format (``truegreen metrics --durations-out`` writes it)."""

from __future__ import annotations

from pathlib import Path

from truegreen.core import events, jsonfile
from truegreen.core.errors import ConfigError


def read_durations(path: str) -> dict[str, float]:
    """A ``{nodeid: seconds}`` file; anything else is a one-line ConfigError naming it.

    Seconds are finite, not negative and under a week (:data:`events.MAX_SECONDS`): Python's
    json reads ``NaN`` and ``Infinity``, and either would make every balance meaningless."""
    data = jsonfile.load(
        Path(path), "durations file", "JSON of {node id: seconds}", error=ConfigError
    )
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object, found {type(data).__name__}")
    for key, value in data.items():
        number = not isinstance(value, bool) and isinstance(value, (int, float))
        if not number or not 0 <= value <= events.MAX_SECONDS:  # NaN compares false too
            expected = f"seconds from 0 to {events.MAX_SECONDS:g}"
            raise ConfigError(f"{path}: {key!r}: expected {expected}, found {value!r}")
    return {str(k): float(v) for k, v in data.items()}
