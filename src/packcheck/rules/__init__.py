"""Working with declared rules: finding the rule a packer follows.

:func:`infer` asks a packer cases and returns the simplest rule of the vocabulary
(docs/rules.md) that gives every answer it gave, checked by ``verify --rule``; or,
when none does, the nearest rule and a case against it.
"""

from ._infer import Alternative, Inferred, infer

__all__ = ["Alternative", "Inferred", "infer"]
