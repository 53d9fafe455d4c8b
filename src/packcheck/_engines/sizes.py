"""The one boundary between input and kernel: how sizes become int64, or stay exact.

Units are checked, never rounded; a size past int64 is clipped to ``budget + 1``, which
never fits either; what int64 cannot hold even then goes to the exact path.
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Sequence
from decimal import Decimal
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .._rule.units import as_unit

INT64_MAX = int(np.iinfo(np.int64).max)
_INT64_MIN = int(np.iinfo(np.int64).min)
#: The kernels' arrays: a flag per block, an int64 per block or case.
Flags = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.int64]
#: Int64 arrays shorter than this go to the reference's loop: a round of NumPy calls
#: costs more than the loop over them (docs/performance.md, "How the NumPy packer scans").
SHORT = 1024
# Floats hold every integer up to 2**53 exactly; beyond that, only some.
_FLOAT_EXACT = 2**53


class KernelInput(NamedTuple):
    """Int64 sizes for the kernel: every value in ``[smallest, INT64_MAX]``, ``smallest >= 1``."""

    values: npt.NDArray[np.int64]
    smallest: int


def budget_of(budget: object) -> int:
    """``budget`` as a Python int; ``TypeError`` for a ``bool`` or a non-integer."""
    if isinstance(budget, (bool, np.bool_)):
        raise TypeError("budget must be an integer, got a bool")
    return operator.index(budget)  # type: ignore[arg-type]


def budgets_of(budgets: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """A batch's budgets as int64, each checked as :func:`budget_of` checks one;
    ``ValueError`` if not one-dimensional or past int64."""
    array = np.asarray(budgets)
    if array.ndim != 1:
        raise ValueError(f"budgets must be one-dimensional, got shape {array.shape}")
    if not array.size:
        return np.zeros(0, dtype=np.int64)
    if array.dtype.kind not in "iu":
        array = np.array([budget_of(value) for value in array.tolist()], dtype=object)
    if not (int(array.min()) >= _INT64_MIN and int(array.max()) <= INT64_MAX):
        raise ValueError("budgets must fit int64; pack such a case alone with pack_sizes")
    return array.astype(np.int64)


def offsets_of(offsets: npt.ArrayLike, cases: int, blocks: int) -> npt.NDArray[np.intp]:
    """A batch's case bounds: ``cases + 1`` integers rising from 0 to ``blocks``."""
    array = np.asarray(offsets)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise TypeError(f"offsets must be a 1-D integer array, got {array.dtype} {array.shape}")
    if array.shape[0] != cases + 1:
        raise ValueError(f"offsets must have {cases + 1} entries (one more than budgets)")
    if array[0] != 0 or array[-1] != blocks or bool((np.diff(array) < 0).any()):
        raise ValueError(f"offsets must rise from 0 to len(sizes) = {blocks}")
    return array.astype(np.intp)


def from_ints(budget: int, sizes: Sequence[int]) -> KernelInput | list[int]:
    """Sizes already read as units (Python ints, no ``bool``): kernel input or exact ints."""
    try:
        values = np.fromiter(sizes, dtype=np.int64, count=len(sizes))
    except OverflowError:
        return _decided(budget, _clipped(list(sizes), budget), list(sizes))
    return _decided(budget, values, sizes)


def from_array(
    budget: int, sizes: npt.ArrayLike, short: int | None = None
) -> KernelInput | list[int]:
    """Any array-like of sizes, every element checked to be a unit (``ValueError`` if not
    whole or not 1-D, ``TypeError`` if not a number).  An int64 array shorter than
    ``short`` (default: :data:`SHORT`) comes back as Python ints, for the reference."""
    short = SHORT if short is None else short
    shorter = type(sizes) is np.ndarray and sizes.ndim == 1 and sizes.shape[0] < short
    if shorter and sizes.dtype == np.int64:  # type: ignore[union-attr]
        # The reference answers anything exactly, and at this length faster.
        return sizes.tolist()  # type: ignore[union-attr, no-any-return]
    array = np.asarray(sizes)
    if not isinstance(sizes, np.ndarray) and array.dtype.kind in "fu" and array.ndim == 1:
        # A list mixing negative and huge integers reads as float64, which rounds:
        # read it element by element instead.
        array = np.asarray(sizes, dtype=object)
    if array.ndim != 1:
        raise ValueError(f"sizes must be one-dimensional, got shape {array.shape}")
    kind = array.dtype.kind
    if kind == "O":
        return _objects(array, budget)
    if kind not in "iuf":
        raise TypeError(f"sizes must be integers, got dtype {array.dtype}")
    if kind == "f":
        if not bool(np.isfinite(array).all()) or not bool((array == np.floor(array)).all()):
            raise ValueError("sizes must be integral: a float size is a unit only if whole")
        if array.size and float(np.abs(array).max()) > _FLOAT_EXACT:
            return _decided(budget, None, [int(value) for value in array.tolist()])
        return _decided(budget, array.astype(np.int64), array)
    if kind == "i" or array.dtype.itemsize < 8 or not array.size:
        return _decided(budget, array.astype(np.int64, copy=False), array)
    if int(array.max()) <= INT64_MAX:
        return _decided(budget, array.astype(np.int64), array)
    cap = _cap(budget)
    # A uint64 value past int64 is above any budget int64 holds: clipped, it never fits.
    clipped = None if cap is None else np.minimum(array, cap).astype(np.int64)
    return _decided(budget, clipped, array)


def unit_of(value: object) -> int:
    """One element of an object array as an exact int; never rounded."""
    unit = as_unit(value)
    if unit is not None:
        return unit
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, Decimal)):
        raise TypeError(f"sizes must be numbers, got {type(value).__name__} {value!r}")
    raise ValueError(f"sizes must be integral: {value!r} is not a whole number")


def _objects(array: npt.NDArray[np.generic], budget: int) -> KernelInput | list[int]:
    values: list[int] = array.tolist()
    # A C-speed check for the common case: every element a plain int (not a bool).
    if operator.countOf(map(type, values), int) != len(values):
        values = [unit_of(value) for value in values]
    return from_ints(budget, values)


def _cap(budget: int) -> int | None:
    """``budget + 1``, the clip for sizes past int64, if int64 holds it and it is >= 1."""
    cap = budget + 1
    return cap if 0 < cap <= INT64_MAX else None


def _clipped(values: list[int], budget: int) -> npt.NDArray[np.int64] | None:
    """Python ints, some past int64, clipped to ``budget + 1``; ``None`` if that is too."""
    cap = _cap(budget)
    if cap is None:
        return None
    return np.array([min(value, cap) for value in values], dtype=np.int64)


def _decided(
    budget: int, values: npt.NDArray[np.int64] | None, exact: npt.ArrayLike | Sequence[int]
) -> KernelInput | list[int]:
    """The kernel's input if ``values`` is in its contract, else the exact sizes."""
    smallest = int(values.min()) if values is not None and values.size else 1
    if values is not None and budget >= 0 and smallest >= 1:
        return KernelInput(values, smallest)
    if isinstance(exact, np.ndarray):
        # Python ints from int, uint and whole float arrays (floats up to 2**53 here).
        return [int(value) for value in exact.tolist()]
    return list(exact)  # type: ignore[arg-type]
