"""The level kernel's one guard on its loops: a proven bound on rounds, and the error past it.

Each loop of :mod:`packcheck._engines.levels` has a bound on its rounds from the
``O(K log budget)`` argument (docs/performance.md, "How the NumPy packer scans").  A
loop draws its rounds from :func:`bounded`, so a loop that runs past its bound (a bug,
never the input's fault) raises :class:`KernelError` instead of running on.
"""

from __future__ import annotations

from collections.abc import Iterator


class KernelError(RuntimeError):
    """A kernel loop ran past its proven bound on rounds: a bug, never the input's fault."""


def bounded(loop: str, bound: int) -> Iterator[int]:
    """The rounds of ``loop``, numbered 1 to ``bound``; asked for one more, it raises.

    ``next()`` on it costs about what a counter and a comparison do.  Raises
    :class:`KernelError` (``"<loop>: more than <bound> rounds"``) on round ``bound + 1``.
    """
    yield from range(1, bound + 1)
    raise KernelError(f"{loop}: more than {bound} rounds")
