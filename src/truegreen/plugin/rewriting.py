"""pytest's assertion rewriter: truegreen's own modules skip it, an ablation's mutant goes first.

pytest puts its rewriter on every package of a plugin's distribution. truegreen has no
assertion for pytest to explain (its fixtures raise their own errors), and each module that
goes through the rewriting importer costs about 2.4 million instructions in every pytest
process (50-70 million at start-up, bench/guard_overhead.py), more where site-packages is
read-only and the rewritten code cannot be cached.
"""

from __future__ import annotations

import os
import sys

PACKAGE = "truegreen"


def import_without_rewriting() -> None:
    """Take truegreen off the rewriter's list. The plugin's entry module, and this one, have
    come through it already; a pytest without these private attributes is left as it is."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if not isinstance(marked, set) or PACKAGE not in marked:
            continue
        marked.discard(PACKAGE)
        cache = getattr(finder, "_marked_for_rewrite_cache", None)
        if isinstance(cache, dict):
            for name in [n for n in cache if n == PACKAGE or n.startswith(PACKAGE + ".")]:
                del cache[name]


def mutant_first() -> None:
    """During ``truegreen ablate``, put the mutant's finder ahead of the rewriter again, before
    the conftests are imported: pytest imports a conftest.py through the rewriter, which
    reads the file on disk, so an ablated conftest would otherwise never run."""
    if os.environ.get("_TRUEGREEN_MUTANT"):
        from truegreen.guards.mutant import to_front

        to_front()
