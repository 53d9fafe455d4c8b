"""Declared rules as a user handles them: shown in full (:func:`show`), compared
(:func:`diff`) and inferred (:func:`infer`); the last two load Hypothesis on first use."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .._rule.limits import DEFAULT_BASES, DEFAULT_CASES
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
