"""The trace as the JSON text ``packcheck pack --trace`` writes: exactly
``write_json(trace(case).to_json())``, built from the kernel's kept mask, written by
msgspec where its text is the exact writer's, :data:`STEPS_AT_ONCE` steps at a time."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import count, islice
from typing import Any

import msgspec

from .._engines.choice import Engine, kept_flags
from .._engines.pack import SIZE_ERROR, declared_output
from .._rule.declared import Rule
from .._rule.jsonio import dumps, fast_json, write_json
from .._rule.model import SizeError, read_case
from .mask import remaining_before, split_skipped, step_buckets
from .trace import Trace, reasons, trace

__all__ = ["STEPS_AT_ONCE", "trace_json"]

#: Steps written at a time by :func:`trace_json`.
STEPS_AT_ONCE = 10_000


class _Step(msgspec.Struct, gc=False):
    """A step as the trace's JSON shows it under the default rule (the keys of
    :class:`packcheck.Step`'s JSON, in order).  ``gc=False``: it holds no containers."""

    index: int
    id: str
    size: int
    remaining_before: int
    bucket: str


def trace_json(
    case: object, *, engine: Engine = "reference", rule: Rule | None = None
) -> Iterator[str]:
    """``write_json(trace(case).to_json())`` in pieces of at most :data:`STEPS_AT_ONCE`
    steps; raises :class:`packcheck.MalformedCase` at the call.  O(n + r log r) time,
    O(n) words.  A rule other than the default is traced by its interpreter, whole."""
    if rule is not None and not rule.is_default:
        return iter((write_json(trace(case, engine=engine, rule=rule).to_json()),))
    read = read_case(case)
    if isinstance(read, SizeError):
        return iter((write_json(Trace(result=dict(SIZE_ERROR), size_error=read.reason).to_json()),))
    kept, remaining = kept_flags(read.budget, read.sizes, engine)
    result = declared_output(read, kept, remaining)
    available, dropped = split_skipped(read, kept)
    partition = {"packed": result["kept"], "available": available, "dropped": dropped}
    why = reasons(result["missing"], available, dropped)
    lefts = remaining_before(read, kept)
    steps = map(_Step, count(), read.ids, read.sizes, lefts, step_buckets(read, kept))
    if len(read.ids) <= STEPS_AT_ONCE:
        whole = {"result": result, "steps": list(steps), "partition": partition, "reasons": why}
        return iter((_written(whole),))
    tail = {"partition": partition, "reasons": why}
    return _in_pieces(result, steps, tail)


def _in_pieces(
    result: dict[str, Any], steps: Iterator[_Step], tail: dict[str, Any]
) -> Iterator[str]:
    """A long case's trace: the result, the steps :data:`STEPS_AT_ONCE` at a time as they
    are made, then ``tail`` (its partition and reasons)."""
    yield '{"result":' + write_json(result) + ',"steps":['
    between = ""
    while chunk := list(islice(steps, STEPS_AT_ONCE)):
        # The inside of an array: the written list without its brackets.
        yield between + _written(chunk)[1:-1]
        between = ","
    yield "]," + write_json(tail)[1:]


def _written(value: dict[str, Any] | list[_Step]) -> str:
    """``value`` (a whole trace, or a chunk of steps) as :func:`write_json` writes it with
    each step a dict."""
    text = fast_json(value)
    if text is not None:
        return text
    if isinstance(value, list):
        return dumps(list(map(msgspec.structs.asdict, value)))
    return dumps({**value, "steps": list(map(msgspec.structs.asdict, value["steps"]))})
