"""Hypothesis strategies for cases of the declared packing rule.

Plain random generation almost never builds the cases where packers go wrong: a block
that fits *exactly*, an invalid size after the budget is spent, a missing list mixing
characters above U+FFFF with U+E000-U+FFFF.  These strategies are explicit mixtures
that reach each such class with real probability; ``tests/verify/test_strategies.py``
measures every one of them.

Every strategy takes keyword-only arguments, validated like Hypothesis's own: a bad
value or an impossible combination raises :class:`hypothesis.errors.InvalidArgument`
when the strategy is built, never an empty search space at run time.
"""

from __future__ import annotations

import sys
import unicodedata
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

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
#: Long lists stress vectorised engines; they are built by tiling a short pattern so
#: that a 1,000-block case costs a few dozen choices, not thousands.
LONG_MIN = 1_000
_LANDMARKS = (2**8, 2**16, 2**31, 2**32, 2**52, 2**53, 2**62, 2**63, 2**64)
# Code points where UTF-16 order and code-point order disagree, and their neighbours:
# astral characters (surrogate pairs) sort *before* U+E000-U+FFFF in UTF-16.
_BOUNDARY_IDS = (
    "\U0001f600",
    "\U00010000",
    "\U0010ffff",
    "\ue000",
    "\uff00",
    "\uffff",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
    "\ud83d",
    "a\U0001f600",
    "a\uff00",
    "Z",
    # Composed and decomposed characters: U+00E9 is "e\u0301" after NFD, U+212B
    # (Angstrom sign) is U+00C5 after NFC.
    "\u00e9",
    "e\u0301",
    "\u212b",
)
# How an ID gets a near-twin: a packer comparing IDs loosely (casefold, strip, Unicode
# normalisation, lossy encoding) takes the twin for the ID itself.  Case and NFD come
# three times: only IDs with a cased or composable character have such a twin.
_TWIN_KINDS = (
    "case",
    "case",
    "case",
    "nfd",
    "nfd",
    "nfd",
    "space before",
    "space after",
    "tab after",
    "astral after",
    "private after",
    "surrogate after",
)
_PADS = {"space before": (" ", ""), "space after": ("", " "), "tab after": ("", "\t")}
_SUFFIXES = {"astral after": "\U0001f600", "private after": "\uff00", "surrogate after": "\udc00"}
_ACCENTS = ("\u00e9", "e\u0301", "\u00c5", "\u212b", "A\u030a")
# Numeric strings: "4" is not the unit 4, however a lenient reader converts it.
_DIGIT_STRINGS = ("4", "1", "0", "4.0", "", " 4", "1e1", "-1")
_ABSENT: Any = object()
_WINDOW = 12


def _weighted(
    *, draw_first: st.SearchStrategy[Any], rarely: st.SearchStrategy[Any], one_in: int
) -> st.SearchStrategy[Any]:
    """``rarely`` about once in ``one_in`` draws, else ``draw_first`` (which shrinks first)."""
    return st.integers(1, one_in).flatmap(lambda roll: rarely if roll == one_in else draw_first)


def _check_int(name: str, value: object, *, least: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} must be an integer")
    if value < least:
        raise InvalidArgument(f"{name}={value!r} must be >= {least}")


def _check_bounds(low_name: str, low: int, high_name: str, high: int) -> None:
    if low > high:
        raise InvalidArgument(f"{low_name}={low!r} is greater than {high_name}={high!r}")


def _near(value: int, low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(max(low, value - 3), min(high, value + 3))


def units(
    *, min_value: int = 1, max_value: int = MAX_SAFE_UNITS, allow_floats: bool = True
) -> st.SearchStrategy[int | float]:
    """Valid units in ``[min_value, max_value]``, weighted towards the edges.

    Besides uniform draws: values next to ``min_value`` and ``max_value``, next to
    2**31, 2**32, 2**53, 2**63, 2**64 (those in range) and small values; with
    ``allow_floats``, integral floats such as ``4.0`` (valid units, exactly
    representable ones only).
    """
    _check_int("min_value", min_value)
    _check_int("max_value", max_value)
    _check_bounds("min_value", min_value, "max_value", max_value)
    low, high = min_value, max_value
    parts: list[st.SearchStrategy[int]] = [
        st.integers(low, min(high, low + 16)),
        st.integers(max(low, high - 3), high),
        st.integers(low, high),
    ]
    parts += [_near(mark, low, high) for mark in _LANDMARKS if low <= mark <= high]
    ints = st.one_of(parts)
    if not allow_floats or low > 2**53:
        return ints
    # Every integer up to 2**53 is a double exactly, so float() cannot round here.
    exact = st.integers(low, min(high, 2**53)).map(float)
    return _weighted(draw_first=ints, rarely=exact, one_in=4)


def invalid_units(
    *, min_valid: int = 1, max_units: int = MAX_SAFE_UNITS
) -> st.SearchStrategy[object]:
    """Values that are *not* valid units ``>= min_valid``: every kind the rule names.

    Integers below ``min_valid`` (zero for sizes, negatives down to ``-max_units``),
    fractions (``2.5``, also next to large integers), booleans, ``None``, strings
    (``"4"``), and empty arrays and objects.  An absent key is not a value: see
    :func:`cases`.
    """
    _check_int("min_valid", min_valid)
    _check_int("max_units", max_units, least=1)
    half = min(100, max_units)
    # st.floats() refuses a bound past the largest double (about 1.8e308).
    widest = min(max_units, sys.float_info.max)
    fractions = [x for x in (2.0**51 + 0.5, -0.25, 1e-300) if abs(x) <= max_units]
    kinds: list[st.SearchStrategy[object]] = [
        # Just below the floor: zero for sizes, -1 for budgets.
        st.just(min_valid - 1),
        st.one_of(st.sampled_from(sorted({-1, -max_units})), st.integers(-max_units, -1)),
        # 2**51 + 0.5 is exact in a double: a fraction next to a large integer.
        st.one_of(
            st.integers(-half, half - 1).map(lambda whole: whole + 0.5),
            st.floats(-widest, widest).filter(lambda x: not x.is_integer()),
            st.sampled_from(fractions),
        ),
        st.booleans(),
        st.none(),
        # Numeric strings in both string kinds: a lenient reader takes "4" for 4.
        st.one_of(st.sampled_from(_DIGIT_STRINGS), st.integers(0, 99).map(str)),
        st.one_of(st.sampled_from(_DIGIT_STRINGS), st.text(max_size=3)),
        st.sampled_from([[], {}, [1], {"size": 1}]),
    ]
    # Kind first, so each kind is equally likely (one_of() would flatten the branches).
    return st.sampled_from(kinds).flatmap(lambda kind: kind)


def budgets(
    *, max_value: int = MAX_SAFE_UNITS, allow_invalid: bool = False
) -> st.SearchStrategy[object]:
    """Budgets: valid units ``>= 0`` (zero often), or with ``allow_invalid`` also non-units."""
    _check_int("max_value", max_value)
    valid = st.one_of(st.just(0), units(min_value=0, max_value=max_value))
    if not allow_invalid:
        return valid
    return st.one_of(valid, invalid_units(min_valid=0, max_units=max(max_value, 1)))


def block_ids() -> st.SearchStrategy[str]:
    """Block IDs: a few short names (so IDs repeat), UTF-16 boundary characters, lone
    surrogates, names with a composed or decomposed accent, and arbitrary text mixing
    them."""
    names = ["A", "B", "C", "D", "E", "", "\u00e9", "\u212b", "\u00df"]
    boundary = st.sampled_from(_BOUNDARY_IDS)
    alphabet = st.one_of(
        st.characters(),
        st.integers(0xD800, 0xDFFF).map(chr),
        st.integers(0xE000, 0xFFFF).map(chr),
        st.integers(0x10000, 0x10FFFF).map(chr),
    )
    return st.one_of(
        st.sampled_from(names),
        boundary,
        st.lists(boundary, min_size=2, max_size=3).map("".join).map(_as_in_json),
        # "Ae\u0301" and "A\u00e9" are one name to a packer that normalises.
        st.tuples(st.sampled_from(names), st.sampled_from(_ACCENTS)).map("".join),
        st.text(alphabet, max_size=4).map(_as_in_json),
    )


def _twin_of(text: str, kind: str) -> str:
    """A near-twin of ``text``: another ID that a loose comparison takes for it.

    ``kind`` is one of ``case`` (``"a"``/``"A"``, ``"\u00df"``/``"SS"``), ``nfd``
    (composed ``"\u00e9"``/decomposed ``"e\u0301"``, either way), ``space before``,
    ``space after``, ``tab after`` (``" A"``/``"A"``), ``astral after``, ``private
    after`` and ``surrogate after`` (a character a lossy encoding drops or replaces).
    Where ``text`` has no twin of that kind (no cased or composable character), the
    other of case and NFD, else a padded one.
    """
    if kind in _SUFFIXES:
        return _as_in_json(text + _SUFFIXES[kind])
    if kind in _PADS:
        before, after = _PADS[kind]
        return before + text + after
    tries = [_swapped(text), _normalised(text)]
    tries = tries if kind == "case" else tries[::-1]
    return next((t for t in tries if t != text), text + " ")


def _swapped(text: str) -> str:
    return text.swapcase()


def _normalised(text: str) -> str:
    """The NFD form of ``text``, or its NFC form where NFD changes nothing."""
    decomposed = unicodedata.normalize("NFD", text)
    return decomposed if decomposed != text else unicodedata.normalize("NFC", text)


def _has_twin(text: str, kind: str) -> bool:
    if kind == "case":
        return _swapped(text) != text
    return kind != "nfd" or _normalised(text) != text


def _twin_pair(text: str, kind: str) -> tuple[str, str]:
    """``text`` (given a cased or composable character if it needs one) and its twin."""
    if not _has_twin(text, kind):
        text = _as_in_json(text + ("a" if kind == "case" else "\u00e9"))
    return text, _twin_of(text, kind)


def _as_in_json(text: str) -> str:
    """``text`` as a JSON reader returns it: a high surrogate followed by a low one
    *is* the astral character (JSON's ``"\\ud800\\udc00"`` reads as U+10000), so a
    Python string holding them apart has no distinct JSON form."""
    return text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def block_lists(
    *,
    min_size: int = 0,
    max_size: int | None = None,
    max_units: int = MAX_SAFE_UNITS,
    ids: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Lists of valid blocks ``{"id", "size"}``; short mostly, 1,000+ blocks sometimes.

    IDs come from a small per-list pool so repeats are common.  Sizes in one list
    cluster around a magnitude drawn for the list (small, near 2**53, near 2**63 when
    ``max_units`` allows, ...) so that several large blocks can fit one budget.
    ``max_size=None`` allows long lists; a ``max_size`` below 1,000 keeps lists short.
    Some blocks carry an extra key, which the rule ignores.
    """
    _check_int("min_size", min_size)
    _check_int("max_units", max_units, least=1)
    if max_size is not None:
        _check_int("max_size", max_size)
        _check_bounds("min_size", min_size, "max_size", max_size)
    return _block_lists(min_size, max_size, max_units, ids or block_ids())


def _block_lists(
    min_size: int, max_size: int | None, max_units: int, ids: st.SearchStrategy[str]
) -> st.SearchStrategy[list[dict[str, Any]]]:
    # Strategies are built once here, not per draw: building them dominates otherwise.
    marks = sorted({1, 16, max_units, *(m for m in _LANDMARKS if m <= max_units)})
    any_size = units(max_value=max_units)
    sizes_near = {
        mark: st.one_of(
            any_size, _near(mark, 1, max_units), st.integers(max(1, mark // 4), max(1, mark // 2))
        )
        for mark in marks
    }
    note = st.sampled_from([{}, {}, {"text": "ignored"}])
    short_max = 12 if max_size is None else min(max_size, 12)
    allow_long = max_size is None or max_size >= LONG_MIN
    top = LONG_MIN + 200 if max_size is None else min(max_size, LONG_MIN + 200)

    # An ID is an index into the list's pool (so IDs repeat) or a fresh ID.
    # Kind first: one_of() would flatten the branches of `ids` and give the pool a fifth.
    id_kinds: list[st.SearchStrategy[int | str]] = [st.integers(0, 4), ids]
    block_id = st.sampled_from(id_kinds).flatmap(lambda kind: kind)
    twins = st.lists(st.tuples(st.integers(0, 4), st.sampled_from(_TWIN_KINDS)), max_size=3)
    blocks_near = {mark: st.tuples(block_id, size, note) for mark, size in sizes_near.items()}

    @st.composite
    def draw_blocks(draw: st.DrawFn) -> list[dict[str, Any]]:
        pool = draw(st.lists(ids, min_size=1, max_size=5))
        # Near-twins of pool IDs, next to them: "A" and "a", "\u00e9" and "e\u0301".
        for index, kind in draw(twins):
            at = index % len(pool)
            pool[at : at + 1] = _twin_pair(pool[at], kind)

        def build(drawn: tuple[int | str, int | float, dict[str, str]]) -> dict[str, Any]:
            chosen, size, extra = drawn
            name = pool[chosen % len(pool)] if isinstance(chosen, int) else chosen
            return {"id": name, "size": size} | extra

        block = blocks_near[draw(st.sampled_from(marks))]
        long = allow_long and draw(st.integers(0, 255)) >= 250
        drawn = draw(st.lists(block, min_size=min(min_size, short_max), max_size=short_max))
        # Drawn whether or not the list is long, so that the choices after it stay
        # aligned when the shrinker turns a long list into its short pattern.
        length = draw(st.integers(LONG_MIN, top)) if allow_long else 0
        if long and drawn:
            # Tiled from the short list: 1,000 blocks for a few dozen choices, and a
            # long counterexample shrinks to its pattern by one choice (the roll).
            pattern = [build(b) for b in drawn]
            return [dict(pattern[i % len(pattern)]) for i in range(length)]
        if len(drawn) < min_size:
            drawn += draw(st.lists(block, min_size=min_size - len(drawn)))
        return [build(b) for b in drawn]

    return draw_blocks()


def required_lists(*, known: list[str] | None = None) -> st.SearchStrategy[list[str]]:
    """Required IDs: the ``known`` block IDs and IDs no block has, repeats allowed,
    empty often."""
    wanted = st.one_of(st.sampled_from(known), block_ids()) if known else block_ids()
    return st.one_of(st.just([]), st.lists(wanted, max_size=6))


def cases(
    *,
    min_blocks: int = 0,
    max_blocks: int | None = None,
    max_units: int = MAX_SAFE_UNITS,
    allow_invalid: bool = True,
) -> st.SearchStrategy[dict[str, Any]]:
    """Whole cases ``{"budget", "blocks", "required"}``, well-formed and JSON-ready.

    The budget is drawn *from the blocks* as often as independently: zero, the exact
    sum of a subset or a prefix of the sizes (so blocks fit exactly and the budget is
    spent part-way), one less than the smallest size (every block too large), or any
    unit.  With ``allow_invalid`` about a third of the cases carry invalid units —
    the budget, or a size at any position (the last one often, and after the budget
    is spent), or an absent key.  All units lie within ``±max_units``.
    """
    _check_int("min_blocks", min_blocks)
    _check_int("max_units", max_units, least=1)
    if max_blocks is not None:
        _check_int("max_blocks", max_blocks)
        _check_bounds("min_blocks", min_blocks, "max_blocks", max_blocks)
    ids = block_ids()
    blocks = _block_lists(min_blocks, max_blocks, max_units, ids)
    any_budget = units(min_value=0, max_value=max_units, allow_floats=False)
    # one_of() flattens nested one_of()s, so an absent key gets its own weight.
    absent = st.just(_ABSENT)
    bad_budget = _weighted(
        draw_first=invalid_units(min_valid=0, max_units=max_units), rarely=absent, one_in=3
    )
    bad_size = _weighted(
        draw_first=invalid_units(min_valid=1, max_units=max_units), rarely=absent, one_in=5
    )

    slack = st.sampled_from([0, 0, 0, 1, 2])
    left_out = [st.lists(st.booleans(), min_size=n, max_size=n) for n in range(_WINDOW + 1)]
    # A required ID is a block's ID, a near-twin of one (which a loose comparison would
    # wrongly count as kept), or an ID drawn afresh.
    twin_pick = st.tuples(st.integers(0, _WINDOW - 1), st.sampled_from(_TWIN_KINDS))
    # Drawn kind first, so that twins are often drawn (one_of() would
    # flatten the branches of `ids` and give the twins a sixth).
    pick_kinds: list[st.SearchStrategy[int | str | tuple[int, str]]] = [
        st.integers(0, _WINDOW - 1),
        ids,
        ids,
        twin_pick,
        twin_pick,
    ]
    pick = st.sampled_from(pick_kinds).flatmap(lambda kind: kind)
    known_or_fresh = st.lists(pick, max_size=6)

    @st.composite
    def draw_case(draw: st.DrawFn) -> dict[str, Any]:
        block_list = draw(blocks)
        sizes = [int(b["size"]) for b in block_list]
        head = sizes[:_WINDOW]
        # Budgets derived from the sizes come first: the shrinker moves towards lower
        # choices, and a derived budget shrinks with the sizes (an independent one drawn
        # near 2**53 cannot leave its branch, and kept counterexamples at 2**53-4).
        mode = draw(st.integers(0, 4))
        if mode == 0:
            # A subset of the first few blocks, drawn as "left out" flags so that the
            # simplest budget fits every head block exactly.
            out = draw(left_out[len(head)])
            budget: int | float = sum(s for s, o in zip(head, out, strict=True) if not o)
            budget += draw(slack)
        elif mode == 1:
            budget = sum(sizes[: len(sizes) - draw(st.integers(0, len(sizes)))])
        elif mode == 2:
            budget = draw(any_budget)
        elif mode == 3 and sizes:
            budget = min(sizes) - 1  # every block is larger than the whole budget
        else:
            budget = 0
        budget = min(max_units, budget)
        if budget <= 2**53 and draw(st.integers(0, 7)) == 7:
            budget = float(budget)  # an integral float is a valid unit: 4.0 == 4
        known = [b["id"] for b in block_list[:_WINDOW]]
        picks = draw(known_or_fresh)
        required = [_required_id(known, p) for p in picks]
        case: dict[str, Any] = {"budget": budget, "blocks": block_list, "required": required}
        if allow_invalid and draw(st.integers(1, 10)) >= 7:
            _spoil(draw, case, bad_budget, bad_size)
        return case

    return draw_case()


def _required_id(known: list[str], pick: int | tuple[int, str] | str) -> str:
    """A fresh ID as drawn; a known block ID (or a twin of one) by its index."""
    if isinstance(pick, str):
        return pick
    if isinstance(pick, int):
        return known[pick % len(known)] if known else "A"
    index, kind = pick
    # The first ID from `index` on that has a twin of this kind ("A" has no NFD twin).
    order = known[index % len(known) :] + known[: index % len(known)] if known else ["A"]
    base = next((text for text in order if _has_twin(text, kind)), order[0])
    return _twin_of(base, kind)


def _spoil(
    draw: st.DrawFn,
    case: dict[str, Any],
    bad_budget: st.SearchStrategy[object],
    bad_size: st.SearchStrategy[object],
) -> None:
    """Make the budget or one to three sizes invalid (or absent)."""
    block_list: list[dict[str, Any]] = case["blocks"]
    if not block_list or draw(st.integers(0, 3)) == 3:
        _set(case, "budget", draw(bad_budget))
        return
    last = len(block_list) - 1
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.one_of(st.just(last), st.integers(0, last)))
        _set(block_list[index], "size", draw(bad_size))


def _set(target: dict[str, Any], key: str, value: object) -> None:
    if value is _ABSENT:
        target.pop(key, None)
    else:
        target[key] = value
