"""The trace: what happened to every block, captured while packing.

Each block lands in one bucket: ``packed`` (kept), ``available`` (skipped though
``size <= budget``), ``dropped`` (``size > budget``).  :class:`Expected` is what the
rule gives one recorded step, for :mod:`packcheck.audit` to compare with.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import reference as _reference
from .._engines.choice import Engine, check_engine, kept_flags
from .._engines.pack import SIZE_ERROR, declared_output
from .._rule.declared import Rule
from .._rule.interpret import interpret_case
from .._rule.model import Case, SizeError, read_case
from .._rule.outcomes import Bucket, Event, Reason
from .mask import split_skipped

__all__ = [
    "Bucket",
    "Event",
    "Expected",
    "Partition",
    "Reason",
    "Step",
    "Trace",
    "reasons",
    "trace",
]


@dataclass(frozen=True, slots=True)
class Step:
    """One block as the scan met it; under a declared rule, its ``event``."""

    index: int
    id: str
    size: int
    remaining_before: int | Fraction
    bucket: Bucket
    event: Event | None = None


@dataclass(frozen=True, slots=True)
class Partition:
    """The blocks' IDs in three ordered buckets; merged by position they give the input."""

    packed: tuple[str, ...] = ()
    available: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Trace:
    """The declared result plus everything the packer knew at pack time (``size_error``:
    nothing was scanned)."""

    result: dict[str, Any]
    steps: tuple[Step, ...] = ()
    partition: Partition = field(default_factory=Partition)
    reasons: dict[str, Reason] = field(default_factory=dict)
    size_error: str | None = None

    def evicted_by(self, block_id: str) -> tuple[Step, ...]:
        """The packed steps ahead of the first ``available`` block with ``block_id``
        (empty when it was not evicted)."""
        for step in self.steps:
            if step.id == block_id and step.bucket == "available":
                return tuple(s for s in self.steps[: step.index] if s.bucket == "packed")
        return ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: result, steps, partition, reasons (and size_error)."""
        out: dict[str, Any] = {
            "result": self.result,
            "steps": [_step_json(s) for s in self.steps],
            "partition": {name: list(getattr(self.partition, name)) for name in BUCKETS},
            "reasons": dict(self.reasons),
        }
        if self.size_error is not None:
            out["size_error"] = self.size_error
        return out


BUCKETS: tuple[Bucket, ...] = ("packed", "available", "dropped")


def _step_json(step: Step) -> dict[str, Any]:
    """One step as JSON; a fractional ``remaining_before`` is the string ``"p/q"``."""
    left = step.remaining_before
    out: dict[str, Any] = {
        "index": step.index,
        "id": step.id,
        "size": step.size,
        "remaining_before": f"{left.numerator}/{left.denominator}"
        if isinstance(left, Fraction)
        else left,
        "bucket": step.bucket,
    }
    if step.event is not None:
        out["event"] = step.event
    return out


def trace(case: object, *, engine: Engine = "reference", rule: Rule | None = None) -> Trace:
    """Pack ``case`` and capture its steps, partition and the reason of each missing ID;
    raises :class:`packcheck.MalformedCase`.  O(n + r log r).  Under a ``rule`` other
    than the default, each step carries its ``event`` (docs/rules.md)."""
    if rule is not None and not rule.is_default:
        check_engine(engine)
        return _rule_trace(case, rule)
    read = read_case(case)
    if isinstance(read, SizeError):
        return Trace(result=dict(SIZE_ERROR), size_error=read.reason)
    kept, remaining = kept_flags(read.budget, read.sizes, engine)
    result = declared_output(read, kept, remaining)
    buckets: dict[Bucket, list[str]] = {"packed": [], "available": [], "dropped": []}
    steps = tuple(Step(*step) for step in _scan(read, kept, remaining, buckets))
    available, dropped = buckets["available"], buckets["dropped"]
    return Trace(
        result=result,
        steps=steps,
        partition=Partition(tuple(buckets["packed"]), tuple(available), tuple(dropped)),
        reasons=reasons(result["missing"], available, dropped),
    )


def _scan(
    read: Case, kept: Sequence[bool] | bytes, remaining: int, buckets: dict[Bucket, list[str]]
) -> Iterator[tuple[int, str, int, int, Bucket]]:
    """Each block as the scan met it (a :class:`Step`'s fields), its ID appended to its
    bucket in ``buckets``."""
    left = read.budget
    for index, (block_id, size, keep) in enumerate(zip(read.ids, read.sizes, kept, strict=True)):
        bucket: Bucket = "packed" if keep else "available" if size <= read.budget else "dropped"
        buckets[bucket].append(block_id)
        yield index, block_id, size, left, bucket
        if keep:
            left -= size
    # Invariant: the trace's own scan agrees with the engine's answer.
    assert left == remaining, (left, remaining)


def _rule_trace(case: object, rule: Rule) -> Trace:
    """:func:`trace` under a declared rule other than the default."""
    read = read_case(case)
    if isinstance(read, SizeError):
        return Trace(result=dict(SIZE_ERROR), size_error=read.reason)
    outcome = interpret_case(rule, read)
    steps = tuple(
        Step(index, block_id, size, left, bucket, event)
        for index, (block_id, size, left, bucket, event) in enumerate(
            zip(read.ids, read.sizes, outcome.left, outcome.buckets, outcome.events, strict=True)
        )
    )
    partition = Partition(*(tuple(s.id for s in steps if s.bucket == bucket) for bucket in BUCKETS))
    return Trace(outcome.result, steps, partition, dict(outcome.reasons or {}))


def reasons(
    missing: Sequence[str], available: Iterable[str], dropped: Iterable[str]
) -> dict[str, Reason]:
    """Why each distinct missing ID is missing, in ``missing``'s order: ``evicted`` (a
    block with it is ``available``), ``oversized`` or ``not-retrieved``."""
    if not missing:
        return {}
    evicted = set(missing).intersection(available)
    oversized = set(missing).intersection(dropped)
    return {
        block_id: "evicted"
        if block_id in evicted
        else "oversized"
        if block_id in oversized
        else "not-retrieved"
        for block_id in missing
    }


class Expected:
    """What the seed's rule gives one recorded step: the declared output, the partition
    and each missing ID's reason (:func:`packcheck.trace`'s, without the steps)."""

    __slots__ = ("available", "dropped", "left_out", "partition_json", "result")

    def __init__(self, read: Case | SizeError) -> None:
        if isinstance(read, SizeError):
            self.result: dict[str, Any] = dict(SIZE_ERROR)
            self.available: list[str] = []
            self.dropped: list[str] = []
            packed: list[str] = []
        else:
            flags, remaining = _reference.pack_sizes(read.budget, read.sizes)
            self.result = declared_output(read, flags, remaining)
            packed = self.result["kept"]
            self.available, self.dropped = split_skipped(read, flags)
        self.left_out = bool(self.available or self.dropped)
        self.partition_json = {
            "packed": packed,
            "available": self.available,
            "dropped": self.dropped,
        }

    def partition(self) -> Partition:
        return Partition(
            tuple(self.partition_json["packed"]), tuple(self.available), tuple(self.dropped)
        )

    def reasons(self) -> dict[str, Reason]:
        """Why each distinct missing ID is missing (:func:`packcheck.trace`'s reasons)."""
        return reasons(self.result.get("missing") or [], self.available, self.dropped)
