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
    """Generate from the seed alone: Hypothesis (6.131 on) mixes in constants of the
    local modules imported so far, so ``--seed 1`` could change with an import."""
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


@contextmanager
def private_hypothesis_storage() -> Iterator[None]:
    """Hypothesis's home is ``$XDG_CACHE_HOME/packcheck/hypothesis`` while active, unless
    ``HYPOTHESIS_STORAGE_DIRECTORY`` says otherwise."""
    configuration: Any = importlib.import_module("hypothesis.configuration")
    set_home = getattr(configuration, "set_hypothesis_home_dir", None)
    if set_home is None or os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    before = getattr(configuration, "__hypothesis_home_directory", None)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    set_home(Path(base) / "packcheck" / "hypothesis")
    try:
        yield
    finally:
        set_home(before)
