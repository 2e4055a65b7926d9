"""truegreen's own suite runs under truegreen: hermetic and sealed, like any user's."""

from __future__ import annotations

pytest_plugins = ["pytester"]
