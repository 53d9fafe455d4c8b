"""The engines: one rule, several algorithms; the choice never changes the answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .. import reference
from . import compiled
from . import levels as scan
from . import sizes as _sizes

Engine = Literal["reference", "numpy", "numba"]
#: The engine names accepted by :func:`packcheck.pack`, :func:`packcheck.trace` and the CLI.
#: ``"numba"`` needs the optional extra (``pip install 'packcheck[numba]'``).
ENGINES: tuple[Engine, ...] = ("reference", "numpy", "numba")

#: Below this many blocks ``"numpy"`` runs the reference's Python loop: converting a
#: list to an array and back costs more than the loop saves.
CROSSOVER = 16384


def check_engine(engine: str) -> None:
    """``ValueError`` for an unknown engine, ``ImportError`` (one line naming the extra)
    for ``"numba"`` without Numba; compiles the Numba loop on its first use."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if engine == "numba":
        compiled.kernels()


def kept_flags(budget: int, sizes: Sequence[int], engine: Engine) -> tuple[list[bool] | bytes, int]:
    """One kept flag per block and the remaining units, by ``engine`` (the reference's
    loop below :data:`CROSSOVER` blocks), of units already read."""
    check_engine(engine)
    if engine == "reference" or len(sizes) < CROSSOVER:
        return reference.pack_sizes(budget, sizes)
    kernel = scan.pack_input if engine == "numpy" else compiled.pack_input
    mask, remaining = kernel(budget, _sizes.from_ints(budget, sizes))
    return mask.tobytes(), remaining
