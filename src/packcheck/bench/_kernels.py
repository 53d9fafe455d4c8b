"""What a benchmarked kernel is and how to read its answer (loading: :mod:`packcheck._load`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["BenchError", "Kernel", "Progress", "read_answer"]

#: A ``pack_sizes``-compatible function: int64 sizes in, kept flags and remaining out.
Kernel = Callable[[int, npt.NDArray[np.int64]], tuple[Sequence[bool] | npt.NDArray[np.bool_], int]]
#: ``progress(what, done, total)``: what a benchmark measures now, the ``done``-th of
#: ``total`` (as ``verify``'s progress is told).
Progress = Callable[[str, int, "int | None"], None]


class BenchError(Exception):
    """A packer gave a wrong answer or changed its input; ``str()`` is one line."""


def read_answer(answer: Any) -> tuple[list[bool], int] | None:
    """``(flags, remaining)`` as plain Python values, or ``None`` if it is not an answer.

    ``remaining`` must be an ``int`` (not a NumPy scalar or a bool); the flags any
    sequence or array, compared by value.
    """
    try:
        mask, remaining = answer
        flags = mask.tolist() if isinstance(mask, np.ndarray) else list(mask)
    except (TypeError, ValueError):
        return None
    if type(remaining) is not int:
        return None
    return flags, remaining
