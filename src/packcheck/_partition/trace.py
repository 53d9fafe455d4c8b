"""The trace: what happened to every block, captured while packing.

The declared output cannot show why a required block is missing; the trace can.
Each block lands in exactly one bucket of the partition:

* ``packed``: kept;
* ``available``: skipped although ``size <= budget`` (it would fit an empty pack, so
  earlier blocks evicted it);
* ``dropped``: skipped because ``size > budget`` (no order could pack it).

:class:`Expected` is what the rule gives one recorded step, for :mod:`packcheck.audit`
to compare with: the trace without its per-block steps, from the reference's kept
flags.  :func:`exactly` compares a recorded value with it; a step that matches needs
no checker, one that does not is judged by the full checkers, for their messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import not_
from typing import Any, Literal

from .. import reference as _reference
from .._engines.choice import Engine, kept_flags
from .._engines.pack import SIZE_ERROR, declared_output
from .._rule.model import Case, SizeError, read_case

Bucket = Literal["packed", "available", "dropped"]
Reason = Literal["evicted", "oversized", "not-retrieved"]


@dataclass(frozen=True, slots=True)
class Step:
    """One block as the scan met it."""

    index: int
    id: str
    size: int
    remaining_before: int
    bucket: Bucket


@dataclass(frozen=True, slots=True)
class Partition:
    """The blocks' IDs in three ordered buckets; merged by position they give the input."""

    packed: tuple[str, ...] = ()
    available: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Trace:
    """The declared result plus everything the packer knew at pack time.

    For a ``{"error": "size"}`` case nothing was scanned: ``steps`` is empty, the
    partition is empty and ``size_error`` names the first invalid field.
    """

    result: dict[str, Any]
    steps: tuple[Step, ...] = ()
    partition: Partition = field(default_factory=Partition)
    reasons: dict[str, Reason] = field(default_factory=dict)
    size_error: str | None = None

    def evicted_by(self, block_id: str) -> tuple[Step, ...]:
        """The packed steps ahead of the first ``available`` block with ``block_id``.

        These are the blocks that used the budget before it was reached; empty when
        ``block_id`` was not evicted.
        """
        for step in self.steps:
            if step.id == block_id and step.bucket == "available":
                return tuple(s for s in self.steps[: step.index] if s.bucket == "packed")
        return ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: result, steps, partition, reasons (and size_error)."""
        out: dict[str, Any] = {
            "result": self.result,
            "steps": [
                {
                    "index": s.index,
                    "id": s.id,
                    "size": s.size,
                    "remaining_before": s.remaining_before,
                    "bucket": s.bucket,
                }
                for s in self.steps
            ],
            "partition": {
                "packed": list(self.partition.packed),
                "available": list(self.partition.available),
                "dropped": list(self.partition.dropped),
            },
            "reasons": dict(self.reasons),
        }
        if self.size_error is not None:
            out["size_error"] = self.size_error
        return out


def trace(case: object, *, engine: Engine = "reference") -> Trace:
    """Pack ``case`` and capture its steps, partition and the reason of each missing ID
    (:func:`reasons`).  Raises :class:`packcheck.MalformedCase` like
    :func:`packcheck.pack`.  O(n + r log r).
    """
    read = read_case(case)
    if isinstance(read, SizeError):
        return Trace(result=dict(SIZE_ERROR), size_error=read.reason)
    kept, remaining = kept_flags(read.budget, read.sizes, engine)
    result = declared_output(read, kept, remaining)

    steps: list[Step] = []
    buckets: dict[Bucket, list[str]] = {"packed": [], "available": [], "dropped": []}
    left = read.budget
    for index, (block_id, size, keep) in enumerate(zip(read.ids, read.sizes, kept, strict=True)):
        bucket: Bucket = "packed" if keep else "available" if size <= read.budget else "dropped"
        steps.append(Step(index, block_id, size, left, bucket))
        buckets[bucket].append(block_id)
        if keep:
            left -= size
    # Invariant: the trace's own scan agrees with the engine's answer.
    assert left == remaining, (left, remaining)
    available, dropped = buckets["available"], buckets["dropped"]
    return Trace(
        result=result,
        steps=tuple(steps),
        partition=Partition(tuple(buckets["packed"]), tuple(available), tuple(dropped)),
        reasons=reasons(result["missing"], available, dropped),
    )


def reasons(
    missing: Sequence[str], available: Iterable[str], dropped: Iterable[str]
) -> dict[str, Reason]:
    """Why each distinct missing ID is missing, in ``missing``'s order: ``evicted`` (a
    block with the ID is ``available``), ``oversized`` (every block with it is
    ``dropped``), ``not-retrieved`` (no block has it).  Only ``missing`` is hashed."""
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
    """What the rule gives for one step: the reference's kept flags, and from them the
    declared output, the partition and each missing ID's reason (as
    :func:`packcheck.trace` gives them, without its per-block steps)."""

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
            self.available = list(compress(read.ids, map(not_, flags)))
            self.dropped = []
            if self.available and max(read.sizes) > read.budget:
                # Some block fits no pack: the skipped ones split by size.
                skipped = self.available
                sizes = compress(read.sizes, map(not_, flags))
                fits = [size <= read.budget for size in sizes]
                self.available = list(compress(skipped, fits))
                self.dropped = list(compress(skipped, map(not_, fits)))
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
