"""Typed keys for the state that crosses hooks, kept in ``config.stash``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from truegreen.core.config import Config

if TYPE_CHECKING:
    from truegreen.plugin.guards import GuardsPlugin
    from truegreen.plugin.hermetic import HermeticPlugin

CONFIG_KEY = pytest.StashKey[Config]()
HERMETIC_KEY: pytest.StashKey[HermeticPlugin] = pytest.StashKey()
GUARDS_KEY: pytest.StashKey[GuardsPlugin] = pytest.StashKey()
# The names of the variables the machine set: the environment before any conftest ran.
AMBIENT_KEY = pytest.StashKey[frozenset[str]]()
# Node ids this shard left to the other shards: not deselected by the user, not missing.
SHARDED_OUT_KEY = pytest.StashKey[set[str]]()
