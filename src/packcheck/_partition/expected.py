"""What the rule gives one recorded step, for :mod:`packcheck.audit` to compare with.

The reference's kept flags give the declared output, the partition and each missing
ID's reason, as :func:`packcheck.trace` gives them but without its per-block steps;
:func:`exactly` compares a recorded value with them.  A step that matches needs no
checker; one that does not is judged by the full checkers, for their messages.
"""

from __future__ import annotations

from itertools import compress
from operator import not_
from typing import Any

from .. import reference as _reference
from .._engines.pack import SIZE_ERROR, declared_output
from .._rule.model import Case, SizeError
from .trace import Partition, Reason, reasons

__all__ = ["Expected", "exactly"]


def exactly(value: Any, expected: dict[str, Any]) -> bool:
    """``value`` is ``expected``: the same keys and values, and each value of the same
    type (``==`` alone would take ``true`` or ``4.0`` for ``1`` or ``4``).  Values are
    ints, strings and lists of strings, whose elements equal a string only if they are one.
    """
    return (
        type(value) is dict
        and value == expected
        and all(type(value[key]) is type(member) for key, member in expected.items())
    )


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
