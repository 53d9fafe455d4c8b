"""Hypothesis strategies for cases of the declared packing rule.

Explicit mixtures that reach, with real probability, the cases plain random generation
misses: a block that fits exactly, an invalid size after the budget is spent, a missing
list mixing characters above U+FFFF with U+E000-U+FFFF.  Arguments are keyword-only and
validated when a strategy is built (:class:`hypothesis.errors.InvalidArgument`).
"""

from __future__ import annotations

import math
import sys
import unicodedata
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ._draws import Draws, list_average

__all__ = [
    "MAX_SAFE_UNITS",
    "block_ids",
    "block_lists",
    "budgets",
    "cases",
    "invalid_units",
    "required_lists",
    "units",
]

#: The largest integer a double holds exactly (2**53 - 1): the default unit range.
MAX_SAFE_UNITS = 2**53 - 1
#: Long lists are tiled from a short pattern: 1,000 blocks for a few dozen choices.
LONG_MIN = 1_000
_LANDMARKS = (2**8, 2**16, 2**31, 2**32, 2**52, 2**53, 2**62, 2**63, 2**64)
# Where UTF-16 and code-point order disagree (astral before U+E000-U+FFFF in UTF-16),
# lone surrogates, and composed and decomposed characters.
_BOUNDARY_IDS = (
    *("\U0001f600", "\U00010000", "\U0010ffff", "\ue000", "\uff00", "\uffff"),
    *("\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "a\U0001f600", "a\uff00", "Z"),
    *("\u00e9", "e\u0301", "\u212b"),
)
# How an ID gets a near-twin a packer comparing IDs loosely takes for the ID itself.
# Case and NFD come three times: only some IDs have such a twin.
_PADS = {"space before": (" ", ""), "space after": ("", " "), "tab after": ("", "\t")}
_SUFFIXES = {"astral after": "\U0001f600", "private after": "\uff00", "surrogate after": "\udc00"}
_TWIN_KINDS = ("case",) * 3 + ("nfd",) * 3 + (*_PADS, *_SUFFIXES)
_ACCENTS = ("\u00e9", "e\u0301", "\u00c5", "\u212b", "A\u030a")
_DIGIT_STRINGS = ("4", "1", "0", "4.0", "", " 4", "1e1", "-1")
_ABSENT: Any = object()
_WINDOW = 12


def _check_int(name: str, value: object, *, least: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} must be an integer")
    if value < least:
        raise InvalidArgument(f"{name}={value!r} must be >= {least}")


def _check_bounds(low_name: str, low: int, high_name: str, high: int) -> None:
    if low > high:
        raise InvalidArgument(f"{low_name}={low!r} is greater than {high_name}={high!r}")


def _near(value: int, low: int, high: int) -> tuple[int, int]:
    return max(low, value - 3), min(high, value + 3)


def units(
    *, min_value: int = 1, max_value: int = MAX_SAFE_UNITS, allow_floats: bool = True
) -> st.SearchStrategy[int | float]:
    """Valid units in ``[min_value, max_value]``, weighted towards the edges and the
    powers of two where arithmetic changes width; with ``allow_floats``, integral
    floats such as ``4.0`` too."""
    _check_int("min_value", min_value)
    _check_int("max_value", max_value)
    _check_bounds("min_value", min_value, "max_value", max_value)
    draw_unit = _unit_drawer(min_value, max_value, allow_floats=allow_floats)
    return st.composite(lambda draw: draw_unit(Draws(draw)))()


def _unit_drawer(low: int, high: int, *, allow_floats: bool) -> Callable[[Draws], int | float]:
    """How :func:`units` draws one unit: a range first (an edge, a landmark, anywhere);
    with floats, one in four an integral float."""
    ranges = [(low, min(high, low + 16)), (max(low, high - 3), high), (low, high)]
    ranges += [_near(mark, low, high) for mark in _LANDMARKS if low <= mark <= high]
    floats = allow_floats and low <= 2**53
    top_float = min(high, 2**53)

    def draw_unit(draws: Draws) -> int | float:
        if floats and draws.integer(1, 4) == 4:
            return float(draws.integer(low, top_float))
        return draws.integer(*draws.pick(ranges))

    return draw_unit


def invalid_units(
    *, min_valid: int = 1, max_units: int = MAX_SAFE_UNITS
) -> st.SearchStrategy[object]:
    """Values that are *not* valid units ``>= min_valid``, of every kind the rule names:
    integers below it, fractions, booleans, ``None``, strings (``"4"``), arrays and
    objects."""
    _check_int("min_valid", min_valid)
    _check_int("max_units", max_units, least=1)
    half = min(100, max_units)
    # st.floats() refuses a bound no double holds exactly: the nearest toward zero.
    widest: float = min(max_units, sys.float_info.max)
    if float(widest) != widest:
        nearest = float(widest)
        widest = nearest if nearest < widest else math.nextafter(nearest, 0.0)
    fractions = [x for x in (2.0**51 + 0.5, -0.25, 1e-300) if abs(x) <= max_units]
    kinds: list[st.SearchStrategy[object]] = [
        st.just(min_valid - 1),
        st.one_of(st.sampled_from(sorted({-1, -max_units})), st.integers(-max_units, -1)),
        st.one_of(
            st.integers(-half, half - 1).map(lambda whole: whole + 0.5),
            st.floats(-widest, widest).filter(lambda x: not x.is_integer()),
            st.sampled_from(fractions),
        ),
        st.booleans(),
        st.none(),
        st.one_of(st.sampled_from(_DIGIT_STRINGS), st.integers(0, 99).map(str)),
        st.one_of(st.sampled_from(_DIGIT_STRINGS), st.text(max_size=3)),
        st.sampled_from([[], {}, [1], {"size": 1}]),
    ]
    # Kind first, so each kind is equally likely (one_of() would flatten them).
    return st.sampled_from(kinds).flatmap(lambda kind: kind)


def budgets(
    *, max_value: int = MAX_SAFE_UNITS, allow_invalid: bool = False
) -> st.SearchStrategy[object]:
    """Budgets: valid units ``>= 0`` (zero often), with ``allow_invalid`` non-units too."""
    _check_int("max_value", max_value)
    valid = st.one_of(st.just(0), units(min_value=0, max_value=max_value))
    if not allow_invalid:
        return valid
    return st.one_of(valid, invalid_units(min_valid=0, max_units=max(max_value, 1)))


def block_ids() -> st.SearchStrategy[str]:
    """Block IDs: short names (so IDs repeat), UTF-16 boundary characters, lone
    surrogates, accents composed or not, and arbitrary text."""
    return st.composite(lambda draw: _draw_id(Draws(draw)))()


_NAMES = ("A", "B", "C", "D", "E", "", "\u00e9", "\u212b", "\u00df")
# Lone surrogates, U+E000-U+FFFF and astral characters.
_CHARACTER_RANGES = ((0xD800, 0xDFFF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF))
_TEXT_AVERAGE = list_average(0, 4)
_BOUNDARY_AVERAGE = list_average(2, 3)


def _draw_character(draws: Draws) -> str:
    """Any code point but a surrogate, or one of :data:`_CHARACTER_RANGES`."""
    kind = draws.index(4)
    if kind == 0:
        code = draws.integer(0, 0x10FFFF - 0x800)
        return chr(code + 0x800 if code >= 0xD800 else code)
    return chr(draws.integer(*_CHARACTER_RANGES[kind - 1]))


def _draw_id(draws: Draws) -> str:
    """One ID of :func:`block_ids`, its kind drawn first."""
    kind = draws.index(5)
    if kind == 0:
        return draws.pick(_NAMES)
    if kind == 1:
        return draws.pick(_BOUNDARY_IDS)
    if kind == 2:
        parts = [draws.pick(_BOUNDARY_IDS) for _ in draws.many(2, 3, _BOUNDARY_AVERAGE)]
        return _as_in_json("".join(parts))
    if kind == 3:
        # "Ae\u0301" and "A\u00e9" are one name to a packer that normalises.
        return draws.pick(_NAMES) + draws.pick(_ACCENTS)
    return _as_in_json("".join(_draw_character(draws) for _ in draws.many(0, 4, _TEXT_AVERAGE)))


def _twin_of(text: str, kind: str) -> str:
    """A near-twin of ``text`` of one of :data:`_TWIN_KINDS`; where it has none of that
    kind, the other of case and NFD, else a padded one."""
    if kind in _SUFFIXES:
        return _as_in_json(text + _SUFFIXES[kind])
    if kind in _PADS:
        before, after = _PADS[kind]
        return before + text + after
    tries = [text.swapcase(), _normalised(text)]
    tries = tries if kind == "case" else tries[::-1]
    return next((t for t in tries if t != text), text + " ")


def _normalised(text: str) -> str:
    """The NFD form of ``text``, or its NFC form where NFD changes nothing."""
    decomposed = unicodedata.normalize("NFD", text)
    return decomposed if decomposed != text else unicodedata.normalize("NFC", text)


def _has_twin(text: str, kind: str) -> bool:
    if kind == "case":
        return text.swapcase() != text
    return kind != "nfd" or _normalised(text) != text


def _twin_pair(text: str, kind: str) -> tuple[str, str]:
    """``text`` (given a character with a twin if needed) and its twin."""
    if not _has_twin(text, kind):
        text = _as_in_json(text + ("a" if kind == "case" else "\u00e9"))
    return text, _twin_of(text, kind)


def _as_in_json(text: str) -> str:
    """``text`` as a JSON reader returns it: a high surrogate then a low one joined."""
    return text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def block_lists(
    *,
    min_size: int = 0,
    max_size: int | None = None,
    max_units: int = MAX_SAFE_UNITS,
    ids: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Lists of valid blocks ``{"id", "size"}``; short mostly, 1,000+ blocks sometimes
    (unless ``max_size`` is below 1,000).  IDs repeat and have near-twins; sizes cluster
    around a magnitude drawn for the list; some blocks carry a key the rule ignores."""
    _check_int("min_size", min_size)
    _check_int("max_units", max_units, least=1)
    if max_size is not None:
        _check_int("max_size", max_size)
        _check_bounds("min_size", min_size, "max_size", max_size)
    draw_id: Callable[[Draws], str] = _draw_id if ids is None else lambda d: d.draw(ids)
    draw_blocks = _blocks_drawer(min_size, max_size, max_units, draw_id)
    return st.composite(lambda draw: draw_blocks(Draws(draw)))()


#: A block's extra key, sometimes: the rule ignores it.
_NOTES: tuple[dict[str, str], ...] = ({}, {}, {"text": "ignored"})


def _draw_pool(draws: Draws, draw_id: Callable[[Draws], str]) -> list[str]:
    """A list's pool of one to five IDs, with near-twins of some next to them."""
    pool = [draw_id(draws) for _ in draws.many(1, 5, list_average(1, 5))]
    for _ in draws.many(0, 3, list_average(0, 3)):
        index, kind = draws.integer(0, 4), draws.pick(_TWIN_KINDS)
        at = index % len(pool)
        pool[at : at + 1] = _twin_pair(pool[at], kind)
    return pool


def _blocks_drawer(
    min_size: int, max_size: int | None, max_units: int, draw_id: Callable[[Draws], str]
) -> Callable[[Draws], list[dict[str, Any]]]:
    """How :func:`block_lists` draws one list."""
    marks = sorted({1, max_units, *(m for m in (16, *_LANDMARKS) if m <= max_units)})
    any_size = _unit_drawer(1, max_units, allow_floats=True)
    # Per magnitude: any size, one within three of it, or a quarter to a half of it.
    near = {mark: _near(mark, 1, max_units) for mark in marks}
    part = {mark: (max(1, mark // 4), max(1, mark // 2)) for mark in marks}
    short_max = 12 if max_size is None else min(max_size, 12)
    short_min = min(min_size, short_max)
    short_average = list_average(short_min, short_max)
    allow_long = max_size is None or max_size >= LONG_MIN
    top = LONG_MIN + 200 if max_size is None else min(max_size, LONG_MIN + 200)

    def draw_block(draws: Draws, pool: list[str], mark: int) -> dict[str, Any]:
        name = pool[draws.integer(0, 4) % len(pool)] if draws.index(2) == 0 else draw_id(draws)
        kind = draws.index(3)
        size = any_size(draws) if kind == 0 else draws.integer(*(near, part)[kind - 1][mark])
        return {"id": name, "size": size} | draws.pick(_NOTES)

    def draw_blocks(draws: Draws) -> list[dict[str, Any]]:
        pool = _draw_pool(draws, draw_id)
        mark = draws.pick(marks)
        long = allow_long and draws.integer(0, 255) >= 250
        drawn = [
            draw_block(draws, pool, mark) for _ in draws.many(short_min, short_max, short_average)
        ]
        # Drawn whether or not the list is long, so that the choices after it stay
        # aligned when the shrinker turns a long list into its short pattern.
        length = draws.integer(LONG_MIN, top) if allow_long else 0
        if long and drawn:
            # A long counterexample shrinks to its pattern by one choice (the roll).
            return [dict(drawn[i % len(drawn)]) for i in range(length)]
        if len(drawn) < min_size:
            more = min_size - len(drawn)
            average = list_average(more, math.inf)
            drawn += [draw_block(draws, pool, mark) for _ in draws.many(more, math.inf, average)]
        return drawn

    return draw_blocks


def required_lists(*, known: list[str] | None = None) -> st.SearchStrategy[list[str]]:
    """Required IDs: ``known`` ones and others, repeats allowed, empty often."""
    wanted = st.one_of(st.sampled_from(known), block_ids()) if known else block_ids()
    return st.one_of(st.just([]), st.lists(wanted, max_size=6))


def _draw_pick(draws: Draws) -> int | str | tuple[int, str]:
    """A required ID: a block's ID, a near-twin of one, or a fresh ID."""
    kind = draws.index(5)
    if kind == 0:
        return draws.integer(0, _WINDOW - 1)
    if kind <= 2:
        return _draw_id(draws)
    return draws.integer(0, _WINDOW - 1), draws.pick(_TWIN_KINDS)


#: What a budget fitting a subset of the head blocks exactly may have to spare.
_SLACK = (0, 0, 0, 1, 2)


def _draw_budget(draws: Draws, sizes: list[int], any_budget: Callable[[Draws], Any]) -> Any:
    """A budget drawn from the blocks' ``sizes`` as often as not (derived ones first:
    they shrink with the sizes)."""
    head = sizes[:_WINDOW]
    mode = draws.integer(0, 4)
    if mode == 0:
        # A subset of the head, as "left out" flags: the simplest fits every block.
        out = [draws.boolean(0.5) for _ in head]
        budget = sum(s for s, o in zip(head, out, strict=True) if not o)
        return budget + draws.pick(_SLACK)
    if mode == 1:
        return sum(sizes[: len(sizes) - draws.integer(0, len(sizes))])
    if mode == 2:
        return any_budget(draws)
    if mode == 3 and sizes:
        return min(sizes) - 1  # every block is larger than the whole budget
    return 0


def cases(
    *,
    min_blocks: int = 0,
    max_blocks: int | None = None,
    max_units: int = MAX_SAFE_UNITS,
    allow_invalid: bool = True,
) -> st.SearchStrategy[dict[str, Any]]:
    """Whole cases ``{"budget", "blocks", "required"}``, JSON-ready, units within
    ``±max_units``.  The budget is often an exact sum of some blocks; with
    ``allow_invalid`` about a third carry an invalid unit or an absent key."""
    _check_int("min_blocks", min_blocks)
    _check_int("max_units", max_units, least=1)
    if max_blocks is not None:
        _check_int("max_blocks", max_blocks)
        _check_bounds("min_blocks", min_blocks, "max_blocks", max_blocks)
    draw_blocks = _blocks_drawer(min_blocks, max_blocks, max_units, _draw_id)
    any_budget = _unit_drawer(0, max_units, allow_floats=False)
    bad_budget = invalid_units(min_valid=0, max_units=max_units)
    bad_size = invalid_units(min_valid=1, max_units=max_units)
    picks_average = list_average(0, 6)

    def draw_case(draws: Draws) -> dict[str, Any]:
        block_list = draw_blocks(draws)
        sizes = [int(b["size"]) for b in block_list]
        budget: int | float = min(max_units, _draw_budget(draws, sizes, any_budget))
        if budget <= 2**53 and draws.integer(0, 7) == 7:
            budget = float(budget)  # an integral float is a valid unit: 4.0 == 4
        known = [b["id"] for b in block_list[:_WINDOW]]
        picks = [_draw_pick(draws) for _ in draws.many(0, 6, picks_average)]
        required = [_required_id(known, p) for p in picks]
        case: dict[str, Any] = {"budget": budget, "blocks": block_list, "required": required}
        if allow_invalid and draws.integer(1, 10) >= 7:
            _spoil(draws, case, bad_budget, bad_size)
        return case

    return st.composite(lambda draw: draw_case(Draws(draw)))()


def _required_id(known: list[str], pick: int | tuple[int, str] | str) -> str:
    """A fresh ID, or a known block ID (or a twin of one) by its index."""
    if isinstance(pick, str):
        return pick
    if isinstance(pick, int):
        return known[pick % len(known)] if known else "A"
    index, kind = pick
    order = known[index % len(known) :] + known[: index % len(known)] if known else ["A"]
    base = next((text for text in order if _has_twin(text, kind)), order[0])
    return _twin_of(base, kind)


def _spoil(
    draws: Draws,
    case: dict[str, Any],
    bad_budget: st.SearchStrategy[object],
    bad_size: st.SearchStrategy[object],
) -> None:
    """Make the budget or one to three sizes invalid or absent."""
    block_list: list[dict[str, Any]] = case["blocks"]
    if not block_list or draws.integer(0, 3) == 3:
        _set(case, "budget", _ABSENT if draws.integer(1, 3) == 3 else draws.draw(bad_budget))
        return
    last = len(block_list) - 1
    for _ in range(draws.integer(1, 3)):
        index = last if draws.index(2) == 0 else draws.integer(0, last)
        value = _ABSENT if draws.integer(1, 5) == 5 else draws.draw(bad_size)
        _set(block_list[index], "size", value)


def _set(target: dict[str, Any], key: str, value: object) -> None:
    if value is _ABSENT:
        target.pop(key, None)
    else:
        target[key] = value
