"""The guards of a child Python process, started by the ``sitecustomize`` shim."""

from __future__ import annotations

import os
import sys

from truegreen.guards import active, hook
from truegreen.guards.policy import POLICY_FILE, Policy
from truegreen.guards.runtime import Guard


def start(run_dir: str) -> None:
    """Load the run's policy and guard this process for the test that started it."""
    try:
        with hook.quiet(), open(os.path.join(run_dir, POLICY_FILE), "rb") as handle:
            policy = Policy.loads(handle.read())
    except (OSError, ValueError, EOFError, KeyError, TypeError):
        return  # not a run this process can read; the parent's final sweep reports what it can
    project = dict(policy.roots.protected).get("project")
    guard = Guard(policy, role="child", project=project)
    guard.test = running_test(os.environ.get("PYTEST_CURRENT_TEST", ""))
    guard.where = guard.test or "outside any test"
    active.activate(guard)
    if policy.network == "owned" and not sys.platform.startswith("linux"):
        # On Linux /proc tells which process owns a listener; elsewhere the child says so.
        from truegreen.guards import network

        guard.tracking = network.track_listeners(guard)


def running_test(current: str) -> str | None:
    """The node id in pytest's ``PYTEST_CURRENT_TEST`` (``"tests/test_a.py::test_b (call)"``,
    set for every phase of every test and inherited by the test's children), or None."""
    if not current.endswith(")"):
        return None
    return current.rsplit(" (", 1)[0] or None
