"""Declared rules as a user handles them: shown in full, and compared.

:func:`show` gives every key of a rule with its value and its meaning;
:func:`diff` finds the smallest cases on which two rules answer differently (or says
they are the same rule), each a :class:`Difference` that can be saved as a fixture of
the new rule.  ``packcheck rule show`` and ``packcheck rule diff`` print these.

:func:`diff` walks cases with the gate's machinery, which imports Hypothesis: it is
loaded on first use, so that :func:`show` starts quickly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._limits import DEFAULT_BASES, DEFAULT_CASES
from ._show import KeyLine, RuleShown, meaning, show

if TYPE_CHECKING:
    from ._diff import Difference, RuleDiff, diff

__all__ = [
    "DEFAULT_BASES",
    "DEFAULT_CASES",
    "Difference",
    "KeyLine",
    "RuleDiff",
    "RuleShown",
    "diff",
    "meaning",
    "show",
]

_LAZY = frozenset({"Difference", "RuleDiff", "diff"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module("._diff", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
