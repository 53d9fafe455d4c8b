"""The level kernel's one guard on its loops: a proven bound on rounds, and the error past it.

Each loop of :mod:`packcheck._engines.levels` has a bound on its rounds from the
``O(K log budget)`` argument (docs/performance.md, "How the NumPy packer scans") and
numbers its rounds with :func:`next_round`, so a loop that runs past its bound (a bug,
never the input's fault) raises :class:`KernelError` instead of running on.
"""

from __future__ import annotations


class KernelError(RuntimeError):
    """A kernel loop ran past its proven bound on rounds: a bug, never the input's fault."""


def next_round(loop: str, done: int, bound: int) -> int:
    """The number of ``loop``'s next round after ``done`` rounds: ``done + 1``.

    Raises :class:`KernelError` (``"<loop>: more than <bound> rounds"``) instead when
    ``done`` is already ``bound``.  One call a round: a counter in the loop, no object.
    """
    if done >= bound:
        raise KernelError(f"{loop}: more than {bound} rounds")
    return done + 1
