"""Plain cases packed as they are read: one loop over the blocks, no lists between.

*Plain*: the case and its blocks are ``dict``s, IDs ``str``, sizes ``int >= 1`` (exact
types, never a ``bool``), the budget an ``int >= 0``, ``required`` a list of ``str``,
and no ID that reaches the output holding a surrogate.  Anything else (an error to
report, a ``Decimal`` or integral ``float``, a ``Mapping`` that is not a ``dict``) is
read by :func:`packcheck.read_case`, which reads plain cases to the same values: the
answer never depends on the path a case took.
"""

from __future__ import annotations

from typing import Any

from .._rule.order import missing_ids, own_utf16

__all__ = ["pack_plain"]


def pack_plain(case: object) -> dict[str, Any] | None:
    """The declared output of a plain ``case``, or ``None`` when it is not plain.

    The rule as :func:`packcheck.reference.pack_sizes` states it: one scan in order,
    keeping every block whose size is at most what is left.  A size below 1 can only
    pass the comparison (what is left never falls below 0), so it is checked there.
    ``O(n + r log r)`` for ``n`` blocks and ``r`` required IDs.
    """
    if type(case) is not dict:
        return None
    blocks, required, budget = case.get("blocks"), case.get("required"), case.get("budget")
    if type(blocks) is not list or type(required) is not list or type(budget) is not int:
        return None
    if budget < 0:
        return None
    remaining = budget
    kept: list[str] = []
    keep = kept.append
    try:
        for block in blocks:
            if type(block) is not dict:
                return None
            ident = block["id"]
            size = block["size"]
            if type(ident) is not str or type(size) is not int:
                return None
            if size <= remaining:
                if size < 1:
                    return None
                remaining -= size
                keep(ident)
        # join refuses anything but strings; IDs without a surrogate are their own
        # UTF-16 identity.
        if not own_utf16("".join(kept) + "".join(required)):
            return None
    except (KeyError, TypeError):
        return None
    return {"kept": kept, "remaining": remaining, "missing": missing_ids(required, kept)}
