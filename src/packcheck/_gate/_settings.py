"""The settings of one gate run, with their defaults, declared once.

The command line, ``[tool.packcheck]``, the pytest plugin and the Python API
(``verify.run/check``, ``diff.run/check``) all build one :class:`Settings`; a
function that takes keywords maps them onto it with :func:`settings_of`.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from .._rule.jsonio import show
from ..strategies import MAX_SAFE_UNITS
from ._fixtures import Fixture

__all__ = [
    "DEFAULT_MAX_EXAMPLES",
    "MAX_EXAMPLES",
    "SHRINK_SECONDS",
    "Progress",
    "Settings",
    "examples",
    "seeded",
    "settings_of",
]

#: Generated (short) cases per run.  With the wide-range and long-list probes, a
#: default run of a Python or command packer takes 10-20 s on two cores.
DEFAULT_MAX_EXAMPLES = 1000
#: The most generated cases a run takes: a run holds about 10 KB of Hypothesis's
#: bookkeeping per generated case until it ends.
MAX_EXAMPLES = 10**6
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
    lists.  ``partition`` (``verify`` only): every answer but ``{"error": "size"}``
    must capture its partition.  ``count`` (``diff`` only): every phase runs to its end
    and its failures are counted.  ``save_failures=DIR`` replays ``DIR/*.json`` after
    the fixtures and saves a new failure there as a fixture.  Shrinking stops after
    ``shrink_seconds``; ``progress`` is called after every case.
    """

    seed: int | None = None
    max_examples: int = DEFAULT_MAX_EXAMPLES
    max_units: int = MAX_SAFE_UNITS
    fixtures: Iterable[Fixture] | None = None
    long_lists: bool = True
    partition: bool = False
    count: bool = False
    save_failures: Path | None = None
    shrink_seconds: float = SHRINK_SECONDS
    progress: Progress | None = None

    def __post_init__(self) -> None:
        try:
            examples(self.max_examples)
        except ValueError as exc:
            raise ValueError(f"max_examples: {exc}") from None


def examples(value: object) -> int:
    """``value`` if it is a count of generated cases a run may take, an integer from 1
    to :data:`MAX_EXAMPLES`; else :class:`ValueError` saying so in one line.  The one
    check of the setting: the command line, ``[tool.packcheck]`` and :class:`Settings`
    all call it."""
    if type(value) is not int or not 1 <= value <= MAX_EXAMPLES:
        raise ValueError(f"{show(value, 40)} is not a count of cases from 1 to {MAX_EXAMPLES:,}")
    return value


#: The keywords :func:`settings_of` takes: the fields of :class:`Settings`.
KEYWORDS = frozenset(field.name for field in fields(Settings))


def settings_of(settings: Settings | None, changes: Mapping[str, Any]) -> Settings:
    """``settings`` (default: :class:`Settings`'s defaults) with ``changes``, keywords
    named as its fields; ``save_failures`` may be any path-like.  An unknown keyword
    is a :class:`TypeError`, as for any function."""
    unknown = sorted(set(changes) - KEYWORDS)
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r}")
    changes = dict(changes)
    if changes.get("save_failures") is not None:
        changes["save_failures"] = Path(os.fspath(changes["save_failures"]))
    return replace(settings or Settings(), **changes)


def seeded(settings: Settings) -> Settings:
    """``settings`` with a seed: its own, else one picked at random (and reported)."""
    if settings.seed is not None:
        return settings
    return replace(settings, seed=random.SystemRandom().randrange(2**32))
