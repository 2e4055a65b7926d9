"""The sealed environment ``truegreen run`` and the sealed runs of ``truegreen leaks`` use."""

from __future__ import annotations

import os

from truegreen.guards.mutant import MUTANT_VAR
from truegreen.runner.procs import sealed_environment


def test_truegreen_s_own_settings_and_an_ablation_s_mutant_go_in_and_nothing_else() -> None:
    """`TRUEGREEN_MUST_RUN=... truegreen run` must gate the run it starts; a variable of the
    machine must not reach it.

    Ablation: replace `n.startswith(ENV_PREFIX) or n == MUTANT_VAR` with `False` in
    `src/truegreen/runner/procs.py`.
    """
    machine = {
        "PATH": "/usr/bin",
        "TRUEGREEN_MUST_RUN": "tests/test_gate.py",
        MUTANT_VAR: "/tmp/spec.json",
        "MYAPP_MODE": "shell",
        "AWS_SECRET_ACCESS_KEY": "canary",
    }
    env = sealed_environment(machine, "/tmp/home")
    assert env["TRUEGREEN_MUST_RUN"] == "tests/test_gate.py"
    assert env[MUTANT_VAR] == "/tmp/spec.json"
    assert "MYAPP_MODE" not in env
    assert "AWS_SECRET_ACCESS_KEY" not in env
    assert (env["HOME"], env["GIT_CONFIG_GLOBAL"]) == ("/tmp/home", os.devnull)
