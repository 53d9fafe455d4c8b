"""The one helper that compares the NumPy packer with the reference, under a round bound.

Imported by ``tests/engines/test_scan.py`` and ``properties/test_scan_properties.py`` (``tests``
is on pytest's ``pythonpath``).  A kernel whose loop never ends fails here on an
explicit bound, not on a runner's timeout.  ``engine="numba"`` checks the compiled
engine the same way (:data:`ENGINES` skips it, with a reason, without the extra).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import packcheck
from packcheck import compiled, reference
from packcheck._engines import levels as scan
from packcheck._engines import numpy_entry
from packcheck._engines import sizes as _sizes

SCAN_FILE = scan.__file__
#: Whether the ``numba`` extra is installed (found without importing it).
HAVE_NUMBA = importlib.util.find_spec("numba") is not None
NO_NUMBA = "the numba extra is not installed: pip install 'packcheck[numba]'"
#: The engines a kernel test runs on: the NumPy kernel, and the compiled one if installed.
ENGINES = [
    "numpy",
    pytest.param(
        "numba",
        marks=pytest.mark.skipif(not HAVE_NUMBA, reason=NO_NUMBA),
    ),
]
#: ``packcheck.ENGINES`` for a test's parameters: ``"numba"`` skipped, with the reason,
#: where the extra is not installed.
PACK_ENGINES = [
    pytest.param(e, marks=pytest.mark.skipif(not HAVE_NUMBA, reason=NO_NUMBA))
    if e == "numba"
    else e
    for e in packcheck.ENGINES
]
#: The engines installed here, for a test that loops over them.
INSTALLED_ENGINES = tuple(e for e in packcheck.ENGINES if e != "numba" or HAVE_NUMBA)
# Calls the kernel may make per block: the per-element unit checks and conversions
# of an object array make ~6; the vectorised levels make none.
PER_BLOCK = 8
# Calls per level event: a kept large block or a level end costs a handful of NumPy
# calls and at most 16 doubling steps of the search for the next fitting block.
PER_EVENT = 64
# Events per bit of the remaining: each leaves less than 1 - 1/K of it, so there are
# fewer than K * ln(2) per halving; the chunking and the Python stretches add one per
# 1,024 blocks (counted in PER_BLOCK).
PER_BIT = 2 * scan._K


def call_bound(budget: int, n: int) -> int:
    """The most calls the kernel may make on ``n`` blocks: ``O(n + K log budget)``.

    Past int64 every int64 size fits, so the bits beyond 64 cost one prefix search
    each at most: they are counted like the rest, capped at 64.
    """
    bits = min(max(budget, 1).bit_length(), 64) + 1
    return PER_BLOCK * n + PER_EVENT * PER_BIT * bits + 10_000


class RoundBoundExceeded(AssertionError):
    """The kernel made more calls than its round bound allows: a loop that does not end."""


@contextmanager
def bounded_calls(limit: int) -> Iterator[list[int]]:
    """Fail once code in ``scan.py`` has made more than ``limit`` calls.

    Counts every call of a Python function or a builtin made from a frame of
    ``scan.py`` (sys.setprofile; calling a type such as ``int`` is not an event).  Every
    kernel loop calls one at least each round (``min``, a NumPy function, a helper),
    so a loop that never ends, whatever its shape, stops here.  Yields a
    one-element list holding the count so far.
    """
    count = [0]

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        # A C call's frame is its caller's; a Python call's is the callee's own.
        caller = frame if event == "c_call" else frame.f_back if event == "call" else None
        if caller is not None and caller.f_code.co_filename == SCAN_FILE:
            count[0] += 1
            if count[0] > limit:
                raise RoundBoundExceeded(f"scan.py made more than {limit:,} calls")

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield count
    finally:
        sys.setprofile(previous)


def pack_bounded(budget: int, array: npt.ArrayLike) -> tuple[npt.NDArray[np.bool_], int]:
    """``numpy_entry.pack_sizes(budget, array)`` under :func:`call_bound`."""
    with bounded_calls(call_bound(budget, len(np.asarray(array)))):
        return numpy_entry.pack_sizes(budget, array)


def assert_same(
    budget: int, sizes: Sequence[int], array: npt.ArrayLike | None = None, engine: str = "numpy"
) -> None:
    """numpy_entry.pack_sizes(budget, array) equals the reference on ``sizes``; input untouched.

    ``array`` defaults to ``sizes`` as int64.  The kernel runs under its round bound.
    ``engine="numba"``: :func:`packcheck.compiled.pack_sizes` instead (a loop with no
    rounds to bound).
    """
    given = np.array(sizes, dtype=np.int64) if array is None else np.asarray(array)
    before = given.copy()
    if engine == "numba":
        mask, remaining = compiled.pack_sizes(budget, given)
    else:
        mask, remaining = pack_bounded(budget, given)
    expected_mask, expected_remaining = reference.pack_sizes(budget, list(sizes))
    assert type(remaining) is int
    assert remaining == expected_remaining, (remaining, expected_remaining)
    assert mask.dtype == np.bool_
    assert mask.shape == (len(expected_mask),)
    flags = mask.tolist()
    if flags != expected_mask:
        first = next(i for i, (a, b) in enumerate(zip(flags, expected_mask, strict=True)) if a != b)
        raise AssertionError(f"block {first}: kept is {flags[first]}, expected {not flags[first]}")
    assert np.array_equal(given, before)
    short = len(sizes) < _sizes.SHORT and engine == "numpy"
    if short and budget >= 0 and all(1 <= size <= 2**63 - 1 for size in sizes):
        # The kernel itself, whatever length the input has: short int64 inputs are
        # handed to the reference's loop by pack_sizes, and must still be right here.
        values = np.array(sizes, dtype=np.int64)
        kept = np.zeros(values.shape[0], dtype=np.bool_)
        with bounded_calls(call_bound(budget, len(sizes))):
            remaining = scan._scan(values, budget, min(sizes, default=1), kept)
        assert remaining == expected_remaining, ("kernel", remaining, expected_remaining)
        assert kept.tolist() == expected_mask, "kernel: kept flags differ"
