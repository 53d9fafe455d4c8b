"""The probes' random draws, mapped by packcheck from raw bits so that a probe builds
the same case on every Python: only :class:`random.Random`'s ``random()`` and
``getrandbits(k)`` are used, never a library algorithm (``randrange``, ``shuffle``).
Ranges are drawn by rejection from the fewest bits; lists in bulk with NumPy."""

from __future__ import annotations

import random
from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

import numpy as np

__all__ = ["ProbeRandom"]

T = TypeVar("T")

_WORD = {1: ("<u4", 32), 2: ("<u8", 64)}


class ProbeRandom:
    """Draws for one probe, from ``seed`` (all its bits used)."""

    __slots__ = ("_bits", "random")

    def __init__(self, seed: int | str) -> None:
        generator = random.Random(seed)
        self._bits = generator.getrandbits
        #: A double in ``[0, 1)``: 53 random bits.
        self.random = generator.random

    def below(self, n: int) -> int:
        """An integer in ``range(n)``: ``n.bit_length()`` bits, redrawn while ``>= n``."""
        if n < 1:
            raise ValueError(f"empty range: below({n})")
        bits, k = self._bits, n.bit_length()
        r = bits(k)
        while r >= n:
            r = bits(k)
        return r

    def randint(self, a: int, b: int) -> int:
        return a + self.below(b - a + 1)

    def randrange(self, start: int, stop: int | None = None) -> int:
        return self.below(start) if stop is None else start + self.below(stop - start)

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self.below(len(seq))]

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.random()

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, population: Sequence[T], k: int) -> list[T]:
        """``k`` distinct places, in the order drawn (``k`` Fisher-Yates steps)."""
        pool = list(population)
        if not 0 <= k <= len(pool):
            raise ValueError(f"sample of {k} from {len(pool)}")
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

    def below_many(self, n: int, count: int, offset: int = 0) -> list[int]:
        """``count`` integers of ``range(offset, offset + n)``: up to 2**64, the top bits
        of 32- or 64-bit words drawn in bulk, those ``>= n`` dropped; else one by one."""
        if count <= 0:
            return []
        k = n.bit_length()
        if n < 1 or k > 64:
            return [offset + self.below(n) for _ in range(count)]
        dtype, width = _WORD[1 if k <= 32 else 2]
        shift = np.uint64(width - k)
        parts: list[np.ndarray[Any, np.dtype[np.uint64]]] = []
        found = 0
        while found < count:
            # Accepted: n of the 2**k candidates, at least half.
            want = (count - found) * (1 << k) // n + 16
            words = np.frombuffer(
                self._bits(width * want).to_bytes(width // 8 * want, "little"), dtype
            )
            candidates = words.astype(np.uint64) >> shift
            accepted = candidates[candidates < np.uint64(n)][: count - found]
            parts.append(accepted)
            found += len(accepted)
        drawn = np.concatenate(parts)
        if offset >= 0 and offset + n <= 2**64:
            # Added where the sum fits 64 bits: every value is one int made once.
            values: list[int] = (drawn + np.uint64(offset)).tolist()
            return values
        return list(map(offset.__add__, drawn.tolist()))

    def randints(self, a: int, b: int, count: int) -> list[int]:
        return self.below_many(b - a + 1, count, a)

    def picks(self, pool: Sequence[T], count: int) -> list[T]:
        return list(map(pool.__getitem__, self.below_many(len(pool), count)))

    def randoms(self, count: int) -> np.ndarray[Any, np.dtype[np.floating[Any]]]:
        """``count`` doubles in ``[0, 1)``, 53 random bits each."""
        raw = self._bits(64 * count).to_bytes(8 * count, "little") if count > 0 else b""
        words = np.frombuffer(raw, "<u8")
        return (words >> np.uint64(11)) * 2.0**-53
