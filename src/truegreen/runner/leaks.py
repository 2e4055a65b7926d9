"""The runs of a leak hunt: the suite on the ambient machine, and sealed with factors put back."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Callable, Optional

from truegreen.core.factors import Factor, Machine, ambient_factors, apply, naming
from truegreen.core.outcomes import Outcomes
from truegreen.runner.process import PytestProcess

# (ambient environment, fresh home) -> the sealed environment, as ``truegreen run`` builds it.
Seal = Callable[[Mapping[str, str], str], dict[str, str]]


class LeakRuns:
    """:class:`truegreen.core.leakhunt.Runs` on this machine: ``pytest`` in ``ambient``
    (whose home is ``home``), and sealed by ``seal`` in a fresh home for each run.

    truegreen's own ``TRUEGREEN_*`` variables are carried into every sealed run as they are
    (the seal, ``runner.procs.sealed_environment``, keeps them): both runs use the same
    truegreen configuration, so they are never a factor.

    A run's output may hold the values of variables, so it is discarded: the hunt prints
    names only.
    """

    def __init__(
        self, pytest: PytestProcess, ambient: Mapping[str, str], home: Path, seal: Seal
    ) -> None:
        self.pytest = pytest
        self.environ = dict(ambient)
        self.home = home
        self.seal = seal
        self.found: Optional[Machine] = None

    def _sealed(self, home: str) -> dict[str, str]:
        return self.seal(self.environ, home)

    def machine(self) -> Machine:
        """The factors the sealed runs lack. The sealed home's path is not a factor (its
        contents are), so any path stands in for it."""
        if self.found is None:
            sealed = self._sealed(str(self.home))
            self.found = ambient_factors(self.environ, sealed, self.home)
        return self.found

    def ambient(
        self, only: Optional[Sequence[str]] = None, order: Optional[Sequence[str]] = None
    ) -> Outcomes:
        return self.pytest.run(only, order, env=self.environ, private=True)

    def sealed(
        self,
        factors: Sequence[Factor] = (),
        only: Optional[Sequence[str]] = None,
        order: Optional[Sequence[str]] = None,
    ) -> Outcomes:
        fresh = tempfile.mkdtemp(prefix="truegreen-leaks-home-")
        try:
            env = apply(factors, self._sealed(fresh), self.environ, self.home)
            return self.pytest.run(only, order, env=env, private=True)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)

    def reached_through(self, path: str) -> Optional[Factor]:
        return naming(path, self.machine().factors, self.environ, self.home)
