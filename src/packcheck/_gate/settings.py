"""The settings of one gate run, with their defaults: every front end builds one
:class:`Settings`, checked as it is built."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from .._rule.limits import DEFAULT_MAX_EXAMPLES, MAX_EXAMPLES
from ..strategies import MAX_SAFE_UNITS
from .fixtures import Fixture

__all__ = [
    "DEFAULT_MAX_EXAMPLES",
    "MAX_EXAMPLES",
    "SHRINK_SECONDS",
    "Changes",
    "Progress",
    "Settings",
]

#: Shrinking stops after this long with the best case so far: a packer that is slow
#: on every shrink step must not stall CI.
SHRINK_SECONDS = 120.0

#: ``progress(phase, cases_done, cases_in_phase_or_None)`` after each case.
Progress = Callable[[str, int, "int | None"], None]


@dataclass(frozen=True, slots=True)
class Settings:
    """What a gate run checks, and how it reports progress.

    ``seed=None`` picks a seed; units lie within ``±max_units``; ``fixtures`` default
    to the seed cases; ``save_failures=DIR`` replays ``DIR/*.json`` and saves a new
    failure there.  A value out of range is a one-line :class:`ValueError` (of the
    wrong kind, :class:`TypeError`) when the settings are built.
    """

    seed: int | None = None
    max_examples: int = DEFAULT_MAX_EXAMPLES
    max_units: int = MAX_SAFE_UNITS
    fixtures: Iterable[Fixture] | None = None
    long_lists: bool = True
    save_failures: Path | None = None
    shrink_seconds: float = SHRINK_SECONDS
    progress: Progress | None = None

    def __post_init__(self) -> None:
        for name, low in (("seed", 0), ("max_examples", 1), ("max_units", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                if value is None and name == "seed":
                    continue
                raise TypeError(f"{name}={value!r}: expected an integer")
            if value < low:
                raise ValueError(f"{name}={value!r}: must be at least {low}")
        if self.max_examples > MAX_EXAMPLES:  # a run holds about 10 KB per generated case
            raise ValueError(
                f"max_examples={self.max_examples!r}: must be at most {MAX_EXAMPLES:,}"
            )
        if not isinstance(self.long_lists, bool):
            raise TypeError(f"long_lists={self.long_lists!r}: expected True or False")
        seconds = self.shrink_seconds
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds >= 0:
            raise ValueError(f"shrink_seconds={seconds!r}: must be a number, 0 or more")
        if self.save_failures is not None and not isinstance(self.save_failures, Path):
            object.__setattr__(self, "save_failures", Path(os.fspath(self.save_failures)))


class Changes(TypedDict, total=False):
    """The fields of :class:`Settings`, as keywords of ``verify.run`` and its kin."""

    seed: int | None
    max_examples: int
    max_units: int
    fixtures: Iterable[Fixture] | None
    long_lists: bool
    save_failures: str | os.PathLike[str] | None
    shrink_seconds: float
    progress: Progress | None
