"""How the plugin is imported: truegreen's modules skip pytest's assertion rewriter."""

from __future__ import annotations

import pytest


def test_truegreens_modules_are_not_assertion_rewritten(pytester: pytest.Pytester) -> None:
    """pytest rewrites every module of a plugin's distribution; truegreen has no assertion for
    it to explain, and each rewritten import costs start-up time in every pytest process.

    Ablation: delete `marked.discard(PACKAGE)` in `src/truegreen/plugin/rewriting.py`: the
    guards' module comes through the rewriter too. Restored."""
    pytester.makepyfile(
        """
        import sys

        def loader(name):
            return type(sys.modules[name].__loader__).__name__

        def test_loaders():
            # premise: the rewriter is on for truegreen (the entry point came through it)
            assert loader("truegreen.plugin") == "AssertionRewritingHook"
            assert loader("truegreen.plugin.guards") != "AssertionRewritingHook"
            assert loader("truegreen.core.config") != "AssertionRewritingHook"
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
