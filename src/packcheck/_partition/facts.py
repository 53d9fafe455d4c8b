"""A captured partition, checked as named facts (docs/rule.md, the captured partition):
:func:`check_partition` raises :class:`PartitionError` naming the fact, the block and
the lists beside the reference's."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from functools import partial
from typing import NoReturn

from .._rule.declared import Rule
from .._rule.jsonio import show
from .._rule.model import Case, SizeError, json_type, read_case
from .._rule.order import all_same_utf16
from .keys import keys_detail
from .ruled import RuledExpected, ruled_buckets
from .trace import BUCKETS, Bucket, Expected, Partition

#: The facts :func:`check_partition` checks of a captured partition: each one's short
#: name (``check`` in ``packcheck audit --json``) and how it reads.
CAPTURE_FACTS = {
    "no-partition": "present",
    "shape": "shape",
    "packed-is-kept": "packed is kept",
    "merged-by-position": "merged by position",
    "bucket": "bucket follows from size, budget and remaining",
    "size-error": "empty on a size error",
}
#: Every partition fact: those of a capture, and the answer's own (no partition
#: beside ``{"error":"size"}``).
FACTS = {**CAPTURE_FACTS, "partition-on-error": "none on a size error"}
# Continuation lines sit under the text of verify's "  check:    " column.
_INDENT = " " * 12


class InvariantError(AssertionError):
    """An output broke an invariant; ``invariant`` names it, ``detail`` says where."""

    def __init__(self, invariant: str, detail: str) -> None:
        super().__init__(f"{invariant}: {detail}")
        self.invariant = invariant
        self.detail = detail


class PartitionError(InvariantError):
    """A captured partition broke a fact: ``check`` is its short name (:data:`FACTS`);
    ``detail`` says where and why, ``table`` shows the lists beside the reference's."""

    def __init__(self, check: str, detail: str, table: tuple[str, ...] = ()) -> None:
        super().__init__(f"partition: {FACTS[check]}", detail)
        self.check = check
        self.table = table

    def __str__(self) -> str:
        return "".join([super().__str__(), *(f"\n{_INDENT}{line}" for line in self.table)])


def _show(value: object) -> str:
    return show(value, 120)


def type_name(value: object) -> str:
    """A value's type as a message names it: ``int``, ``numpy.int64``."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def partition_json(partition: Partition) -> dict[str, list[str]]:
    """``partition`` as a packer returns it: ``{"packed", "available", "dropped"}``."""
    return {name: list(getattr(partition, name)) for name in BUCKETS}


def without_partition(answer: object) -> object:
    """``answer`` without its ``partition`` key: the declared output it carries."""
    if isinstance(answer, dict) and "partition" in answer:
        return {key: value for key, value in answer.items() if key != "partition"}
    return answer


def bucket_for(size: int, remaining_before: int, budget: int) -> Bucket:
    """The bucket the rule gives a block: fits what is left, fits the budget, or neither."""
    if size <= remaining_before:
        return "packed"
    return "available" if size <= budget else "dropped"


def require_partition(answer: object) -> None:
    """Raise :class:`PartitionError` unless ``answer``, an object other than an error,
    has a non-null ``partition``."""
    if not isinstance(answer, dict) or "error" in answer:
        return
    if answer.get("partition") is None:
        why = "'partition' is null" if "partition" in answer else "the answer has no 'partition'"
        raise PartitionError("no-partition", f"no partition captured: {why}")


def _read(partition: object) -> dict[str, list[str]]:
    """The three lists, IDs compared as UTF-16 code units; shape facts raise."""
    # Check the shape: an object of exactly three lists of strings, types exact.
    if not isinstance(partition, dict):
        raise PartitionError(
            "shape",
            f"expected an object with packed, available and dropped, got "
            f"{json_type(partition)} {_show(partition)}",
        )
    extra = [key for key in partition if key not in BUCKETS]
    absent = [key for key in BUCKETS if key not in partition]
    if extra or absent:
        raise PartitionError("shape", keys_detail(partition, extra, absent))
    lists: dict[str, list[str]] = {}
    for name in BUCKETS:
        ids = partition[name]
        if type(ids) is not list:
            raise PartitionError(
                "shape", f"{name} is {type_name(ids)} {_show(ids)}, not a list of IDs"
            )
        if operator.countOf(map(type, ids), str) != len(ids):
            index, item = next((i, x) for i, x in enumerate(ids) if type(x) is not str)
            raise PartitionError(
                "shape", f"{name}[{index}] is {type_name(item)} {_show(item)}, not an ID"
            )
        lists[name] = all_same_utf16(ids)
    return lists


def _table(captured: dict[str, list[str]], reference: Partition) -> tuple[str, ...]:
    shown = {name: show(captured[name], 60) for name in BUCKETS}
    width = max(len("captured"), *map(len, shown.values())) + 2
    lines = [f"{'':11}{'captured':{width}}reference"]
    for name in BUCKETS:
        theirs = show(list(getattr(reference, name)), 60)
        lines.append(f"{name + ':':11}{shown[name]:{width}}{theirs}")
    return tuple(lines)


def _next(ids: list[str], position: int, past: str = "-") -> str:
    return _show(ids[position]) if position < len(ids) else past


def _packed_not_kept(packed: list[str], kept: list[str]) -> str:
    """Where ``packed`` first differs from the answer's ``kept``."""
    at = next(
        (i for i, pair in enumerate(zip(packed, kept, strict=False)) if len(set(pair)) > 1),
        min(len(kept), len(packed)),
    )
    return (
        f"packed[{at}] is {_next(packed, at, 'absent')} but kept[{at}] is "
        f"{_next(kept, at, 'absent')} (packed holds {len(packed)}, kept {len(kept)})"
    )


def _seed_buckets(read: Case) -> Iterator[tuple[Bucket, Callable[[], str]]]:
    """Each block's bucket under the seed's rule, in input order, with what says why."""
    left = read.budget
    for size in read.sizes:
        want = bucket_for(size, left, read.budget)
        yield want, partial(_why, want, size, left, read.budget)
        left -= size if want == "packed" else 0


def _check_walk(
    read: Case,
    captured: dict[str, list[str]],
    broken: Callable[[str, str], PartitionError],
    wants: Iterator[tuple[Bucket, Callable[[], str]]],
) -> NoReturn:
    """Raise ``broken(check, detail)`` at the first block not in the bucket ``wants``
    gives, or at what a bucket holds past the last block."""
    position: dict[str, int] = dict.fromkeys(BUCKETS, 0)
    total = sum(map(len, captured.values()))
    for index, (block_id, size, (want, why)) in enumerate(
        zip(read.ids, read.sizes, wants, strict=True)
    ):
        ids = captured[want]
        if position[want] < len(ids) and ids[position[want]] == block_id:
            position[want] += 1
            continue
        holders = [
            name
            for name in BUCKETS
            if position[name] < len(captured[name]) and captured[name][position[name]] == block_id
        ]
        if holders:
            raise broken(
                "bucket",
                f"blocks[{index}] (id {_show(block_id)}, size {_show(size)}) is in {holders[0]}, "
                f"but belongs in {want}: {why()}",
            )
        following = ", ".join(f"{name} {_next(captured[name], position[name])}" for name in BUCKETS)
        raise broken(
            "merged-by-position",
            f"blocks[{index}] (id {_show(block_id)}) is next in none of the lists (next: "
            f"{following}); {_holding(total, len(read.ids))}",
        )
    # Every block was where the rule puts it: a bucket holds more (StopIteration here
    # would be packcheck's own bug, a capture passing the walk yet not the reference's).
    name = next(name for name in BUCKETS if position[name] < len(captured[name]))
    raise broken(
        "merged-by-position",
        f"{name}[{position[name]}] = {_next(captured[name], position[name])} is left "
        f"over after the last block; {_holding(total, len(read.ids))}",
    )


def check_partition(
    case: object,
    partition: object,
    *,
    kept: list[str] | None = None,
    reference: Partition | None = None,
    rule: Rule | None = None,
) -> None:
    """Raise :class:`PartitionError` unless ``partition`` is the one ``rule`` (``None``:
    the seed's) gives ``case``, a well-formed one; ``packed`` must be ``kept`` when
    given.  ``reference``, the rule's partition if the caller has it, saves a scan."""
    if partition is None:
        raise PartitionError("no-partition", "no partition captured: it is null")
    read = read_case(case)
    captured = _read(partition)
    ruled = None if rule is None or rule.is_default else rule

    def expected() -> Partition:
        if reference is not None:
            return reference
        return (
            Expected(read).partition() if ruled is None else RuledExpected(read, ruled).partition()
        )

    def broken(check: str, detail: str) -> PartitionError:
        return PartitionError(check, detail, _table(captured, expected()))

    # Check an invalid case: nothing was scanned, so nothing is in any bucket.
    if isinstance(read, SizeError):
        if any(captured.values()):
            raise broken("size-error", f"{read.reason}, so no block is scanned or captured")
        return

    # Check packed is kept: the answer's kept blocks, in order, repeats and all.
    if kept is not None and captured["packed"] != kept:
        raise broken("packed-is-kept", _packed_not_kept(captured["packed"], kept))

    # Check the walk, unless the capture is the reference's partition (which passes every
    # fact): block by block, the bucket the rule gives must hold it next.
    if captured != partition_json(expected()):
        wants = _seed_buckets(read) if ruled is None else ruled_buckets(ruled, read)
        _check_walk(read, captured, broken, wants)


def _holding(total: int, blocks: int) -> str:
    entries = "entry" if total == 1 else "entries"
    return f"the lists hold {total} {entries} for {blocks} block" + ("" if blocks == 1 else "s")


def _why(bucket: Bucket, size_units: int, left_units: int, budget_units: int) -> str:
    # Shown, not str(): an integer past 4300 digits has no str() in CPython.
    size, left, budget = map(_show, (size_units, left_units, budget_units))
    if bucket == "packed":
        return f"size {size} <= the {left} unit(s) remaining before it"
    if bucket == "available":
        return f"size {size} > the {left} unit(s) remaining before it, and <= the budget {budget}"
    return f"size {size} > the budget {budget}"
