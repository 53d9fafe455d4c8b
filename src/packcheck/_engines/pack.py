"""``pack``: a case in, the declared output out; a plain case is packed as it is read,
any other read by :func:`packcheck.read_case` first, to the same answer."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from typing import Any

import numpy as np

from .._rule.answer import REFUSED, answer
from .._rule.declared import Rule
from .._rule.interpret import SIZE_ERROR as SIZE_ERROR
from .._rule.interpret import interpret
from .._rule.model import Case, SizeError, read_case
from .._rule.order import missing_ids, own_utf16
from . import choice, levels, sizes
from .choice import Engine, check_engine, kept_flags
from .rules import pack_rule


def declared_output(case: Case, kept: Iterable[object], remaining: int) -> dict[str, Any]:
    """``{"kept", "remaining", "missing"}`` from a kept mask (flags or 0/1 bytes).
    O(n + r log r)."""
    kept_ids = list(compress(case.ids, kept))
    missing = missing_ids(case.required, kept_ids) if case.required else []
    return {"kept": kept_ids, "remaining": remaining, "missing": missing}


def pack(case: object, *, engine: Engine = "reference", rule: Rule | None = None) -> dict[str, Any]:
    """The declared output of ``case``: ``{"kept", "remaining", "missing"}``.

    ``{"error": "size"}`` for an invalid unit; :class:`packcheck.MalformedCase` when
    ``case`` is not shaped like a case.  ``engine`` affects speed, never the result
    (``"numba"`` raises ``ImportError`` without Numba).  Under ``rule`` (``None``: the
    seed's) the answer may be ``{"error": "refused"}``.  The input is not modified.
    """
    check_engine(engine)
    if rule is not None and not rule.is_default:
        if engine == "reference":
            return interpret(rule, case, result_only=True).result
        return _ruled(rule, case, engine)
    answer = pack_plain(case)
    if answer is not None:
        return answer
    read = read_case(case)
    if isinstance(read, SizeError):
        return dict(SIZE_ERROR)
    flags, left = kept_flags(read.budget, read.sizes, engine)
    return declared_output(read, flags, left)


def _ruled(rule: Rule, case: object, engine: Engine) -> dict[str, Any]:
    """:func:`pack` under a rule other than the default, by ``engine``'s kernels from
    :data:`~packcheck._engines.choice.CROSSOVER` blocks on."""
    read = read_case(case)
    if isinstance(read, SizeError):
        return dict(SIZE_ERROR)
    n = len(read.sizes)
    if n < choice.CROSSOVER:
        return answer(rule, read)
    try:
        values = np.fromiter(read.sizes, dtype=np.int64, count=n)
    except OverflowError:
        # A size past int64: the interpreter, exactly.
        return answer(rule, read)
    ids = wanted = None
    if rule.dedup != "none" or rule.pin == "required":
        numbers: dict[str, int] = {}
        ids = np.fromiter((numbers.setdefault(i, len(numbers)) for i in read.ids), np.int64, n)
        required = set(read.required)
        wanted = np.fromiter((i in required for i in read.ids), np.bool_, n)
    found = pack_rule(rule, read.budget, values, ids, wanted, compiled=engine == "numba")
    if found is None:
        return dict(REFUSED)
    if found.order is None:
        kept = list(compress(read.ids, found.flags.tobytes()))
    else:
        kept = [read.ids[index] for index in found.order.tolist()]
    missing = missing_ids(read.required, kept) if read.required else []
    return {"kept": kept, "remaining": found.remaining, "missing": missing}


def pack_many(
    cases: Iterable[object], *, engine: Engine = "reference", rule: Rule | None = None
) -> list[dict[str, Any]]:
    """:func:`pack` of every case, in order."""
    check_engine(engine)
    return [pack(case, engine=engine, rule=rule) for case in cases]


def numpy_packer(case: dict[str, Any]) -> dict[str, Any]:
    """packcheck's NumPy kernel at every length: what ``verify`` checks by default
    (``pack(case, engine="numpy")`` uses the reference's loop on short cases)."""
    read = read_case(case)
    if isinstance(read, SizeError):
        return dict(SIZE_ERROR)
    kept, remaining = levels.pack_input(read.budget, sizes.from_ints(read.budget, read.sizes))
    return declared_output(read, kept.tolist(), remaining)


def pack_plain(case: object) -> dict[str, Any] | None:
    """The declared output of a plain ``case`` (``dict`` blocks, ``str`` IDs, ``int``
    units, no surrogate), or ``None`` when it is not plain.  O(n + r log r)."""
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
