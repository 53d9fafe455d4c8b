"""The trace as the JSON text ``packcheck pack --trace`` writes: exactly
``write_json(trace(case).to_json())``, by msgspec where it can, in pieces."""

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
from .._rule.order import missing_ids, own_utf16
from .mask import remaining_before, split_skipped, step_buckets
from .trace import Trace, reasons, trace

__all__ = ["STEPS_AT_ONCE", "trace_json"]

#: Steps written at a time by :func:`trace_json`.
STEPS_AT_ONCE = 10_000


class _Step(msgspec.Struct, gc=False):
    """A step as the trace's JSON shows it under the default rule (no containers: no gc)."""

    index: int
    id: str
    size: int
    remaining_before: int
    bucket: str


def trace_json(
    case: object, *, engine: Engine = "reference", rule: Rule | None = None
) -> Iterator[str]:
    """``write_json(trace(case).to_json())`` in pieces of at most :data:`STEPS_AT_ONCE`
    steps; raises :class:`packcheck.MalformedCase` at the call.  O(n + r log r)."""
    if rule is not None and not rule.is_default:
        return iter((write_json(trace(case, engine=engine, rule=rule).to_json()),))
    plain = _plain_trace(case)
    if plain is not None:
        return iter((_written(plain),))
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


def _plain_trace(case: object) -> dict[str, Any] | None:
    """The trace of a plain ``case`` of at most :data:`STEPS_AT_ONCE` blocks, in one loop
    as :func:`packcheck._engines.pack.pack_plain` packs it, else ``None``.  A size below
    1 always fits what is left, so it is checked there."""
    if type(case) is not dict:
        return None
    blocks, required, budget = case.get("blocks"), case.get("required"), case.get("budget")
    if type(blocks) is not list or type(required) is not list or type(budget) is not int:
        return None
    if budget < 0 or len(blocks) > STEPS_AT_ONCE:
        return None
    remaining = budget
    steps: list[_Step] = []
    kept: list[str] = []
    available: list[str] = []
    dropped: list[str] = []
    step, keep = steps.append, kept.append
    try:
        for index, block in enumerate(blocks):
            if type(block) is not dict:
                return None
            ident = block["id"]
            size = block["size"]
            if type(ident) is not str or type(size) is not int:
                return None
            if size <= remaining:
                if size < 1:
                    return None
                step(_Step(index, ident, size, remaining, "packed"))
                remaining -= size
                keep(ident)
            elif size <= budget:
                step(_Step(index, ident, size, remaining, "available"))
                available.append(ident)
            else:
                step(_Step(index, ident, size, remaining, "dropped"))
                dropped.append(ident)
        # join refuses anything but strings; IDs without a surrogate are their own
        # UTF-16 identity.
        if not own_utf16("".join(kept) + "".join(available) + "".join(dropped) + "".join(required)):
            return None
    except (KeyError, TypeError):
        return None
    missing = missing_ids(required, kept) if required else []
    result = {"kept": kept, "remaining": remaining, "missing": missing}
    partition = {"packed": kept, "available": available, "dropped": dropped}
    why = reasons(missing, available, dropped)
    return {"result": result, "steps": steps, "partition": partition, "reasons": why}


def _in_pieces(
    result: dict[str, Any], steps: Iterator[_Step], tail: dict[str, Any]
) -> Iterator[str]:
    """A long case's trace: the result, the steps as they are made, then ``tail``."""
    yield '{"result":' + write_json(result) + ',"steps":['
    between = ""
    while chunk := list(islice(steps, STEPS_AT_ONCE)):
        # The inside of an array: the written list without its brackets.
        yield between + _written(chunk)[1:-1]
        between = ","
    yield "]," + write_json(tail)[1:]


def _written(value: dict[str, Any] | list[_Step]) -> str:
    """``value`` (a trace, or steps) as :func:`write_json` writes it, each step a dict."""
    text = fast_json(value)
    if text is not None:
        return text
    if isinstance(value, list):
        return dumps(list(map(msgspec.structs.asdict, value)))
    return dumps({**value, "steps": list(map(msgspec.structs.asdict, value["steps"]))})
