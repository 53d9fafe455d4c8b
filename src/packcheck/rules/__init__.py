"""Declared rules as a user handles them: shown in full, compared, and inferred.

:func:`show` gives every key of a rule with its value and its meaning;
:func:`diff` finds the smallest cases on which two rules answer differently (or says
they are the same rule), each a :class:`Difference` that can be saved as a fixture of
the new rule; :func:`infer` asks a packer cases and returns, as an :class:`Inferred`,
the simplest rule of the vocabulary (docs/rules.md) that gives every answer it gave,
checked by ``verify --rule``, or, when none does, the nearest rule and a case against
it.  ``packcheck rule show``, ``diff`` and ``infer`` print these.

:func:`diff` and :func:`infer` use the gate's machinery, which imports Hypothesis: they
are loaded on first use, so that :func:`show` starts quickly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._limits import DEFAULT_BASES, DEFAULT_CASES
from ._show import RuleShown, meaning, show

if TYPE_CHECKING:
    from ._diff import Difference, RuleDiff, diff
    from ._infer import Alternative, Inferred, infer

__all__ = [
    "DEFAULT_BASES",
    "DEFAULT_CASES",
    "Alternative",
    "Difference",
    "Inferred",
    "RuleDiff",
    "RuleShown",
    "diff",
    "infer",
    "meaning",
    "show",
]

#: The names loaded on first use, and the module of each.
_LAZY = {
    "Difference": "._diff",
    "RuleDiff": "._diff",
    "diff": "._diff",
    "Alternative": "._infer",
    "Inferred": "._infer",
    "infer": "._infer",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
