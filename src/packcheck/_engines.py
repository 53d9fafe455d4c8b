"""The engines: one rule, several algorithms; the choice never changes the answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from . import _sizes, reference, scan

__all__ = ["CROSSOVER", "ENGINES", "Engine", "kept_mask"]

Engine = Literal["reference", "numpy"]
#: The engine names accepted by :func:`packcheck.pack`, :func:`packcheck.trace` and the CLI.
ENGINES: tuple[Engine, ...] = ("reference", "numpy")

#: Below this many blocks ``"numpy"`` runs the reference's Python loop: converting a
#: list to an array and back costs more than the loop (see :func:`kept_mask`).
CROSSOVER = 4096


def kept_mask(budget: int, sizes: Sequence[int], engine: Engine) -> tuple[Sequence[bool], int]:
    """One kept flag per block and the remaining units, computed by ``engine``.

    ``sizes`` are units already read (Python ints).  ``"numpy"`` picks the faster path
    for the input: below :data:`CROSSOVER` blocks the reference's loop (answers are
    identical by construction), from there :func:`packcheck.scan.pack_sizes` on int64
    sizes, read by :mod:`packcheck._sizes` (clipped where int64 cannot hold them, the
    exact reference where even that fails: no value is ever rounded or wrapped).
    """
    if engine == "reference":
        return reference.pack_sizes(budget, sizes)
    if engine != "numpy":
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if len(sizes) < CROSSOVER:
        return reference.pack_sizes(budget, sizes)
    mask, remaining = scan.pack_input(budget, _sizes.from_ints(budget, sizes))
    return mask.tolist(), remaining
