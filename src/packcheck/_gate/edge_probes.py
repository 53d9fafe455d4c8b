"""Probe cases at the edges of a scan in levels: exact equalities a random draw misses.

Each case is a run of *scenes* laid out on the rule's arithmetic where a level starts,
separated by blocks too large for what is left; the variant is in the low byte of the
probe's seed.  A shorter probe is a prefix of a longer one (docs/design.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from .._engines.levels import LANDMARKS
from .probe_random import ProbeRandom

__all__ = ["EDGE_FAMILIES", "EDGE_VARIANTS", "edge_case"]

_INT64_MAX = 2**63 - 1
# The level ratio: tau = R // _K.
_K = LANDMARKS["level_ratio"]
# The first chunk's length; a chunk that fits whole is followed by one twice as long.
_CHUNK = LANDMARKS["chunk"]
# The ends of the first three steps of the search for a fitting large block.
_TURNS = tuple(
    sum(LANDMARKS["first_step"] * LANDMARKS["growth"] ** i for i in range(k + 1)) for k in range(3)
)
# A step's last, first and second positions after the search's start.
_STEP_EDGES = tuple(turn + offset for turn in _TURNS for offset in (-1, 0, 1))
_AIMS = ("below", "at", "above", "own")
_LEADS = ("none", "too large", "fits whole")
# (chunk, the first large block that fits, blocks between it and the next or -1).
_SEARCHES = (
    *((_CHUNK, first, _TURNS[0] - 1 + first) for first in (0, 1, 2)),
    *((_CHUNK, first, _TURNS[1] - 1 + first) for first in (0, 1, 2)),
    *((_CHUNK, first, -1) for first in (*_STEP_EDGES[:6], _CHUNK - 1)),
    *((2 * _CHUNK, first, _TURNS[2] - 1 + first) for first in (0, 1, 2)),
    *((2 * _CHUNK, first, -1) for first in (_TURNS[2], 2 * _CHUNK - 1)),
)
_HUGE_MARKS = (2**63, 2**63 + 1, 2**64, 2**64 + 1, 0)  # 0: the sum of a prefix
_HUGE_SHAPES = ("first chunk", "wider chunk", "short list")
# crowded levels: tau from 1 to 15, and as many scenes at the top of int64.
_CROWDED_TAUS = _K - 1
#: The probe families laid out here, with how many variants each has.
EDGE_VARIANTS = {
    "level edges": len(_AIMS) * len(_LEADS) + 10,
    "search edges": len(_SEARCHES),
    "sums past 2**63": 12,
    "prefix past int64": len(_HUGE_MARKS) * len(_HUGE_SHAPES),
    "crowded levels": 2 * _CROWDED_TAUS,
}
EDGE_FAMILIES = tuple(EDGE_VARIANTS)


class _Layout:
    """A list being laid out, and what the rule leaves of the budget after it."""

    def __init__(self, budget: int, max_units: int, rng: ProbeRandom) -> None:
        self.budget = budget
        self.left = budget
        self.rng = rng
        self.top = min(max_units, _INT64_MAX)  # the largest size laid out
        self.sizes: list[int] = []
        self.ends = False  # the list ends here

    def add(self, size: int) -> None:
        self.extend((size,))

    def extend(self, sizes: Iterable[int]) -> None:
        """Lay out ``sizes``, each clipped to ``1..top``."""
        top, left = self.top, self.left
        append = self.sizes.append
        for size in sizes:
            if size > top:
                size = top
            elif size < 1:
                size = 1
            append(size)
            if size <= left:
                left -= size
        self.left = left

    def ones(self, count: int) -> None:
        """``count`` unit blocks (none below 1)."""
        if count > 0:
            self.sizes += [1] * count
            self.left = max(0, self.left - count)

    def too_large(self) -> int | None:
        """One of :meth:`too_large_ones`, or ``None``."""
        return None if self.left >= self.top else self.rng.choice(self.too_large_ones())

    def too_large_ones(self) -> tuple[int, ...]:
        """Sizes above what is left, or ``(1,)``."""
        if self.left >= self.top:
            return (1,)
        return (self.left + 1, self.top, self.rng.randint(self.left + 1, self.top))

    def filler(self) -> None:
        """1,100 to 1,300 too-large blocks: a scan in levels starts its next level in them."""
        count = self.rng.randint(1100, 1300)
        self.sizes += self.rng.picks(self.too_large_ones(), count)


def edge_case(family: str, seed: int, length: int, max_units: int) -> tuple[int, list[int]]:
    """The budget and sizes of probe ``(family, seed)``, cut at ``length`` blocks."""
    rng = ProbeRandom(f"{family}:{seed}")
    variant = (seed & 0xFF) % EDGE_VARIANTS[family]
    lay = None
    if family == "sums past 2**63":
        lay = _sums_past_2_63(variant, max_units, rng)
    elif family == "prefix past int64":
        lay = _prefix_past_int64(variant, max_units, rng)
    elif family == "crowded levels":
        lay = _crowded(variant, max_units, rng)
    elif family == "search edges":
        width, first, gap = _SEARCHES[variant]
        # Landmarks past 2**40: the unit blocks between the large ones must not matter.
        lay = _Layout(_budget(max_units, rng, 1 + variant % 6), max_units, rng)
        if width > _CHUNK:
            lay.ones(_CHUNK)
        if not _search(lay, width, first, gap):
            lay = None
    elif variant >= len(_AIMS) * len(_LEADS) + 8:
        lay = _Layout(_budget(max_units, rng, variant), max_units, rng)
        if variant % 2 and lay.too_large() is not None:
            lay.filler()
        _large_only(lay)
    elif variant >= len(_AIMS) * len(_LEADS):
        small = variant - len(_AIMS) * len(_LEADS)
        lay = _Layout(_budget(max_units, rng, variant), max_units, rng)
        if rng.random() < 0.5:
            lay.ones(_CHUNK)
        _all_small(lay, ("below", "below", "at", "above")[small % 4], small // 4)
    if lay is None:
        # level edges, and any scene the unit range cannot hold: a level that lands.
        budget = _budget(max_units, rng, variant)
        lead = _LEADS[variant // len(_AIMS) % len(_LEADS)]
        if variant % len(_AIMS) == 3 and lead != "too large" and budget | 1 < max_units:
            budget |= 1  # a block leaving its own size at an odd remaining too (R | 1 = R)
        lay = _Layout(budget, max_units, rng)
        if lead == "fits whole":
            lay.ones(_CHUNK)
        elif lead == "too large":
            for _ in range(rng.randint(1, 3000)):
                if (big := lay.too_large()) is None:
                    break  # nothing is too large for a budget at the top of int64
                lay.add(big)
        _land(lay, _AIMS[variant % len(_AIMS)])
    while len(lay.sizes) < length and not lay.ends:
        lay.filler()  # also where too little is left for another scene
        if lay.left < _K * 8:
            continue
        roll = rng.random()
        if roll < 0.2:
            _search(lay, rng.randint(2048, 2600), 0, rng.choice(_STEP_EDGES[:3]))
        elif roll < 0.35:
            _crowd(lay)
        elif roll < 0.45:
            _large_only(lay)
        else:
            _land(lay, rng.choice(_AIMS))
    return lay.budget, lay.sizes[:length]


def _budget(max_units: int, rng: ProbeRandom, pick: int) -> int:
    """Budget ``pick`` (modulo 9) below int64 and ``max_units``: a landmark or random."""
    top = min(max_units - 1, _INT64_MAX)
    marks = [16 * 1000 + rng.randrange(16), 16 * 2**40 + 15, 2**56 + rng.randrange(16)]
    marks += [2**62, 2**62 + 2**58, 2**63 - 2, 2**63 - 1]
    if pick % 9 < len(marks) and marks[pick % 9] <= top:
        return marks[pick % 9]
    return max(1, min(top, int(2 ** rng.uniform(14, max(14, top.bit_length())))))


def _land(lay: _Layout, aim: str) -> bool:
    """Small blocks that land the remaining on ``tau - 1``, ``tau`` or ``tau + 1``
    (``aim``), or for ``own`` on twice a size then leaving exactly that size."""
    rng = lay.rng
    tau = lay.left // _K
    if tau < 8:
        return False
    own = rng.choice((tau, tau - 1, rng.randint((tau + 1) // 2, tau)))
    target = 2 * own if aim == "own" else tau + _AIMS.index(aim) - 1
    keeps = 0 if aim == "own" else rng.choice((0, 0, 1, 2, 3))
    style = rng.randrange(4)
    lay.ones(min(rng.randint(64, 300), (lay.left - target) // 4))
    while (gap := lay.left - target) > 2 * tau:
        roll = rng.random()
        if roll < 0.15:
            lay.add(lay.too_large() or 1)
        elif roll < 0.2 and keeps and gap - 1 > tau + 1:
            keeps -= 1
            lay.add(rng.randint(tau + 1, max(tau + 1, min(gap - 1, gap // 2))))
        else:
            small = (tau, tau - rng.randrange(3), rng.randint(1, tau), rng.choice((1, tau)))
            lay.add(min(small[style], gap - 1))
    while (gap := lay.left - target) > tau:  # once at most: it leaves a gap of 1 to tau
        lay.add(rng.randint(gap - tau, min(tau, gap - 1)))
    if rng.random() < 0.5:
        lay.add(lay.too_large() or 1)
    lay.add(lay.left - target)  # at most tau: small
    if aim == "own":
        lay.add(own)
    left = lay.left
    after = {
        "below": (tau, tau, tau + 1),
        "at": (tau + 1, tau + 1, 1),
        "above": (tau + 2, tau + 2, tau),
        "own": (left + 1,) * 3,
    }[aim]
    lay.add(left if rng.random() < 0.15 else rng.choice(after))
    if lay.left >= tau:
        lay.add(rng.randint(lay.left - tau + 1, min(tau, lay.left)))  # the level ends
    return True


def _crowd(lay: _Layout) -> None:
    """14 or 15 large blocks of ``tau + 1`` that fit one level (the most one can keep)."""
    rng = lay.rng
    tau = lay.left // _K
    ones = rng.randint(64, 300)
    count = 15 if ones + 15 * (tau + 1) <= lay.left and rng.random() < 0.7 else 14
    if ones + count * (tau + 1) > lay.left:
        return
    lay.ones(ones)
    for _ in range(count):
        lay.add(tau + 1)
        if rng.random() < 0.5:
            lay.add(lay.too_large() or 1)
    if lay.left >= tau:
        lay.add(rng.randint(lay.left - tau + 1, min(tau, lay.left)))  # the level ends


def _large_only(lay: _Layout) -> None:
    """4,200 blocks above ``tau`` (a whole chunk): misses and 1 to 14 large fits."""
    rng = lay.rng
    tau = lay.left // _K
    keeps = set(rng.sample(range(4200), rng.randint(1, 14)))
    for index in range(4200):
        room = lay.left - tau - 1  # what a kept block may take: the remaining stays > tau
        if index in keeps and room > tau:
            lay.add(rng.choice((tau + 1, room, rng.randint(tau + 1, room))))
        elif rng.random() < 0.5:
            lay.add(lay.left + 1)  # a near miss, above tau while the remaining is >= tau
        else:
            lay.add(lay.too_large() or lay.left + 1)
    lay.add(lay.left - rng.randrange(max(1, tau)))


def _all_small(lay: _Layout, aim: str, depth: int) -> None:
    """A chunk of blocks at most ``tau``: ``depth`` levels, then one that lands."""
    rng = lay.rng
    chunk = _CHUNK if not lay.sizes else 2 * _CHUNK
    end = len(lay.sizes) + chunk
    unit = lay.left // _K ** (depth + 1) // 2
    if unit < 8:
        return
    for _ in range(depth):
        tau = lay.left // _K
        while lay.left >= tau:
            lay.add(rng.randint(unit // 2, unit))
    tau = lay.left // _K
    target = tau + _AIMS.index(aim) - 1
    style = rng.randrange(3)
    while (gap := lay.left - target) > 2 * tau:
        small = (tau, tau - rng.randrange(3), rng.randint(1, tau))
        lay.add(min(small[style], gap - 1))
    while (gap := lay.left - target) > tau:  # once at most
        lay.add(rng.randint(gap - tau, min(tau, gap - 1)))
    lay.add(lay.left - target)
    after = {"below": (tau,), "at": (1, tau, tau + 1), "above": (tau, 1, tau)}
    lay.add(rng.choice(after[aim]))
    lay.extend(rng.randints(1, tau, end - len(lay.sizes)))


def _search(lay: _Layout, width: int, first: int, gap: int) -> bool:
    """``width`` blocks: unit blocks between too-large ones, and large fits at
    ``first`` and ``gap`` blocks after it (none if -1)."""
    rng = lay.rng
    tau = lay.left // _K
    if tau < 4 * width:
        return False
    second = first + 1 + gap if gap >= 0 else -1
    parity = rng.randrange(2)
    bigs = lay.too_large_ones()
    start = 0
    for place in sorted({first, second} & set(range(width))):
        _units_and_misses(lay, range(start, place), parity, bigs)
        exact = place == second and rng.random() < 0.25
        lay.add(lay.left if exact else rng.randint(tau + 1, max(tau + 1, lay.left // 4)))
        bigs = lay.too_large_ones()
        start = place + 1
    _units_and_misses(lay, range(start, width), parity, bigs)
    # A large block that fits and leaves less than tau: the level ends.
    lay.add(lay.left - rng.randrange(tau))
    return True


def _units_and_misses(lay: _Layout, indices: range, parity: int, bigs: tuple[int, ...]) -> None:
    """A unit block at each index of ``parity``, a pick of ``bigs`` at the others."""
    rng = lay.rng
    if len(bigs) == 1:
        # Nothing was too large yet (a budget at the top of int64): picked one by one.
        for index in indices:
            if index % 2 == parity:
                lay.add(1)
            else:
                if len(bigs) == 1:
                    bigs = lay.too_large_ones()
                lay.add(rng.choice(bigs))
        return
    run = [1] * len(indices)
    misses = range(indices.start + (indices.start % 2 == parity), indices.stop, 2)
    run[misses.start - indices.start :: 2] = rng.picks(bigs, len(misses))
    lay.sizes += run
    lay.left = max(0, lay.left - (len(run) - len(misses)))


def _sums_past_2_63(variant: int, max_units: int, rng: ProbeRandom) -> _Layout | None:
    """A level of blocks of about ``tau`` whose sums pass 2**63 within its chunk."""
    wide, style, many = variant & 1, (variant >> 1) % 3, variant >= 6
    chunk = 2 * _CHUNK if wide else _CHUNK
    if style == 0:
        tau = 2**64 // chunk - rng.choice((0, 0, 1, rng.randrange(1, 4096)))
    elif style == 1:
        tau = rng.randint(2**63 // chunk * 33 // 32, 2**64 // chunk)
    else:
        tau = rng.randint(2**64 // chunk, 2**58)
    lead = _CHUNK if wide else 0
    budget = _K * tau + rng.randrange(_K) + lead
    if budget > min(max_units - 1, _INT64_MAX):
        return None
    lay = _Layout(budget, max_units, rng)
    lay.ones(lead)
    for _ in range(rng.choice((1, 3, 200)) if many else 0):
        lay.add(lay.too_large() or 1)
    kind = rng.randrange(2 + style)
    for index in range(chunk + rng.randrange(200)):
        sizes = (tau, tau - rng.randrange(4), rng.randint(tau - tau // 64, tau))
        lay.add(rng.randint(1, tau) if kind == 3 and index % 2 else sizes[kind % 3])
    return lay


def _prefix_past_int64(variant: int, max_units: int, rng: ProbeRandom) -> _Layout | None:
    """A budget past int64 whose longest fitting prefix ends on an exact sum (module)."""
    mark = _HUGE_MARKS[variant % len(_HUGE_MARKS)]
    shape = _HUGE_SHAPES[variant // len(_HUGE_MARKS) % len(_HUGE_SHAPES)]
    if max_units < 2**67:
        return None  # budgets up to 9 blocks of 2**63
    if shape == "short list":
        chunk = rng.choice(range(5, _CHUNK, 2))  # odd: no power of two
    else:
        chunk = 2 * _CHUNK if shape == "wider chunk" else _CHUNK
    lead = rng.randints(1, 2**40, _CHUNK if shape == "wider chunk" else 0)
    content = rng.randints(1, 2**40, chunk)
    places = sorted(rng.sample(range(chunk), min(chunk, rng.randint(4, 9))))
    for place in places:
        content[place] = rng.randint(2**62, _INT64_MAX)
    # At a landmark the last large block of the prefix makes it sum to it, exactly.
    held = 3 if mark >= 2**64 else 2
    cut = places[held] if mark else places[held + rng.randrange(len(places) - held)]
    if mark:
        for place in places[: held - 1]:
            content[place] = rng.randint(2**62, 2**62 + 2**61)
    if mark == 0 and rng.random() < 0.25:
        cut, delta = chunk, rng.choice((0, 1))  # the whole chunk fits, to the unit
    else:
        nxt = content[cut]
        delta = rng.choice((0, 0, 1, nxt - 1, rng.randint(0, nxt - 1)))
    budget = sum(content[:cut]) + delta
    if mark:
        adjust = places[held - 1]
        slack = delta if 1 <= content[adjust] + mark - budget <= _INT64_MAX else 1
        value = min(max(1, content[adjust] + mark - (budget - delta + slack)), _INT64_MAX)
        budget += value - content[adjust] - delta + slack
        content[adjust] = value
    # The landmark is the remaining where the chunk starts, after a lead that fits whole.
    lay = _Layout(budget + sum(lead), max_units, rng)
    lay.extend(lead + content)
    lay.ends = shape == "short list"
    return lay


def _crowded(variant: int, max_units: int, rng: ProbeRandom) -> _Layout | None:
    """A level with more than ``_K`` blocks of ``tau = variant + 1``; past
    :data:`_CROWDED_TAUS`, blocks of about ``tau`` whose sums pass 2**63."""
    if variant < _CROWDED_TAUS:
        tau = variant + 1
        budget = _K * tau + rng.randint(tau, _K - 1)
        if budget + 1 > max_units:
            return None
        lay = _Layout(budget, max_units, rng)
        # 17 blocks of tau fit: as large ones they are more than a level can keep.
        opening = [tau] * rng.randint(_K + 1, 40)
        lay.extend(opening + rng.picks((tau, tau + 1), 4200))
        return lay
    budget = _INT64_MAX - rng.randrange(_K)
    if budget + 1 > max_units:
        return None
    lay = _Layout(budget, max_units, rng)
    tau = budget // _K
    lay.ones(rng.randrange(300))
    style = variant % 3
    total = sum(lay.sizes)
    while total < 2**63 + 4 * tau:
        size = (tau, tau - rng.randrange(4), rng.randint(tau - tau // 64, tau))[style]
        lay.add(size)
        total += size
    lay.extend(rng.picks((tau + 1, tau, 1), 3000))
    return lay
