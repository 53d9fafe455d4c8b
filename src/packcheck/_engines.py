"""The engines: one rule, several algorithms; the choice never changes the answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from . import reference, scan

__all__ = ["ENGINES", "Engine", "kept_mask"]

Engine = Literal["reference", "numpy"]
#: The engine names accepted by :func:`packcheck.pack`, :func:`packcheck.trace` and the CLI.
ENGINES: tuple[Engine, ...] = ("reference", "numpy")


def kept_mask(budget: int, sizes: Sequence[int], engine: Engine) -> tuple[Sequence[bool], int]:
    """One kept flag per block and the remaining units, computed by ``engine``.

    ``"numpy"`` runs :func:`packcheck.scan.pack_sizes` on an int64 array.  A size
    above the budget can never fit, so sizes are clipped to ``budget + 1`` when they
    do not fit int64; if even that does not fit (a budget of 2**63 - 1 or more) the
    exact reference answers instead: no value is ever rounded or wrapped.
    """
    if engine == "reference":
        return reference.pack_sizes(budget, sizes)
    if engine != "numpy":
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    try:
        array = np.array(sizes, dtype=np.int64)
    except OverflowError:
        try:
            array = np.array([min(size, budget + 1) for size in sizes], dtype=np.int64)
        except OverflowError:
            return reference.pack_sizes(budget, sizes)
    mask, remaining = scan.pack_sizes(budget, array)
    return mask.tolist(), remaining
