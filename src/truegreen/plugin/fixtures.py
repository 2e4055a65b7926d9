"""The fixture of the hermetic environment, registered only when it is on.

Sealing itself needs no fixture: the plugin object seals each test from its hooks.
"""

from __future__ import annotations

import pytest

from truegreen.plugin.hermetic import HERMETIC_KEY
from truegreen.plugin.sealed import Hermetic


@pytest.fixture
def hermetic(request: pytest.FixtureRequest) -> Hermetic:
    """The test's sealed home and helpers: ``hermetic.home``, ``hermetic.git_identity()``,
    ``hermetic.home_file(".myapprc", "...")``, ``hermetic.cleared``."""
    sealed = request.config.stash[HERMETIC_KEY].current
    if sealed is None:
        raise pytest.UsageError(
            f"{request.node.nodeid} asks for the hermetic fixture but is marked "
            "truegreen_ambient, so it has no sealed environment"
        )
    return sealed
