"""The settings of one gate run, with their defaults, declared once.

The command line, ``[tool.packcheck]``, the pytest plugin and the Python API
(``verify.run/check``, ``diff.run/check``, their keywords typed by :class:`Changes`)
all build one :class:`Settings`, checked as it is built.
"""

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
    """Everything that decides what a gate run checks, and how it reports progress.

    ``seed=None`` picks a seed (reported); generated units lie within ``±max_units``;
    ``fixtures`` default to the seed cases; ``long_lists=False`` leaves out the long
    lists.  ``save_failures=DIR`` replays ``DIR/*.json`` after the fixtures and saves a
    new failure there as a fixture.  Shrinking stops after ``shrink_seconds``;
    ``progress`` is called after every case.  A value out of its range is a
    :class:`ValueError` (a value of the wrong kind, :class:`TypeError`) as the settings
    are built: one line naming the setting, never an error deep inside a run.
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
