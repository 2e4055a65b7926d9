"""The durations file duration sharding reads: ``{nodeid: seconds}``, pytest-split's
``.test_durations`` format (``truegreen metrics --durations-out`` writes it)."""

from __future__ import annotations

import json
from pathlib import Path

from truegreen.core.errors import ConfigError


def read_durations(path: str) -> dict[str, float]:
    """A ``{nodeid: seconds}`` file; anything else is a one-line ConfigError naming it."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        message = f"{path}: expected a readable durations file, found {exc.strerror}"
        raise ConfigError(message) from None
    except ValueError as exc:
        raise ConfigError(f"{path}: expected JSON of {{node id: seconds}}, found {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object, found {type(data).__name__}")
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(f"{path}: {key!r}: expected seconds >= 0, found {value!r}")
    return {str(k): float(v) for k, v in data.items()}
