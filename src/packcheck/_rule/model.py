"""A case, read exactly as the declared rule says: shape first, then units."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from itertools import compress, count
from typing import Any

from .jsonio import show
from .order import own_utf16, same_utf16
from .units import NumberTooLarge, as_unit


class MalformedCase(ValueError):
    """The input is not a case at all: ``where`` names the field, ``why`` says why."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")
        self.where = where
        self.why = why


@dataclass(frozen=True, slots=True)
class Case:
    """A well-formed case.  Invariant: ``budget >= 0``, every size ``>= 1``,
    ``len(ids) == len(sizes)``."""

    budget: int
    ids: tuple[str, ...]
    sizes: tuple[int, ...]
    required: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SizeError:
    """A well-formed case with an invalid unit (``{"error": "size"}``): the first
    offending field in reading order, its value, whether it is ``absent``."""

    where: str
    value: object
    absent: bool = False

    @property
    def reason(self) -> str:
        """One line: which field and why it is not a valid unit."""
        floor = 0 if self.where == "budget" else 1
        if self.absent or self.value is None:
            got = "absent" if self.absent else "null"
        else:
            got = f"{show(self.value, 40)} ({json_type(self.value)})"
        return f"{self.where}: {got} is not an integer >= {floor}"


def json_type(value: object) -> str:
    """The JSON name of a Python value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float | Decimal):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def _unit(value: object, where: str) -> int | None:
    try:
        return as_unit(value)
    except NumberTooLarge as exc:
        raise MalformedCase(where, str(exc)) from None


_ID = operator.itemgetter("id")
_SIZE = operator.itemgetter("size")


def block_columns(blocks: list[dict[str, Any]]) -> tuple[list[Any], list[Any]] | None:
    """Every block's ``id`` and ``size`` (every block a ``dict``), read at C speed, or
    ``None`` when a block lacks either key."""
    try:
        return list(map(_ID, blocks)), list(map(_SIZE, blocks))
    except KeyError:
        return None


def plain_columns(blocks: list[Any]) -> tuple[list[str], list[int]] | None:
    """:func:`block_columns` of blocks that are each exactly ``{"id": str, "size": int}``,
    in that order, else ``None``.  Five passes in C."""
    n = len(blocks)
    if operator.countOf(map(type, blocks), dict) != n or operator.countOf(map(len, blocks), 2) != n:
        return None
    columns = block_columns(blocks)
    if columns is None:
        return None
    ids, sizes = columns
    if operator.countOf(map(type, ids), str) != n or operator.countOf(map(type, sizes), int) != n:
        return None
    # Two keys, both read: a block's first key being "id" puts "size" second.
    if operator.countOf(map(next, map(iter, blocks)), "id") != n:
        return None
    return ids, sizes


def _plain_parts(case: object) -> tuple[int, list[str], list[int], list[str], str] | None:
    """``(budget, ids, sizes, required, text)`` of a case of exact plain types, read at C
    speed (sizes may be below 1); ``text`` joins the IDs and ``required``."""
    if type(case) is not dict:
        return None
    blocks, required, budget = case.get("blocks"), case.get("required"), case.get("budget")
    if type(blocks) is not list or type(required) is not list or type(budget) is not int:
        return None
    n = len(blocks)
    if budget < 0 or operator.countOf(map(type, blocks), dict) != n:
        return None
    columns = block_columns(blocks)
    if columns is None:
        return None
    ids, sizes = columns
    if operator.countOf(map(type, sizes), int) != n:
        return None
    try:
        # join refuses anything but strings.
        text = "".join(ids) + "".join(required)
    except TypeError:
        return None
    return budget, ids, sizes, required, text


def _block_shapes(blocks: list[Any]) -> tuple[list[str], list[object]]:
    """Each block's ID (as the rule compares it) and raw size, or :class:`MalformedCase`."""
    ids: list[str] = []
    raw_sizes: list[object] = []
    for index, block in enumerate(blocks):
        # ``type(...) is dict`` first: the ABC check costs more than the rest of the loop.
        if type(block) is not dict and not isinstance(block, Mapping):
            raise MalformedCase(f"blocks[{index}]", f"expected an object, got {json_type(block)}")
        block_id = block.get("id")
        if not isinstance(block_id, str):
            got = "absent" if "id" not in block else json_type(block_id)
            raise MalformedCase(f"blocks[{index}].id", f"expected a string, got {got}")
        ids.append(block_id if block_id.isascii() else same_utf16(block_id))
        raw_sizes.append(block.get("size"))
    return ids, raw_sizes


def _required_ids(case: Mapping[str, Any]) -> tuple[str, ...]:
    """The required IDs (as the rule compares them), or :class:`MalformedCase`."""
    required = case.get("required")
    if not isinstance(required, list):
        got = "absent" if "required" not in case else json_type(required)
        raise MalformedCase("required", f"expected an array of strings, got {got}")
    for index, wanted in enumerate(required):
        if not isinstance(wanted, str):
            raise MalformedCase(f"required[{index}]", f"expected a string, got {json_type(wanted)}")
    return tuple(w if w.isascii() else same_utf16(w) for w in required)


def read_case(case: object) -> Case | SizeError:
    """Read one case: a :class:`Case`, or a :class:`SizeError` for an invalid unit;
    :class:`MalformedCase` for a wrong shape, checked for every block before any unit.
    Other keys are ignored.  O(n)."""
    parts = _plain_parts(case)
    if parts is not None:
        units = parts[2]
        if units and min(units) < 1:
            # Shaped as a plain case, with a size below 1: the first one, as the reading
            # below would find it (nothing else can be wrong), without the walk.
            index = next(compress(count(), map((1).__gt__, units)))
            return SizeError(f"blocks[{index}].size", units[index])
        if own_utf16(parts[4]):
            return Case(parts[0], tuple(parts[1]), tuple(units), tuple(parts[3]))
    if not isinstance(case, Mapping):
        raise MalformedCase("case", f"expected an object, got {json_type(case)}")
    blocks = case.get("blocks")
    if not isinstance(blocks, list):
        got = "absent" if "blocks" not in case else json_type(blocks)
        raise MalformedCase("blocks", f"expected an array of blocks, got {got}")
    ids, raw_sizes = _block_shapes(blocks)
    wanted_ids = _required_ids(case)

    budget = _unit(case.get("budget"), "budget")
    if budget is None or budget < 0:
        return SizeError("budget", case.get("budget"), absent="budget" not in case)
    sizes: list[int] = []
    for index, raw in enumerate(raw_sizes):
        # Fast path for the common case (a plain int, never a bool: exact type check).
        if type(raw) is int and raw >= 1:
            sizes.append(raw)
            continue
        size = _unit(raw, f"blocks[{index}].size")
        if size is None or size < 1:
            return SizeError(f"blocks[{index}].size", raw, absent="size" not in blocks[index])
        sizes.append(size)
    return Case(budget, tuple(ids), tuple(sizes), wanted_ids)


def valid_case(case: object) -> Case | None:
    """:func:`read_case`'s :class:`Case`, else ``None``."""
    try:
        read = read_case(case)
    except ValueError:
        return None
    return read if isinstance(read, Case) else None
