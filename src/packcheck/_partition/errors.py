"""The failure every checker raises: which invariant broke, and where.

A module of its own so the output checker (:mod:`packcheck._partition.invariants`) and the
partition checker (:mod:`packcheck._partition.facts`) can both raise it, and each call
the other, without an import cycle.
"""

from __future__ import annotations

__all__ = ["InvariantError"]


class InvariantError(AssertionError):
    """An output broke an invariant; ``invariant`` names it, ``detail`` says where."""

    def __init__(self, invariant: str, detail: str) -> None:
        super().__init__(f"{invariant}: {detail}")
        self.invariant = invariant
        self.detail = detail
