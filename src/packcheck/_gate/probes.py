"""Probe cases every run checks besides Hypothesis's: long lists and wide ranges, laid
out from the run's seed where an optimised packer changes path (docs/gate.md, "The
four phases").  A :class:`Probe` is a recipe that builds the same case on every Python."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .edge_probes import EDGE_VARIANTS, edge_case
from .plain_case import PlainCase
from .probe_random import ProbeRandom

__all__ = ["FAMILIES", "LADDER", "Probe", "long_probes", "unit_probes", "wide_probes"]

_POWERS = [2**k + d for k in range(4, 18) for d in (-1, 0, 1)]
_ROUND = [999, 1000, 1001, 4999, 5000, 5001, 9999, 10000, 10001, 20000, 50000, 50001]
_ABOVE = (100_001, 110_000, 131_071, 131_072, 131_073)
#: Long-list lengths, shortest first.  Every family gets one length past 100,000.
LADDER: tuple[int, ...] = tuple(sorted({*_POWERS, *_ROUND, *_ABOVE}))
#: How a long list is filled (see :func:`_fill`).
FAMILIES = ("fits", "oversized", "sawtooth", "mixed", "adaptive")
# Magnitudes a sum crosses: int32, uint32, doubles, int64, uint64.
_LANDMARKS = (2**31, 2**32, 2**53, 2**63, 2**64)
_IDS = ("A", "B", "C", "D", "\U0001f600", "\uff00")
_ABSENT_IDS = ("\U0001f601", "\uff01", "Z", "Z")
# Runs of 4,096 * 2**j equal blocks after 4,096 * (2**j - 1) unit blocks: one whole
# chunk to a reader doubling its chunks from 4,096.
_RUNS = tuple((4096 * (2**j - 1), 4096 * 2**j) for j in range(5))
# Edge probes' lengths: a first chunk that fits whole and the 8,192-block chunk after it.
_EDGE_LENGTHS = {"level edges": 8192, "crowded levels": 5000}


@dataclass(frozen=True, slots=True)
class Probe:
    """How to build one probe case: a family, a length and the seed of its contents."""

    family: str
    length: int
    seed: int
    max_units: int
    spoil: bool = False  # the last size is invalid: {"error":"size"} after a long scan

    def build(self) -> dict[str, Any]:
        """The case, JSON-ready."""
        parts = self.parts()
        if parts is None:
            return _units_case(self.length, ProbeRandom(self._seed_text()))
        return parts.build()

    def parts(self) -> PlainCase | None:
        """The case as its parts, or ``None`` for a unit edge case (not plain)."""
        if self.family == "units":
            return None
        rng = ProbeRandom(self._seed_text())
        if self.family == "run":
            budget, sizes = _run(self.length, self.max_units, rng)
        elif self.family in EDGE_VARIANTS:
            budget, sizes = edge_case(self.family, self.seed, self.length, self.max_units)
        elif self.family in _EXTRA:
            budget, sizes = _EXTRA[self.family](self.length, self.max_units, rng)
        elif self.family.startswith("wide"):
            budget, sizes = _wide(self.family, self.max_units, rng)
        else:
            budget, sizes = _fill(self.family, self.length, self.max_units, rng)
        pool = rng.sample(_IDS, rng.randint(1, 4))
        ids = rng.picks(pool, len(sizes))
        # IDs no block has, either side of UTF-16/code-point order, and repeated.
        required = [*rng.sample(pool, min(2, len(pool))), *ids[-3:], *_ABSENT_IDS]
        rng.shuffle(required)
        if self.spoil and sizes:
            sizes = [*sizes[:-1], 0]
        return PlainCase(budget, ids, sizes, required)

    def _seed_text(self) -> str:
        return f"{self.family}:{self.length}:{self.seed}"

    def shorter(self, length: int) -> Probe:
        return replace(self, length=length)

    def describe(self) -> str:
        """The family and length, for a person."""
        extra = ", last size invalid" if self.spoil else ""
        if self.family == "run":
            return f"{self.length} unit blocks, then {self.length + 4096} equal sizes{extra}"
        if self.family.startswith("wide"):
            mark = int(self.family[5:])
            # The top of the unit range (2**53 - 1) is no power of two: shown as it is.
            at = f"2**{mark.bit_length() - 1}" if mark & (mark - 1) == 0 else f"{mark:,}"
            return f"short case at {at}"
        if self.family == "units":
            return "unit edge case"
        return f"{self.family} list of {self.length} blocks{extra}"


def _scale(length: int, max_units: int, rng: ProbeRandom) -> int:
    """The largest size to draw: sums of ``length`` sizes pass 2**32 where allowed."""
    target: int = 1 << rng.randint(38, 44)
    return max(1, min(max_units, target // max(length, 1)))


def _fill(family: str, length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """A budget and sizes that keep the scan deciding to the end: ``fits``, all fit (the
    last exactly or one short); ``oversized``, every k-th too large; ``sawtooth``, each
    large block misses by one; ``mixed``, log-uniform sizes, the budget spent in the
    last quarter, oversized blocks among them."""
    top = _scale(length, max_units, rng)
    if family == "fits":
        sizes = rng.randints(1, top, length)
        return min(max_units, max(0, sum(sizes) - rng.choice((0, 0, 1)))), sizes
    if family == "oversized":
        every = rng.randint(2, 7)
        sizes = rng.randints(1, top, length)
        budget = min(max_units - 1, sum(sizes) - sum(sizes[::every]))
        big = rng.randint(budget + 1, max(budget + 1, min(max_units, 2 * budget + 1)))
        sizes[::every] = [big] * len(range(0, length, every))
        return budget, sizes
    if family == "sawtooth":
        return _sawtooth(length, max_units, top)
    # mixed: sizes 2**uniform(0, bits); top < 2**45, so doubles hold every size exactly.
    bits = float(top.bit_length())
    powers = map((2.0).__pow__, (rng.randoms(length) * bits).tolist())
    drawn = np.fromiter(powers, dtype=np.float64, count=length)
    sizes = np.minimum(np.trunc(drawn), float(top)).astype(np.int64).tolist()
    budget = min(max_units, sum(sizes[: rng.randint(length * 3 // 4, length)]))
    start = rng.randrange(17)
    misses = rng.below_many(top, len(range(start, length, 17)))
    sizes[start::17] = [min(max_units, budget + 1 + miss) for miss in misses]
    return budget, sizes


def _sawtooth(length: int, max_units: int, top: int) -> tuple[int, list[int]]:
    """``u, R + 1, u, R' + 1, ...``: each large block misses what is left by one unit;
    the last one fits exactly."""
    unit = max(1, min(top, max_units // (length + 1)))
    budget = min(max_units, unit * (length + 1))
    body = max(0, length - 2)
    # Before odd block 2j+1, j+1 blocks of unit were offered, min(j+1, fit) of them kept.
    fit = budget // unit
    kept = min(body // 2, fit)
    misses = list(range(budget + 1 - unit, budget + 1 - unit * (kept + 1), -unit))
    misses += [budget + 1 - unit * fit] * (body // 2 - kept)
    sizes = [unit] * body
    sizes[1::2] = misses
    left = budget - unit * min((body + 1) // 2, fit)
    for i in range(body, length):
        if i % 2 == 0 or left + 1 > max_units:
            size = unit
        else:
            # The last large block fits exactly; every other one misses by one unit.
            size = max(1, left) if i >= length - 2 else left + 1
        sizes.append(size)
        left -= size if size <= left else 0
    return budget, sizes


def _adaptive(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """Sizes drawn from what the rule leaves: mostly a small share of it, about 30 a
    unit either side of ``left // K`` or landing on a share of it, misses every 16 to
    1,024 blocks."""
    budget = max_units if rng.random() < 0.5 else rng.randint(max(1, max_units // 2), max_units)
    rate = 1 / rng.choice((16, 64, 256, 1024))
    edges = 30 / max(length, 1)
    spread = rng.choice((1, 2, 4))
    left, sizes = budget, list[int]()
    anchor, follow = budget, 0  # what was left at the last 4,096-block boundary
    random, append = rng.random, sizes.append
    # Past every edge and miss (roll >= edges + rate), away from the end, no block to
    # follow: the block takes a share of what is left (the last branch below).
    common, second_last = edges + rate, length - 2
    for index in range(length):
        roll = random()
        if index % 4096 == 0:
            anchor = left
        if roll >= common and not follow and index < second_last:
            size = left // max(64, spread * (length - index)) or 1
            append(size)
            if size <= left:
                left -= size
            continue
        if follow:
            # Right after the remaining landed on a share of the anchor: a block one
            # larger than it (or, near the end, exactly it).
            near_end = index >= length - 2
            size, follow = follow + (rng.choice((1, 0)) if near_end else 1), 0
        elif index == length - 1 and roll < 0.5:
            size = left  # an exact fit
        elif index == length - 2 and left < max_units:
            size = left + 1  # a miss near the end, whatever the rate
        elif roll < edges / 2 and left > anchor // 16 > 0:
            # Land the remaining exactly on anchor // K, where a scan in levels of the
            # remaining may end a level.
            target = anchor // rng.choice((16, 16, 16, 8, 32))
            size = left - target if left > target else 1
            follow = target if left > target else 0
        elif roll < edges:
            size = left // rng.choice((2, 4, 8, 16, 16, 32, 64)) + rng.choice((-1, 0, 1))
        elif roll < edges + rate and left < max_units:
            size = left + 1 if roll < edges + rate / 2 else rng.randint(left + 1, max_units)
        else:
            size = left // max(64, spread * (length - index))
        size = max(1, min(max_units, size))
        sizes.append(size)
        left -= size if size <= left else 0
    return budget, sizes


def _huge(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """A budget past int64 (where allowed) and int64 sizes summing past it."""
    low = min(max_units, 2**63 + rng.randint(0, 2**62))
    budget = rng.randint(min(low, max_units), min(max_units, 2**64 + 2**62))
    mean = max(1, min(2**63 - 1, 2 * budget // max(length, 1)))
    # Each size is one of seven: mean * randint(1, 7) // 4, clipped.
    shares = [max(1, min(max_units, 2**63 - 1, mean * r // 4)) for r in range(1, 8)]
    return budget, list(map(shares.__getitem__, rng.below_many(7, length)))


def _big_fits(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """Two blocks of about a quarter of the unit range among small ones, summing to the
    budget or a few units past it: a chunk summed in two halves ends in a near miss."""
    quarter = max(1, max_units // 4)
    small = max(1, 2 * (max_units * 2 // 5) // max(length, 1))
    sizes = rng.randints(1, small, length)
    for _ in range(2):
        sizes[rng.randrange(length)] = rng.randint(max(1, quarter - quarter // 8), quarter)
    total = sum(sizes)
    return max(0, min(max_units, total - rng.choice((0, 1, 1, 2)))), sizes


def _shares(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """A level's opening (blocks of ``tau = B // 16`` or ``tau + 1``), then random
    segments (runs of ``B // K`` or a unit either side, unit blocks, too-large blocks,
    exactly what is left) until the list passes ``length``."""
    marks = [16 * 1000, 16 * 1000 + 15, 16 * 2**40 + 15, 2**56, 2**62 + 2**58, 2**63 - 1]
    budget = rng.choice([m for m in marks if m <= max_units] or [max_units])
    budget = max_units if rng.random() < 0.15 else budget
    too_large = min(budget + 1, max_units, 2**63 - 1) if budget < max_units else budget
    tau = budget // 16
    # Maybe a lead-in that leaves the budget whole, then 14-16 blocks and an edge.
    lead = rng.choice(([], [1] * 2000, [too_large] * 1200))
    edge = rng.choice((tau, tau + 1, tau - 1, budget - 16 * tau, budget - 15 * tau))
    opening = [tau + rng.choice((0, 1))] * rng.choice((14, 15, 16)) + [max(1, edge)]
    sizes: list[int] = []
    left = budget
    for size in (*lead, *opening):
        sizes.append(max(1, min(size, max_units)))
        left -= sizes[-1] if sizes[-1] <= left else 0
    while len(sizes) < length:
        kind = rng.randrange(6)
        share = budget // rng.choice((16, 16, 16, 8, 32, 2, 4, 64))
        if kind <= 1:
            count = rng.choice((1, 14, 15, 16, 16, 300, 700))
            segment = [max(1, share + rng.choice((-1, 0, 1)))] * count
            if kind == 1:
                segment = [max(1, share + d) for _ in range(count) for d in (1, 0, -1)]
        elif kind == 2:
            segment = [1] * rng.choice((50, 1200, 1500, 2000))
        elif kind == 3:
            segment = [too_large] * rng.choice((600, 1200, 1500, 4000))
        elif kind == 4:
            segment = [max(1, left + rng.choice((-1, 0, 1, 1)))]
        else:
            count = rng.choice((2048, 6000))
            segment = [1 if i % 2 == 0 else too_large for i in range(count)]
            segment[rng.randrange(count)] = max(1, budget // rng.choice((2, 3)))
        sizes += segment if max(segment) <= max_units else [min(s, max_units) for s in segment]
        left = _left_after(segment, left)
    return budget, sizes


def _left_after(segment: list[int], left: int) -> int:
    """What the rule leaves of ``left`` after ``segment``."""
    first = segment[0]
    if segment.count(first) == len(segment):
        return left - first * min(len(segment), left // first)
    for size in segment:
        if size <= left:
            left -= size
    return left


def _sparse(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """Blocks too large for the budget, then one to three that fit: for a unit range
    narrower than the list (``max_units >= 2``)."""
    budget = max_units - 1
    fits = min(3, budget, length)
    return budget, [max_units] * (length - fits) + [1] * fits


def _int64_tail(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """4,096 unit blocks, then two int64 blocks that each fit what is left (past int64)
    but not both."""
    units = max(0, length - 2)
    left = min(max_units - units, 2**63 + rng.randint(0, 2**20))
    first = rng.randint(max(1, left - 2**63 + 2), 2**63 - 1)
    tail = [first, rng.randint(max(1, left - first + 1), 2**63 - 1)]
    return units + left, [1] * units + tail[: length - units]


def _used_up(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """Unit blocks under a budget of 61,440 (four whole chunks) and 1 to 15 more: the
    next chunk's level is used up in a few blocks."""
    return min(max_units, 61_440 + rng.randint(1, 15)), [1] * length


def _cut_over(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """Budget 2**17 and sizes 1, 2**18, 1, 2**18, ...: half the blocks fit."""
    return min(max_units, 2**17), [1, min(max_units, 2**18)] * (length // 2) + [1] * (length % 2)


def _drained(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """A first chunk that fits, then unit blocks that use up the 16 or more units left
    (a small-block threshold one unit high once stalled here)."""
    units = max(0, length - 4096)
    left = rng.randint(16, max(16, units - 1))
    top = max(1, min(2**20, (max_units - left) // 4096))
    fill = rng.randints(1, top, length - units)
    return min(max_units, sum(fill) + left), fill + [1] * units


_EXTRA = {
    "adaptive": _adaptive,
    "huge": _huge,
    "big fits": _big_fits,
    "shares": _shares,
    "sparse": _sparse,
    "int64 tail": _int64_tail,
    "used up": _used_up,
    "cut-over": _cut_over,
    "drained": _drained,
}
#: Lists on paths of the kernel the other families do not reach, at their lengths.
_KERNEL_PATHS = {
    "int64 tail": 4098,
    "used up": 61_440 + 65_536,
    "cut-over": 2 * 65_537,
    "drained": 4096 + 8192,
}
#: Lengths of the ``sparse`` lists: one past each power of two and each round threshold.
_SPARSE = (*(2**k + 1 for k in range(4, 18)), 1001, 5001, 10001, 50001, 100_001)


def _run(length: int, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """``length`` unit blocks, ``length + 4096`` equal sizes summing to a landmark, then
    a few unit blocks."""
    count = length + 4096
    # 2**63 where the unit range allows: a sum one bit too narrow wraps exactly there.
    fitting = [m for m in (2**20, *_LANDMARKS[:4]) if m // count <= max_units]
    # Below 256 units no run sums to 2**20: the largest size the range allows.
    size = max(1, max(fitting) // count) if fitting else max_units
    budget = max_units if rng.random() < 0.5 else min(max_units, size * rng.randint(1, 8) + length)
    return budget, [1] * length + [size] * count + [1] * rng.randint(0, 3)


def _wide(family: str, max_units: int, rng: ProbeRandom) -> tuple[int, list[int]]:
    """A short case whose budget or sums cross the landmark named by the family."""
    mark = int(family.split(":")[1])
    half = mark // 2
    templates = [
        (mark + 2, [half + 1, half + 1]),
        (mark + 1, [1, mark]),
        (mark, [mark - 1, 1, 1]),
        (mark - 1, [mark, 1]),
        (mark + 1, [half, half, 1, 1]),
        (2 * mark + 3, [mark + 1, mark + 1, 1]),
        (mark + 3, [mark + 1, 1, 1, 1]),
        (mark, [2 * mark, mark // 4, mark // 4 + 1, mark // 2]),
    ]
    budget, sizes = rng.choice(templates)
    return min(budget, max_units), [max(1, min(s, max_units)) for s in sizes]


# Values a lenient reader takes for units, and valid units it may refuse.
_UNIT_EDGES: tuple[object, ...] = (True, False, "4", "1", 2.5, 0, -1, None, [], {}, 4.0, 1.0)
_ABSENT = object()


def _units_case(index: int, rng: ProbeRandom) -> dict[str, Any]:
    """Edge ``index``: one value of :data:`_UNIT_EDGES` (or an absent key) in one place."""
    values = (*_UNIT_EDGES, _ABSENT)
    value, at_budget = values[index // 2], index % 2 == 0
    ids = rng.sample(_IDS[:4], 3)
    case: dict[str, Any] = {
        "budget": 5,
        "blocks": [{"id": ids[0], "size": 2}, {"id": ids[1], "size": 3}, {"id": ids[2], "size": 1}],
        "required": [ids[2]],
    }
    target = case if at_budget else case["blocks"][2]
    key = "budget" if at_budget else "size"
    if value is _ABSENT:
        del target[key]
    else:
        target[key] = value
    return case


def unit_probes(seed: int) -> Iterator[Probe]:
    """Every edge of what a unit is, as the budget and as a size after the budget is spent."""
    for index in range(2 * (len(_UNIT_EDGES) + 1)):
        yield Probe("units", index, seed, 1)


def long_probes(seed: int, max_units: int) -> Iterator[Probe]:
    """Long lists at every length of :data:`LADDER`, families rotating from the seed's
    offset, then the other families; a few end on an invalid size."""
    rng = ProbeRandom(seed)
    offset = rng.randrange(len(FAMILIES))
    below = [n for n in LADDER if n not in _ABOVE]
    for index, length in enumerate(below):
        family = FAMILIES[(index + offset) % len(FAMILIES)]
        yield Probe(family, length, rng.randrange(2**32), max_units, spoil=index % 11 == 5)
    for prefix, _ in _RUNS[:2]:
        yield Probe("run", prefix, rng.randrange(2**32), max_units)
    for index, length in enumerate(_ABOVE):
        family = FAMILIES[(index + offset) % len(FAMILIES)]
        yield Probe(family, length, rng.randrange(2**32), max_units)
    for prefix, _ in _RUNS[2:]:
        yield Probe("run", prefix, rng.randrange(2**32), max_units)
    for length in (5000, 20000, 65536):
        yield Probe("adaptive", length, rng.randrange(2**32), max_units)
    for length in (1024, 4096, 4097, 12288):
        yield Probe("big fits", length, rng.randrange(2**32), max_units)
    for _ in range(16):
        yield Probe("shares", 12_000, rng.randrange(2**32), max_units)
    if max_units > 2**63:
        for length in (4096, 8193, 40000):
            yield Probe("huge", length, rng.randrange(2**32), max_units)
    # Every variant of each edge family, the variant in the seed's low byte.
    for family, variants in EDGE_VARIANTS.items():
        for variant in range(variants):
            length = _EDGE_LENGTHS.get(family, 12_300)
            yield Probe(family, length, rng.randrange(2**24) << 8 | variant, max_units)
    if max_units >= 2:
        for length in _SPARSE:
            if length > max_units:
                yield Probe("sparse", length, rng.randrange(2**32), max_units)
    for family, length in _KERNEL_PATHS.items():
        if family != "int64 tail" or max_units > 2**63 + length:
            yield Probe(family, length, rng.randrange(2**32), max_units)


def wide_probes(seed: int, max_units: int, count: int = 8) -> Iterator[Probe]:
    """``count`` short cases at each landmark within ``max_units``, plus one at its top."""
    rng = ProbeRandom(seed ^ 0x5EED)
    marks = [m for m in _LANDMARKS if m <= max_units]
    if max_units > 2**20:
        marks.append(max_units)
    for mark in marks:
        for _ in range(count):
            yield Probe(f"wide:{mark}", 0, rng.randrange(2**32), max_units)
