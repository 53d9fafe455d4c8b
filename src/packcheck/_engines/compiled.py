"""The compiled engine: the reference's loop over int64 sizes, compiled by Numba.

Numba is imported when a kernel is first called, never by ``import packcheck``; the
loops are plain functions the tests also run as they are.  ``remaining`` stays in
``[0, budget]`` for sizes ``>= 1``, so int64 never overflows; what is outside the loop's
guarantees is answered by the reference, after the checks of :mod:`packcheck.scan`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import reference
from . import batch as _batch
from . import sizes as _sizes
from .batch_entry import Answers, BatchPacker

#: The one-line error when the extra is not installed.
MISSING = "the compiled engine needs Numba: pip install 'packcheck[numba]'"

_INT64_MAX = _sizes.INT64_MAX


def scan_loop(budget: Any, values: Any, kept: Any) -> Any:
    """The reference's scan of int64 ``values`` from ``budget >= 0``; marks ``kept``.

    Returns the remaining, or -1 at the first block of size below 1 that fits (only
    such a block could overflow).  Compiled by :func:`kernels`.
    """
    remaining = budget
    for index in range(values.shape[0]):
        size = values[index]
        if size <= remaining:
            if size < 1:
                return -1
            remaining -= size
            kept[index] = True
    return remaining


def batch_loop(budgets: Any, values: Any, offsets: Any, kept: Any, remaining: Any) -> Any:
    """:func:`scan_loop` of case ``i`` (``values[offsets[i]:offsets[i + 1]]``) for each ``i``.

    Writes each remaining into ``remaining`` and returns -1, or returns the first case
    in which a block of size below 1 fits (that case and later ones unwritten).
    """
    for case in range(budgets.shape[0]):
        left = budgets[case]
        for index in range(offsets[case], offsets[case + 1]):
            size = values[index]
            if size <= left:
                if size < 1:
                    return case
                left -= size
                kept[index] = True
        remaining[case] = left
    return -1


def rule_loop(
    base: Any,
    names: Any,
    seen: Any,
    order: Any,
    cap: Any,
    q: Any,
    step: Any,
    left: Any,
    misfit: Any,
    met: Any,
) -> Any:
    """A lowered rule's scan (:mod:`packcheck._engines.rule_scan`) as one loop.

    Marks in ``met`` the blocks kept among ``base`` met in ``order`` (0 given, 1
    reversed, 2 middle-out), each costing ``q * min(size, cap) + step`` against ``left``;
    ``misfit`` 0 skips, 1 stops, 2 overshoots; with ``names``, a ``seen`` ID is skipped.
    Returns the cost of the blocks kept because they fit and the index of an overshoot
    (-1: none).  The caller keeps ``left`` and ``q + step`` below ``2**62``.
    """
    m = base.shape[0]
    distinct = names.shape[0] > 0
    used = 0
    for k in range(m):
        if order == 0:
            place = k
        elif order == 1:
            place = m - 1 - k
        elif k % 2 == 0:
            place = k // 2
        else:
            place = m - 1 - k // 2
        cost = min(base[place], cap) * q + step
        if cost <= left:
            if distinct:
                if seen[names[place]]:
                    continue
                seen[names[place]] = True
            left -= cost
            used += cost
            met[place] = True
        elif distinct and misfit != 0 and seen[names[place]]:
            # A duplicate never ends the scan; under skip a block that does not fit
            # is skipped either way, so its ID is not looked up.
            continue
        elif misfit == 2:
            met[place] = True
            return used, place
        elif misfit == 1:
            break
    return used, -1


_compiled: tuple[Callable[..., Any], Callable[..., Any]] | None = None
_rule_compiled: Callable[..., Any] | None = None


def kernels() -> tuple[Callable[..., Any], Callable[..., Any]]:
    """:func:`scan_loop` and :func:`batch_loop` compiled (on the first call, then cached).

    Raises ``ImportError`` with :data:`MISSING` when Numba is not installed.
    """
    global _compiled
    if _compiled is None:
        try:
            import numba  # the optional extra, imported only when asked
        except ImportError as exc:
            raise ImportError(MISSING) from exc
        # cache=True: later processes load the machine code instead of compiling again.
        jit = numba.njit(cache=True, nogil=True)
        _compiled = (jit(scan_loop), jit(batch_loop))
    return _compiled


def rule_scan(plan: Any, base: Any, names: Any, seen: Any, met: Any) -> tuple[int, int]:
    """:func:`rule_loop` of a :class:`packcheck._engines.rule_scan.Plan`, compiled on its
    first call; ``names``/``seen`` ``None`` without ``dedup = "kept"`` (``seen`` is
    updated in place: the IDs kept are added)."""
    global _rule_compiled
    if _rule_compiled is None:
        kernels()
        import numba

        _rule_compiled = numba.njit(cache=True, nogil=True)(rule_loop)
    if names is None:
        names, seen = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.bool_)
    used, overshot = _rule_compiled(
        base,
        names,
        seen,
        _ORDERS[plan.order],
        np.int64(plan.cap()),
        np.int64(plan.q),
        np.int64(plan.step),
        np.int64(plan.left),
        _MISFITS[plan.on_misfit],
        met,
    )
    return int(used), int(overshot)


_ORDERS = {"given": 0, "reversed": 1, "middle-out": 2}
_MISFITS = {"skip": 0, "stop": 1, "overshoot": 2}


def pack_sizes(budget: int, sizes: npt.ArrayLike) -> tuple[npt.NDArray[np.bool_], int]:
    """:func:`packcheck.scan.pack_sizes`'s answer (and errors), from the compiled loop."""
    budget = _sizes.budget_of(budget)
    if _plain_int64(sizes) and 0 <= budget <= _INT64_MAX:
        # The loop checks these sizes as it goes (see scan_loop): no pass before it.
        kept = np.zeros(sizes.shape[0], dtype=np.bool_)  # type: ignore[union-attr]
        remaining = kernels()[0](np.int64(budget), sizes, kept)
        if remaining >= 0:
            return kept, int(remaining)
    return pack_input(budget, _sizes.from_array(budget, sizes, short=0))


def pack_input(
    budget: int, sizes: _sizes.KernelInput | list[int]
) -> tuple[npt.NDArray[np.bool_], int]:
    """:func:`pack_sizes` on sizes :mod:`packcheck._engines.sizes` has already read."""
    scan = kernels()[0]
    if isinstance(sizes, list) or not 0 <= budget <= _INT64_MAX:
        # Outside the loop's guarantees: the reference, exactly.
        exact = sizes if isinstance(sizes, list) else sizes.values.tolist()
        mask, remaining = reference.pack_sizes(budget, exact)
        return np.frombuffer(bytes(mask), dtype=np.bool_).copy(), remaining
    kept = np.zeros(sizes.values.shape[0], dtype=np.bool_)
    # Every size >= 1 (KernelInput): the loop never returns -1 here.
    return kept, int(scan(np.int64(budget), sizes.values, kept))


def _pack_batch(budgets: npt.ArrayLike, sizes: npt.ArrayLike, offsets: npt.ArrayLike) -> Answers:
    """:func:`packcheck.scan.pack_batch`'s answer (and errors), from the compiled loop."""
    budget_array = _sizes.budgets_of(budgets)
    batch = kernels()[1]
    if _plain_int64(sizes):
        bounds = _sizes.offsets_of(offsets, budget_array.shape[0], sizes.shape[0])  # type: ignore[union-attr]
        kept = np.zeros(bounds[-1], dtype=np.bool_)
        remaining = np.empty_like(budget_array)
        # The loop checks the sizes as it goes (see batch_loop): no pass before it.
        if batch(budget_array, sizes, bounds, kept, remaining) < 0:
            return kept, remaining
    cap = max(int(budget_array.max()), 0) if budget_array.size else 0
    # Clipping a size past int64 to the largest budget + 1 keeps it too large for all.
    read = _sizes.from_array(cap, sizes, short=0)
    total = len(read) if isinstance(read, list) else read.values.shape[0]
    bounds = _sizes.offsets_of(offsets, budget_array.shape[0], total)
    if isinstance(read, list):
        # Outside the contract, or past int64 even clipped: every case exactly.
        return _batch.pack_exact_cases(budget_array, read, bounds)
    kept = np.zeros(total, dtype=np.bool_)
    remaining = np.empty_like(budget_array)
    # Every size >= 1, every budget within int64: no case's loop can overflow.
    batch(budget_array, read.values, bounds, kept, remaining)
    return kept, remaining


pack_batch = BatchPacker(_pack_batch, compiled=True)


def _plain_int64(sizes: object) -> bool:
    """A one-dimensional int64 array: the loops take it as it is."""
    return type(sizes) is np.ndarray and sizes.dtype == np.int64 and sizes.ndim == 1
