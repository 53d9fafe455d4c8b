"""Random draws for the probes, exactly as :class:`random.Random` makes them, in bulk.

A probe is a recipe (:mod:`packcheck._gate._probes`): the same probe must always build
the same case, so a failure can be reported by its recipe and shrunk by rebuilding it.
Drawing a long list one ``randint`` at a time cost most of a probe's build.  What here
gives the same numbers as :class:`random.Random`, leaves the generator in the same
state, and is faster, from how CPython (3.11 to 3.13) draws:

* ``getrandbits(k)`` for ``0 < k <= 32`` is one 32-bit output of the Mersenne Twister
  shifted right by ``32 - k``; for ``32 < k <= 64`` two outputs, the first the low word,
  the second shifted right by ``64 - k``; ``getrandbits(32 * m)`` is ``m`` outputs, the
  first in the lowest bits (words are filled from the least significant on a
  little-endian host);
* ``_randbelow(n)`` draws ``getrandbits(n.bit_length())`` until it is below ``n``;
  ``randrange(a, b)`` is ``a + _randbelow(b - a)``, ``randint(a, b)`` is
  ``randrange(a, b + 1)`` and ``choice(seq)`` is ``seq[_randbelow(len(seq))]``;
* ``random()`` is ``((x >> 5) * 2**26 + (y >> 6)) / 2**53`` of two outputs ``x, y``.

:class:`FastRandom` is a :class:`random.Random` whose ``randint``, ``randrange`` and
``choice`` are those definitions in one call (the library's take three Python calls
each); :func:`below_many`, :func:`randints`, :func:`picks`, :func:`randoms` and
:func:`choices` draw whole lists at NumPy speed: the outputs are read ahead in bulk,
the draws read off them, and the generator is set back and moved on by exactly the
outputs they used.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:
    from _typeshed import SupportsLenAndGetItem

__all__ = ["FastRandom", "below_many", "choices", "picks", "randints", "randoms"]

T = TypeVar("T")

# random() = (a * 2**26 + b) / 2**53 of a = x >> 5 and b = y >> 6.
_HIGH = 67108864.0
_SCALE = 1.0 / 9007199254740992.0
# Outputs are read ahead at least this many draws at a time.
_AHEAD = 64


class FastRandom(random.Random):
    """:class:`random.Random` with the same draws, ``randint``, ``randrange`` and
    ``choice`` in two calls each (the library's are three)."""

    def _below(self, n: int) -> int:
        """``_randbelow(n)`` for ``n >= 1``: the same integer, the same outputs used."""
        getrandbits = self.getrandbits
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r

    def randint(self, a: int, b: int) -> int:
        """``randrange(a, b + 1)``."""
        n = b - a + 1
        if n <= 0:
            raise ValueError(f"empty range for randrange() ({a}, {b + 1}, {n})")
        return a + self._below(n)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        """As :meth:`random.Random.randrange`; two calls for a step of 1."""
        if step != 1 or type(start) is not int or (stop is not None and type(stop) is not int):
            return super().randrange(start, stop, step)
        low, n = (0, start) if stop is None else (start, stop - start)
        if n <= 0:
            return super().randrange(start, stop, step)  # raises as the library does
        return low + self._below(n)

    def choice(self, seq: SupportsLenAndGetItem[T]) -> T:
        """``seq[_randbelow(len(seq))]``; an empty ``seq`` raises as the library does."""
        n = len(seq)
        return seq[self._below(n)] if n else super().choice(seq)


def _outputs(rng: random.Random, count: int) -> np.ndarray[Any, np.dtype[np.uint32]]:
    """The generator's next ``count`` 32-bit outputs, in order (the generator moves on)."""
    raw = rng.getrandbits(32 * count).to_bytes(4 * count, "little")
    return np.frombuffer(raw, dtype="<u4")


def below_many(rng: random.Random, n: int, count: int, offset: int = 0) -> list[int]:
    """``[offset + rng.randrange(n) for _ in range(count)]``, and ``rng`` left as that
    leaves it.

    For ``n`` below 2**64 the candidates (one or two outputs each) are read in bulk and
    those ``>= n`` skipped; the generator is then set back and moved on by the outputs
    the accepted draws used.  Larger ``n`` are drawn one at a time.
    """
    if count <= 0:
        return []
    k = n.bit_length()
    if n <= 0 or k > 64:
        return [offset + rng.randrange(n) for _ in range(count)]
    words = 1 if k <= 32 else 2
    state = rng.getstate()
    parts = []
    found = 0
    used = 0  # outputs used by the draws found so far
    while True:
        need = count - found
        want = max(_AHEAD, 2 * need)
        raw = _outputs(rng, want * words)
        if words == 1:
            candidates = (raw >> np.uint32(32 - k)).astype(np.uint64)
        else:
            pairs = raw.reshape(-1, 2).astype(np.uint64)
            candidates = (pairs[:, 1] >> np.uint64(64 - k)) << np.uint64(32) | pairs[:, 0]
        accepted = np.flatnonzero(candidates < np.uint64(n))
        if len(accepted) >= need:
            parts.append(candidates[accepted[:need]])
            used += (int(accepted[need - 1]) + 1) * words
            break
        parts.append(candidates[accepted])
        found += len(accepted)
        used += want * words
    rng.setstate(state)
    rng.getrandbits(32 * used)
    drawn = np.concatenate(parts)
    if offset >= 0 and offset + n <= 2**64:
        # Added where the sum fits 64 bits: every value is one int made once.
        values: list[int] = (drawn + np.uint64(offset)).tolist()
        return values
    return list(map(offset.__add__, drawn.tolist()))


def randints(rng: random.Random, a: int, b: int, count: int) -> list[int]:
    """``[rng.randint(a, b) for _ in range(count)]``, and ``rng`` left as that leaves it."""
    if count > 0 and b < a:
        rng.randint(a, b)  # raises as the library does
    return below_many(rng, b - a + 1, count, a)


def randoms(rng: random.Random, count: int) -> np.ndarray[Any, np.dtype[np.float64]]:
    """``[rng.random() for _ in range(count)]`` as doubles (two outputs each, none
    skipped, so the generator moves on exactly as those calls would)."""
    if count <= 0:
        return np.zeros(0)
    pairs = _outputs(rng, 2 * count).reshape(-1, 2)
    high = (pairs[:, 0] >> np.uint32(5)).astype(np.float64)
    low = (pairs[:, 1] >> np.uint32(6)).astype(np.float64)
    values: np.ndarray[Any, np.dtype[np.float64]] = (high * _HIGH + low) * _SCALE
    return values


def picks(rng: random.Random, pool: Sequence[T], count: int) -> list[T]:
    """``[rng.choice(pool) for _ in range(count)]``, and ``rng`` left as that leaves it."""
    if count > 0 and not pool:
        rng.choice(pool)  # raises as the library does
    return list(map(pool.__getitem__, below_many(rng, len(pool), count)))


def choices(rng: random.Random, population: Sequence[T], count: int) -> list[T]:
    """``rng.choices(population, k=count)``, and ``rng`` left as that leaves it:
    ``population[floor(random() * n)]`` for each (the same doubles, the same product)."""
    if count <= 0:
        return []
    if not population:
        return rng.choices(population, k=count)  # raises as the library does
    index = np.floor(randoms(rng, count) * float(len(population))).astype(np.intp)
    return list(map(population.__getitem__, index.tolist()))
