"""The one invariant checker: is this output (or trace) the declared output of this case?
Properties, unit tests and ``packcheck verify`` all call it (docs/design.md)."""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeGuard

from .._rule.declared import Rule
from .._rule.interpret import REFUSED, interpret_case
from .._rule.jsonio import show
from .._rule.model import SizeError, read_case
from .._rule.order import all_same_utf16, sorted_utf16
from .._rule.units import as_unit
from .facts import (
    InvariantError,
    PartitionError,
    bucket_for,
    check_partition,
    partition_json,
    type_name,
)
from .keys import keys_detail
from .trace import Trace

__all__ = ["InvariantError", "PartitionError", "check_output", "check_trace"]

_KEYS = ("kept", "remaining", "missing")
#: A key an output may carry besides the declared ones: checked, never "extra".
_PARTITION = "partition"


def _show(value: object) -> str:
    return show(value, 120)


def _kept_before(kept: Sequence[object], matched: int) -> str:
    """The blocks kept before a skip, for a message: all of them, or the last three."""
    if matched <= 3:
        return f"kept so far: {_show(kept[:matched])}"
    return f"{matched:,} kept before it, the last {_show(kept[matched - 3 : matched])}"


def _size_error(output: object) -> TypeGuard[dict[str, Any]]:
    """Whether ``output`` is ``{"error":"size"}`` (a captured partition aside)."""
    return (
        isinstance(output, dict)
        and [key for key in output if key != _PARTITION] == ["error"]
        and type(output["error"]) is str
        and output["error"] == "size"
    )


def _valid_units(case: Any) -> str:
    """Why a valid case's units are valid: its first unit that is not an ``int``."""
    units = [("budget", case.get("budget"))]
    units += [(f"blocks[{i}].size", block.get("size")) for i, block in enumerate(case["blocks"])]
    for where, value in units:
        if type(value) is not int:
            return f"{where}: {_show(value)} is the unit {as_unit(value)}"
    return "every unit is valid (the budget an integer >= 0, every size an integer >= 1)"


def check_output(case: object, output: object, *, rule: Rule | None = None) -> None:
    """Raise :class:`InvariantError` unless ``output`` is the declared output of ``case``
    (well-formed) under ``rule`` (``None``: the seed's).  Types are exact; no other key
    but a captured ``partition``, checked too.  O(n + r log r)."""
    if rule is not None and not rule.is_default:
        _check_ruled(case, output, rule)
        return
    read = read_case(case)
    # Check the size error: one invalid unit anywhere decides the whole case.
    if isinstance(read, SizeError):
        if not _size_error(output):
            raise InvariantError(
                "size error",
                f'{read.reason}, so the output must be {{"error":"size"}}; got {_show(output)}',
            )
        if _PARTITION in output:
            raise PartitionError(
                "partition-on-error",
                f'{read.reason}: {{"error":"size"}} alone, nothing was packed or captured; '
                f"got partition {_show(output[_PARTITION])}",
            )
        return
    # Check the size error's mirror: every unit is valid, so no {"error":"size"}.
    if _size_error(output):
        raise InvariantError(
            "size error", f'{_valid_units(case)}, so the output must not be {{"error":"size"}}'
        )

    output, kept, remaining, missing = answer_fields(output)

    # Check remaining >= 0.
    if remaining < 0:
        raise InvariantError("remaining >= 0", f"remaining is {_show(remaining)}")

    # Check the partition: kept blocks in scan order, and every skip was forced.
    left = read.budget
    matched = 0
    for index, (block_id, size) in enumerate(zip(read.ids, read.sizes, strict=True)):
        fits = size <= left
        if fits and matched < len(kept) and kept[matched] == block_id:
            matched += 1
            left -= size
        elif fits and block_id in kept[matched:]:
            raise InvariantError(
                "kept blocks in scan order",
                f"blocks[{index}] (id {_show(block_id)}) fits and is kept later, but "
                f"kept[{matched}] = {_show(kept[matched])} comes first",
            )
        elif fits:
            raise InvariantError(
                "every skip is forced",
                f"blocks[{index}] (id {_show(block_id)}, size {_show(size)}) fits the "
                f"{_show(left)} unit(s) left but is not kept ({_kept_before(kept, matched)})",
            )
    if matched < len(kept):
        raise InvariantError(
            "kept blocks in scan order",
            f"kept[{matched}] = {_show(kept[matched])} matches no later block that fits "
            f"the {_show(left)} unit(s) left",
        )

    # Check the arithmetic: sum of kept sizes + remaining == budget.
    if remaining != left:
        raise InvariantError(
            "sum(kept sizes) + remaining == budget",
            f"budget {_show(read.budget)} - kept sizes {_show(read.budget - left)} = "
            f"{_show(left)}, but remaining is {_show(remaining)}",
        )

    _check_missing(read.required, kept, missing)

    # Check a captured partition, when the answer carries one.
    if output.get(_PARTITION) is not None:
        check_partition(case, output[_PARTITION], kept=kept)


def answer_fields(output: object) -> tuple[dict[str, Any], list[str], int, list[str]]:
    """An answer, its ``kept``, ``remaining`` and ``missing``; :class:`InvariantError`
    unless it has exactly those keys (a partition aside), types exact."""
    # Check the shape: exactly the three keys, with exact types.
    if not isinstance(output, dict):
        raise InvariantError(
            "shape", f"expected a JSON object (a dict), got a Python {type_name(output)}"
        )
    extra = [key for key in output if key not in _KEYS and key != _PARTITION]
    absent = [key for key in _KEYS if key not in output]
    if extra or absent:
        raise InvariantError("keys", keys_detail(output, extra, absent))
    kept, remaining, missing = output["kept"], output["remaining"], output["missing"]
    for name, ids in (("kept", kept), ("missing", missing)):
        if type(ids) is not list:
            raise InvariantError("types", f"{name} is {type_name(ids)}, not a list")
        if operator.countOf(map(type, ids), str) != len(ids):
            index, item = next((i, x) for i, x in enumerate(ids) if type(x) is not str)
            raise InvariantError(
                "types", f"{name}[{index}] is {type_name(item)} {_show(item)}, not str"
            )
    if type(remaining) is not int:
        raise InvariantError(
            "types", f"remaining is {type_name(remaining)} {_show(remaining)}, not int"
        )
    # IDs compare as UTF-16 code units, as read_case reads the case's own IDs.
    return output, all_same_utf16(kept), remaining, all_same_utf16(missing)


def _check_missing(required: Sequence[str], kept: list[str], missing: list[str]) -> None:
    # Check missing: required minus kept, repeats kept, in UTF-16 code-unit order.
    present = set(kept)
    expected = sorted_utf16(wanted for wanted in required if wanted not in present)
    if missing != expected:
        if Counter(missing) == Counter(expected):
            raise InvariantError(
                "missing in UTF-16 order",
                f"got {_show(missing)}, expected {_show(expected)}",
            )
        raise InvariantError(
            "missing == required - kept",
            f"got {_show(missing)}, expected {_show(expected)}",
        )


def _refusal(output: object) -> TypeGuard[dict[str, Any]]:
    """Whether ``output`` is ``{"error":"refused"}`` (a captured partition aside)."""
    return (
        isinstance(output, dict)
        and [key for key in output if key != _PARTITION] == ["error"]
        and output["error"] == "refused"
    )


def _check_ruled(case: object, output: object, rule: Rule) -> None:
    """:func:`check_output` under ``rule``, not the default."""
    read = read_case(case)
    if isinstance(read, SizeError) or _size_error(output):
        check_output(case, output)  # a rule never changes validation
        return
    expected = interpret_case(rule, read).result
    # Check a refusal: {"error":"refused"} exactly where the rule refuses, no partition.
    if expected == REFUSED and _refusal(output):
        if _PARTITION in output:
            raise PartitionError(
                "partition-on-error",
                'the rule refuses this input: {"error":"refused"} alone, nothing was '
                f"packed; got partition {_show(output[_PARTITION])}",
            )
        return
    if expected == REFUSED or _refusal(output):
        refuses = "refuses" if expected == REFUSED else "does not refuse"
        raise InvariantError("refusal", f"the rule {refuses} this input; got {_show(output)}")
    answer, kept, remaining, missing = answer_fields(output)
    # Check kept and remaining: the rule's, exactly.
    if kept != expected["kept"]:
        raise InvariantError(
            "kept is the rule's", f"got {_show(kept)}, the rule keeps {_show(expected['kept'])}"
        )
    if remaining != expected["remaining"]:
        raise InvariantError(
            "remaining is the rule's",
            f"got {_show(remaining)}, the rule leaves {_show(expected['remaining'])}",
        )
    _check_missing(read.required, kept, missing)
    # Check a captured partition, when the answer carries one.
    if answer.get(_PARTITION) is not None:
        check_partition(case, answer[_PARTITION], kept=kept, rule=rule)


def check_trace(case: object, trace: Trace) -> None:
    """Raise :class:`InvariantError` unless ``trace`` is consistent with ``case``.
    O(n + r log r)."""
    check_output(case, trace.result)
    read = read_case(case)
    partition = partition_json(trace.partition)
    if isinstance(read, SizeError):
        # Check an unscanned case: no steps, empty partition, the first bad field named.
        check_partition(case, partition)
        if trace.steps or trace.reasons:
            raise InvariantError("size error", "a size-error trace must be empty")
        if trace.size_error != read.reason:
            raise InvariantError("size error", f"names {trace.size_error!r}, not {read.reason!r}")
        return
    check_partition(case, partition, kept=trace.result["kept"])

    # Check the steps: one per block, in order, remaining before each as scanned, and
    # the bucket the rule gives it (the partition above holds the same buckets).
    if len(trace.steps) != len(read.ids):
        raise InvariantError("steps", f"{len(trace.steps)} steps for {len(read.ids)} blocks")
    left = read.budget
    for index, step in enumerate(trace.steps):
        size = read.sizes[index]
        want = (index, read.ids[index], size, left, bucket_for(size, left, read.budget))
        got = (step.index, step.id, step.size, step.remaining_before, step.bucket)
        if got != want:
            raise InvariantError("steps", f"steps[{index}] is {_show(got)}, expected {_show(want)}")
        left -= size if step.bucket == "packed" else 0

    # Check the reasons: one per distinct missing ID, from the partition.
    reasons: dict[str, str] = {}
    for block_id in trace.result["missing"]:
        if block_id in partition["available"]:
            reasons[block_id] = "evicted"
        elif block_id in partition["dropped"]:
            reasons[block_id] = "oversized"
        else:
            reasons[block_id] = "not-retrieved"
    if trace.reasons != reasons:
        raise InvariantError("reasons", f"got {_show(trace.reasons)}, expected {_show(reasons)}")
