"""``pack``: a case in, the declared output out.

Plain cases are packed as they are read (:func:`pack_plain`): one loop over the
blocks, no lists between.  *Plain*: the case and its blocks are ``dict``s, IDs ``str``,
sizes ``int >= 1`` (exact types, never a ``bool``), the budget an ``int >= 0``,
``required`` a list of ``str``, and no ID that reaches the output holding a surrogate.
Anything else (an error to report, a ``Decimal`` or integral ``float``, a ``Mapping``
that is not a ``dict``) is read by :func:`packcheck.read_case`, which reads plain cases
to the same values: the answer never depends on the path a case took.
"""

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
    """Build ``{"kept", "remaining", "missing"}`` from a kept mask (flags or 0/1 bytes).

    ``missing`` keeps every required entry (repeats too) whose ID was not kept, in
    UTF-16 code-unit order.  O(n + r log r).
    """
    kept_ids = list(compress(case.ids, kept))
    missing = missing_ids(case.required, kept_ids) if case.required else []
    return {"kept": kept_ids, "remaining": remaining, "missing": missing}


def pack(case: object, *, engine: Engine = "reference", rule: Rule | None = None) -> dict[str, Any]:
    """The declared output of ``case``: ``{"kept", "remaining", "missing"}``.

    Returns ``{"error": "size"}`` when the budget or any block's size is not a valid
    unit, wherever that block stands.  Raises :class:`packcheck.MalformedCase` when
    ``case`` is not shaped like a case.  ``engine`` picks the algorithm
    (``"reference"``, ``"numpy"`` or ``"numba"``); it affects speed, never the result.
    ``"numba"`` raises ``ImportError`` (naming the extra) when Numba is not installed.
    The input is not modified.

    Plain cases (``dict`` blocks, ``int`` sizes, string IDs) are read and packed in one
    loop whatever the engine: reading the blocks' dicts costs more than any packing.
    Others are read by :func:`read_case`, and ``"numpy"`` packs them with the kernel from
    :data:`packcheck._engines.choice.CROSSOVER` blocks on (docs/performance.md, "Engines
    at the sizes agents pack").

    ``rule`` is the declared rule (:class:`packcheck.Rule`; ``None``: the seed's).  A
    rule whose keys are all the default's takes the path above.  Any other may also
    answer ``{"error": "refused"}``; ``"reference"`` packs it with the rule's
    interpreter, ``"numpy"`` and ``"numba"`` with the rule lowered for their kernels
    (:mod:`packcheck._engines.rules`) from the same crossover on, the interpreter below
    it and wherever a number is past what the kernels hold.
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
    """:func:`pack` of ``case`` under a rule that is not the default, by ``engine``'s
    kernels from :data:`~packcheck._engines.choice.CROSSOVER` blocks on."""
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
    """:func:`pack` of every case (under ``rule``), in order;
    :class:`packcheck.MalformedCase` for the first malformed case.

    Case by case, whatever the engine: for case dicts that is faster than one call of
    :func:`packcheck.scan.pack_batch` on them all (docs/performance.md, "Reading a
    case, and batches of steps").
    """
    check_engine(engine)
    return [pack(case, engine=engine, rule=rule) for case in cases]


def numpy_packer(case: dict[str, Any]) -> dict[str, Any]:
    """packcheck's NumPy kernel at every length: what ``verify`` checks by default.

    ``pack(case, engine="numpy")`` packs plain cases in the same Python loop as the
    reference, and other cases shorter than :data:`packcheck._engines.choice.CROSSOVER` with
    the reference's loop (each faster there), which the gate would be checking against
    itself; this calls the kernel at every length.
    """
    read = read_case(case)
    if isinstance(read, SizeError):
        return dict(SIZE_ERROR)
    kept, remaining = levels.pack_input(read.budget, sizes.from_ints(read.budget, read.sizes))
    return declared_output(read, kept.tolist(), remaining)


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
