"""truegreen: make a green pytest run mean what it says."""

from __future__ import annotations

__version__ = "0.1.0"
