"""The level kernel's guard on its loops: a proven bound on rounds (docs/performance.md,
"How the NumPy packer scans"), and the error past it."""

from __future__ import annotations


class KernelError(RuntimeError):
    """A kernel loop ran past its proven bound on rounds: a bug, never the input's fault."""


def next_round(loop: str, done: int, bound: int) -> int:
    """``done + 1``, or :class:`KernelError` when ``done`` is already ``bound``."""
    if done >= bound:
        raise KernelError(f"{loop}: more than {bound} rounds")
    return done + 1
