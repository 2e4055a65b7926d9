"""The audit's fixtures are deliberately bad code: audited as data, never collected or linted."""

from __future__ import annotations

collect_ignore_glob = ["cases/*", "projects/*"]
