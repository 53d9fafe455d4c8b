"""Declared rules as a user handles them: the rule a packer follows, inferred.

:func:`infer` asks a packer cases and returns, as an :class:`Inferred`, the simplest
rule of the vocabulary (docs/rules.md) that gives every answer it gave, checked by
``verify --rule``; or, when none does, the nearest rule and a case against it.
``packcheck rule infer`` prints it.

:func:`infer` runs ``verify``, which imports Hypothesis: it is loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._infer import Alternative, Inferred, infer

__all__ = ["Alternative", "Inferred", "infer"]

_LAZY = frozenset({"Alternative", "Inferred", "infer"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module("._infer", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
