"""The one answer check of every benchmark: nothing is timed before its answer is right.

:func:`first_answer` makes the first, untimed call (an exception becomes a one-line
:class:`BenchError`); :func:`check_answers` compares what the timed sides answered
with what the rule gives; :func:`read_answer` reads a kernel's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._packers import PackerFault, SetupError

#: A ``pack_sizes``-compatible function: int64 sizes in, kept flags and remaining out.
Kernel = Callable[[int, npt.NDArray[np.int64]], tuple[Sequence[bool] | npt.NDArray[np.bool_], int]]
#: ``progress(what, done, total)``: what a benchmark measures now, the ``done``-th of
#: ``total`` (as ``verify``'s progress is told).
Progress = Callable[[str, int, "int | None"], None]


class BenchError(Exception):
    """A packer gave a wrong answer or changed its input; ``str()`` is one line."""


def read_answer(answer: Any) -> tuple[list[bool], int] | None:
    """``(flags, remaining)`` as plain Python values, or ``None`` if it is not an answer
    (``remaining`` an ``int``, the flags any sequence, compared by value)."""
    try:
        mask, remaining = answer
        flags = mask.tolist() if isinstance(mask, np.ndarray) else list(mask)
    except (TypeError, ValueError):
        return None
    if type(remaining) is not int:
        return None
    return flags, remaining


def first_answer(
    label: str,
    call: Callable[[], Any],
    where: str,
    read: Callable[[Any], Any] | None = None,
    shape: str | None = None,
) -> Any:
    """``call()``'s answer, put in comparable form by ``read``; a :class:`BenchError` when
    the call raises (a :class:`SetupError` passes through) or, given ``shape``, when
    ``read`` finds no answer."""
    try:
        answer = call()
    except SetupError:
        raise  # a command that never ran as a packer: a setup error, not a wrong answer
    except PackerFault as exc:
        raise BenchError(f"{label} failed {where}: {exc}") from None
    except Exception as exc:
        raise BenchError(f"{label} raised {type(exc).__name__}: {exc} {where}") from None
    got = answer if read is None else read(answer)
    if got is None and shape is not None:
        raise BenchError(f"{label} did not return {shape} {where}")
    return got


def check_answers(
    answers: Mapping[str, Any],
    expected: Callable[[], Any],
    where: str,
    case: Callable[[int | None], str] | None = None,
) -> None:
    """Every answer in ``answers`` (by label) must be ``expected()``'s; two sides that
    agree pass without asking it, two that differ fail naming the one the rule agrees
    with, and the case they differ on: ``case(k)`` says which, ``k`` the index of the
    first answer that differs when the answers are lists (one per case), else ``None``."""
    labels = list(answers)
    if len(labels) == 2:
        one, other = answers[labels[0]], answers[labels[1]]
        if one == other:
            return
        right = expected()
        agree = " and ".join(label for label in labels if answers[label] == right) or "neither"
        which = "" if case is None else case(_first_difference(one, other))
        raise BenchError(
            f"{' and '.join(labels)} answer differently {where}{which}; "
            f"the reference agrees with {agree}"
        )
    right = expected()
    for label in labels:
        if answers[label] != right:
            raise BenchError(f"{label} gave a wrong answer {where}")


def _first_difference(one: Any, other: Any) -> int | None:
    """The index of the first answer that differs, when both are lists of answers of
    the same length, else ``None``."""
    if not (isinstance(one, list) and isinstance(other, list) and len(one) == len(other)):
        return None
    return next(k for k, (a, b) in enumerate(zip(one, other, strict=True)) if a != b)


def error_note(answer: Any, where: str) -> str | None:
    """A line saying that most of the rule's answers ``where`` (one answer, or a list)
    are errors or refusals, so that the cell times mostly their path; ``None`` when
    most are not."""
    answers = answer if isinstance(answer, list) else [answer]
    errors = sum(isinstance(one, dict) and "error" in one for one in answers)
    if 2 * errors <= len(answers):
        return None
    return (
        f"{where}: {errors:,} of {len(answers):,} answer(s) are errors or refusals: "
        "this cell times mostly their path, not packing"
    )
