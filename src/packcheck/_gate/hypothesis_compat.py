"""Where packcheck leans on Hypothesis internals: kept in one place, guarded."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["private_hypothesis_storage", "same_cases_whatever_is_loaded"]


@contextmanager
def same_cases_whatever_is_loaded() -> Iterator[None]:
    """Generate from the seed alone, not from the modules loaded so far.

    Hypothesis (6.131 and later) mixes into generation the constants it finds in the
    *local* modules imported so far -- packcheck itself when installed editable, the
    packer under test when it runs in-process -- so ``--seed 1`` meant other cases
    after another import, in the library than on the command line, and with
    ``--timeout`` (packer in a worker) than without.  No setting turns this off, so
    the collection is replaced by "no local constants" while a run draws its cases
    (which also keeps it from writing a ``.hypothesis/`` cache in the current
    directory).  An older Hypothesis, which collects none, is left as it is.
    """
    providers: Any = importlib.import_module("hypothesis.internal.conjecture.providers")
    collect = getattr(providers, "_get_local_constants", None)
    if collect is None:
        yield
        return
    none_local = providers.Constants()
    # Values already filtered from the local constants, cached per draw's constraints.
    providers.CONSTANTS_CACHE.cache.clear()
    providers._get_local_constants = lambda: none_local
    try:
        yield
    finally:
        providers._get_local_constants = collect
        providers.CONSTANTS_CACHE.cache.clear()


def _cache_home() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "packcheck" / "hypothesis"


@contextmanager
def private_hypothesis_storage() -> Iterator[None]:
    """Keep Hypothesis's files (its Unicode tables) out of the user's working directory.

    Hypothesis writes ``.hypothesis/`` in the current directory by default; for the
    ``packcheck`` command that is a stray folder in the user's project.  While the
    context is active, Hypothesis's home is ``$XDG_CACHE_HOME/packcheck/hypothesis``
    (``~/.cache/...``), unless ``HYPOTHESIS_STORAGE_DIRECTORY`` says otherwise.
    """
    configuration: Any = importlib.import_module("hypothesis.configuration")
    set_home = getattr(configuration, "set_hypothesis_home_dir", None)
    if set_home is None or os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    before = getattr(configuration, "__hypothesis_home_directory", None)
    set_home(_cache_home())
    try:
        yield
    finally:
        set_home(before)
