"""truegreen: make a green pytest run mean what it says.

PYTEST_DONT_REWRITE: child processes import truegreen's guards before pytest starts
(the sitecustomize shim), and nothing here relies on assertion rewriting.
"""

from __future__ import annotations

__version__ = "0.1.0"
