"""The child shim: guards enter Python children, and a project's own sitecustomize still loads."""

from __future__ import annotations

import pytest


def test_an_existing_sitecustomize_is_chain_loaded_after_the_guards(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ablation (by hand: the shim runs before any import hook, so truegreen ablate cannot
    serve it): removing the ``_chain()`` call at the end of the shim makes the child's
    ``sitecustomize.MARK`` lookup fail. Restored."""
    custom = pytester.mkdir("custom")
    (custom / "sitecustomize.py").write_text("MARK = 'the project sitecustomize'\n")
    monkeypatch.setenv("PYTHONPATH", str(custom))
    pytester.makepyfile(
        """
        import subprocess
        import sys
        from pathlib import Path

        CODE = (
            "import sitecustomize, sys; print(sitecustomize.MARK);"
            "print('guarded' if getattr(sys, '_truegreen_audit_hook', None) else 'unguarded')"
        )

        def test_child_loads_both():
            out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True)
            assert out.stdout.splitlines() == ["the project sitecustomize", "guarded"], out.stderr
        """
    )
    pytester.runpytest_subprocess("--truegreen-tree-guard=off").assert_outcomes(passed=1)


def test_python_started_with_dash_s_is_not_guarded_and_that_is_documented(
    pytester: pytest.Pytester,
) -> None:
    """The documented limit: ``python -S`` skips sitecustomize, so the child is unguarded."""
    pytester.makepyfile(
        """
        import subprocess
        import sys

        def test_child():
            code = "import sys; print(bool(getattr(sys, '_truegreen_audit_hook', None)))"
            out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True)
            assert out.stdout.strip() == "False"
        """
    )
    pytester.runpytest_subprocess("--truegreen-tree-guard=off").assert_outcomes(passed=1)
