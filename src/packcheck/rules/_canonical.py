"""A stand-in for ``Rule.canonical()`` until it lands: the resets that are plainly safe.

Two rules whose canonical forms are equal answer every case alike.
"""

from __future__ import annotations

from .._rule.declared import Rule

__all__ = ["canonical"]


def canonical(rule: Rule) -> Rule:
    """``rule`` with its name and the keys that cannot change an answer reset."""
    keys = rule.keys()
    keys["name"] = ""
    if keys["pin"] == "none":
        keys["pin_overflow"] = "allow"
    if keys["order"] == "given" and keys["pin"] in ("none", "first"):
        keys["output"] = "input"
    if keys["per_item"] == keys["separator"] == keys["reserve"] == 0:
        keys["remaining"] = "charged"
    return Rule(**keys)
