"""Known wrong variants of the seed's rule, each differing from it in one way, and where
an answer's ``kept`` departs from the rule's."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from decimal import Decimal
from functools import partial
from typing import Any

from .._rule.declared import Rule
from .._rule.interpret import interpret_case
from .._rule.jsonio import show
from .._rule.model import Case, valid_case
from .._rule.order import same_utf16, sorted_utf16
from .._rule.same import same
from .._rule.units import as_unit

__all__ = ["CAUSES", "LENIENT", "STRICT", "agrees", "departure", "departure_by", "departure_index"]

_Scan = Callable[[Case], tuple[list[str], object]]


def _wrap64(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


def plain_scan(case: Case, *, number: Callable[[int], Any] = int) -> tuple[list[str], object]:
    left = number(case.budget)
    kept: list[str] = []
    for block_id, raw in zip(case.ids, case.sizes, strict=True):
        size = number(raw)
        if size <= left:
            kept.append(block_id)
            left = number(left - size)
    return kept, left


def _cumulative_int64(case: Case) -> tuple[list[str], object]:
    """A scan on int64 prefix sums with no overflow guard."""
    left = _wrap64(case.budget)
    kept: list[str] = []
    total = 0
    for block_id, size in zip(case.ids, case.sizes, strict=True):
        total = _wrap64(total + _wrap64(size))
        if total <= left:
            kept.append(block_id)
        else:
            total = _wrap64(total - _wrap64(size))
    return kept, _wrap64(left - total)


def variant_of(
    scan: _Scan,
    order: Callable[[list[str]], list[str]] = sorted_utf16,
    *,
    unique_kept: bool = False,
    missing_if_any_skipped: bool = False,
) -> Callable[[Case], dict[str, Any]]:
    def output(case: Case) -> dict[str, Any]:
        kept, left = scan(case)
        present = set(kept)
        skipped = {id_ for id_, _ in skipped_blocks(case)} if missing_if_any_skipped else set()
        missing = [w for w in case.required if w not in present or w in skipped]
        if unique_kept:
            kept = list(dict.fromkeys(kept))
        return {"kept": kept, "remaining": left, "missing": order(missing)}

    return output


def skipped_blocks(case: Case) -> Iterator[tuple[str, str]]:
    """(ID, ``available`` or ``dropped``) of every skipped block, in scan order."""
    left = case.budget
    for block_id, size in zip(case.ids, case.sizes, strict=True):
        if size <= left:
            left -= size
        else:
            yield block_id, "available" if size <= case.budget else "dropped"


def loosely(key: Callable[[str], str]) -> Callable[[Case], dict[str, Any]]:
    """``missing`` with IDs compared by ``key``."""

    def output(case: Case) -> dict[str, Any]:
        kept, left = plain_scan(case)
        present = {key(k) for k in kept}
        missing = sorted_utf16(w for w in case.required if key(w) not in present)
        return {"kept": kept, "remaining": left, "missing": missing}

    return output


def _loose_missing(case: Case) -> dict[str, Any]:
    """``missing`` with IDs compared loosely: any of casefold, strip, NFC, NFD."""
    outputs = [loosely(key)(case) for key in (str.casefold, str.strip, nfc, nfd)]
    missing = [w for w in case.required if all(w in out["missing"] for out in outputs)]
    return {**outputs[0], "missing": sorted_utf16(missing)}


nfc = partial(unicodedata.normalize, "NFC")
nfd = partial(unicodedata.normalize, "NFD")


#: (name, the wrong output for a readable case), in the order they are reported.
CAUSES: tuple[tuple[str, Callable[[Case], dict[str, Any]]], ...] = (
    (
        "arithmetic in doubles (precision past 2**53)",
        variant_of(lambda c: plain_scan(c, number=float)),
    ),
    ("int64 wrap-around (sums past 2**63)", variant_of(lambda c: plain_scan(c, number=_wrap64))),
    ("int64 prefix sums wrapping (sums past 2**63)", variant_of(_cumulative_int64)),
    (
        "missing deduplicated (repeats in required dropped)",
        variant_of(plain_scan, lambda texts: sorted_utf16(set(texts))),
    ),
    ("kept IDs deduplicated in the output", variant_of(plain_scan, unique_kept=True)),
    (
        "an ID counted missing when any block of it was skipped",
        variant_of(plain_scan, missing_if_any_skipped=True),
    ),
    ("IDs compared loosely (case, spaces or Unicode normalisation)", _loose_missing),
)


def _lenient_unit(value: object, *, bools: bool, strings: bool) -> int | None:
    if isinstance(value, bool):
        return int(value) if bools else None
    if strings and isinstance(value, str):
        try:
            number = Decimal(value.strip())
        except ArithmeticError:
            return None
        return int(number) if number.is_finite() and number == int(number) else None
    return as_unit(value)


def _lenient_case(
    case: dict[str, Any], *, bools: bool = False, strings: bool = False, zero: bool = False
) -> Case | None:
    """``case`` read with one leniency; ``None`` if still not valid."""
    budget = _lenient_unit(case.get("budget"), bools=bools, strings=strings)
    sizes = [_lenient_unit(b.get("size"), bools=bools, strings=strings) for b in case["blocks"]]
    floor = 0 if zero else 1
    if budget is None or budget < 0 or any(s is None or s < floor for s in sizes):
        return None
    ids = tuple(same_utf16(b["id"]) for b in case["blocks"])
    return Case(budget, ids, tuple(s for s in sizes if s is not None), tuple(case["required"]))


def _validating_while_room(case: dict[str, Any]) -> Case | None:
    """Sizes checked only while some budget is left."""
    budget = as_unit(case.get("budget"))
    if budget is None or budget < 0:
        return None
    left, sizes = budget, []
    for block in case["blocks"]:
        size = as_unit(block.get("size"))
        if left == 0:
            size = size if size is not None and size >= 1 else budget + 1
        elif size is None or size < 1:
            return None
        sizes.append(size)
        left -= size if size <= left else 0
    ids = tuple(same_utf16(b["id"]) for b in case["blocks"])
    return Case(budget, ids, tuple(sizes), tuple(case["required"]))


def _unchecked_at_zero(case: dict[str, Any]) -> Case | None:
    """With a budget of 0 no size is checked: the scan runs on whatever numbers it meets."""
    if as_unit(case.get("budget")) != 0:
        return None
    sizes = tuple(_whole(b.get("size")) for b in case["blocks"])
    ids = tuple(same_utf16(b["id"]) for b in case["blocks"])
    return Case(0, ids, sizes, tuple(case["required"]))


def _whole(value: object) -> int:
    if isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer():
        return int(value)
    return 1


#: For a case whose declared result is {"error":"size"}: readings that accept it.
LENIENT: tuple[tuple[str, Callable[[dict[str, Any]], Case | None]], ...] = (
    ("true read as the unit 1 (a bool is never a unit)", lambda c: _lenient_case(c, bools=True)),
    (
        "numeric strings read as numbers ('4' is not a unit)",
        lambda c: _lenient_case(c, strings=True),
    ),
    ("a size of 0 accepted (sizes must be >= 1)", lambda c: _lenient_case(c, zero=True)),
    ("sizes not checked once the budget is spent", _validating_while_room),
    ("sizes not checked when the budget is 0", _unchecked_at_zero),
)


def _whole_floats_refused(case: dict[str, Any]) -> bool:
    """Whether a unit of ``case`` is a (whole) float."""
    units = [case.get("budget"), *(block.get("size") for block in case["blocks"])]
    return any(type(unit) is float for unit in units)


#: For a valid case answered ``{"error":"size"}``: stricter readings of a unit.
STRICT: tuple[tuple[str, Callable[[dict[str, Any]], bool]], ...] = (
    ("refuses whole floats (1.0) as units", _whole_floats_refused),
)


def agrees(answer: object, out: dict[str, Any]) -> bool:
    """``answer`` gives every key of ``out`` (numbers by value, lists entry by entry)."""
    if not isinstance(answer, dict):
        return False
    for key, wanted in out.items():
        got = answer.get(key)
        if isinstance(wanted, dict):
            if not isinstance(got, dict) or set(got) != set(wanted):
                return False
            if not all(same(got[k], wanted[k], json=True) for k in wanted):
                return False
        elif not same(got, wanted, json=True):
            return False
    return True


def _scannable(case: object, answer: object) -> tuple[Case, list[Any]] | None:
    """The case as read and the answer's ``kept`` as the rule compares IDs, if both can
    be walked."""
    if not isinstance(answer, dict) or not isinstance(answer.get("kept"), list):
        return None
    read = valid_case(case)
    if read is None:
        return None
    return read, [same_utf16(k) if isinstance(k, str) else k for k in answer["kept"]]


def _walk(case: object, answer: object) -> tuple[int, int | None, str] | None:
    """Position in ``kept``, block index and message of the first departure (a block the
    rule keeps and the answer does not, or the reverse), if any."""
    both = _scannable(case, answer)
    if both is None:
        return None
    read, theirs = both
    left = read.budget
    position = 0
    skipped: list[tuple[int, int]] = []  # (index, left before it) since the last agreement
    for index, (block_id, size) in enumerate(zip(read.ids, read.sizes, strict=True)):
        if size > left:
            skipped.append((index, left))
            continue
        if position >= len(theirs) or theirs[position] != block_id:
            extra = _extra(read, skipped, theirs, position)
            if extra is not None:
                return extra
            got = (
                f"has {_short(theirs[position])}"
                if position < len(theirs)
                else f"ends after {position} entr{'y' if position == 1 else 'ies'}"
            )
            return (
                position,
                index,
                f"kept[{position}]: the rule keeps blocks[{index}] (id {_short(block_id)}, "
                f"size {size}, {left} left before it); the answer {got}",
            )
        position += 1
        left -= size
        skipped = []
    if position < len(theirs):
        extra = _extra(read, skipped, theirs, position)
        if extra is not None:
            return extra
        return (
            position,
            None,
            f"kept[{position}]: the rule keeps {position} block(s); the answer goes on "
            f"with {_short(theirs[position])}",
        )
    return None


def _extra(
    read: Case, skipped: list[tuple[int, int]], theirs: list[object], position: int
) -> tuple[int, int, str] | None:
    """The departure at a block the rule skips and the answer keeps, if there is one."""
    if position >= len(theirs):
        return None
    for index, left in skipped:
        if read.ids[index] == theirs[position]:
            return (
                position,
                index,
                f"kept[{position}]: the answer keeps blocks[{index}] (id "
                f"{_short(read.ids[index])}, size {read.sizes[index]}, {left} left before "
                "it), which the rule skips",
            )
    return None


def departure(case: object, answer: object) -> str | None:
    """Where the answer's ``kept`` first departs from the rule's, by position."""
    found = _walk(case, answer)
    return None if found is None else found[2]


def departure_by(rule: Rule, case: object, answer: object) -> str | None:
    """:func:`departure` under a declared ``rule``."""
    if rule.is_default:
        return departure(case, answer)
    both = _scannable(case, answer)
    ours = None if both is None else interpret_case(rule, both[0]).result.get("kept")
    if both is None or ours is None:
        return None
    theirs = both[1]
    for position, (kept, got) in enumerate(zip(ours, theirs, strict=False)):
        if kept != got:
            return f"kept[{position}]: the rule keeps {_short(kept)}; the answer has {_short(got)}"
    count = len(ours)
    if count > len(theirs):
        entries = f"entr{'y' if len(theirs) == 1 else 'ies'}"
        return (
            f"kept[{len(theirs)}]: the rule keeps {_short(ours[len(theirs)])}; the answer "
            f"ends after {len(theirs)} {entries}"
        )
    if count < len(theirs):
        return (
            f"kept[{count}]: the rule keeps {count} block(s); the answer goes on with "
            f"{_short(theirs[count])}"
        )
    return None


def departure_index(case: object, answer: object) -> int | None:
    """The index of the block where ``kept`` first departs, if known."""
    found = _walk(case, answer)
    return None if found is None else found[1]


def _short(value: object) -> str:
    return show(value, 40)
