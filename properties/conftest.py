"""Hypothesis settings profiles for the property suite, chosen by ``HYPOTHESIS_PROFILE``.

* ``dev`` (default): quick feedback while editing.
* ``ci``: what ``.ci/run`` uses: 200 examples a property (twice ``dev``), so the
  whole property suite takes about a minute and a half of two cores, inside the
  CI run's ten minutes; ``thorough`` is the long hunt.
* ``thorough``: a long hunt before a release or after touching an engine.
* ``mutation``: the mutation-testing harness (``docs/mutation/run.py``): the same
  cases on every run (derandomised) and no shrinking, so a killed mutant costs little.

No profile uses the example database: runs depend only on the seed Hypothesis
prints on failure, not on a local ``.hypothesis`` directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, Phase, settings

from packcheck._engines import choice as _engines
from packcheck._engines import sizes as _sizes

_COMMON = {
    "database": None,
    "deadline": None,
    "print_blob": True,
    # Long (1,000+ block) cases are generated on purpose; their cost is not a bug.
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}

settings.register_profile("dev", max_examples=100, **_COMMON)
settings.register_profile("ci", max_examples=200, **_COMMON)
settings.register_profile("thorough", max_examples=5_000, **_COMMON)
settings.register_profile(
    "mutation",
    max_examples=100,
    derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    **_COMMON,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(autouse=True, scope="session")
def _numpy_paths_at_every_size() -> Iterator[None]:
    """Generated cases are short: take the NumPy kernel at every size here.

    ``engine="numpy"`` hands inputs below a measured crossover to the reference's
    loop, which would compare the reference with itself; the properties compare the
    kernel with it.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_engines, "CROSSOVER", 0)
        patch.setattr(_sizes, "SHORT", 0)
        yield
