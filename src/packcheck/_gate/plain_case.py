"""A plain case kept as its parts: a long probe is built, checked and answered without
walking every block's ``dict`` three times."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from json.encoder import encode_basestring_ascii
from operator import countOf
from typing import Any

from .. import reference
from .._engines.pack import pack
from .._packers import encode_case
from .._rule.declared import Rule
from .._rule.interpret import interpret_case
from .._rule.model import Case, plain_columns
from .._rule.order import missing_ids, own_utf16

__all__ = ["PlainCase", "blocks_in"]

_KEYS = ["budget", "blocks", "required"]
_BLOCK = '{"id":%s,"size":%d}'


@dataclass(frozen=True, slots=True, eq=False)
class PlainCase:
    """``{"budget", "blocks": [{"id", "size"}...], "required"}`` as its parts (exact
    ``int`` and ``str`` types), never changed."""

    budget: int
    ids: list[str]
    sizes: list[int]
    required: list[str]

    def build(self) -> dict[str, Any]:
        """A new case the packer alone owns (it shares only immutable values)."""
        blocks = [{"id": i, "size": s} for i, s in zip(self.ids, self.sizes, strict=True)]
        return {"budget": self.budget, "blocks": blocks, "required": list(self.required)}

    def line(self) -> str:
        """:func:`packcheck._packers.encode_case` of :meth:`build`, from the parts."""
        code = encode_basestring_ascii
        try:
            blocks = ",".join(
                map(_BLOCK.__mod__, zip(map(code, self.ids), self.sizes, strict=True))
            )
            budget = str(self.budget)
        except ValueError:  # an integer past CPython's 4,300-digit guard
            return encode_case(self.build())
        required = ",".join(map(code, self.required))
        return f'{{"budget":{budget},"blocks":[{blocks}],"required":[{required}]}}'

    def holds(self, case: object) -> bool:
        """Whether ``case`` is still exactly what :meth:`build` made (keys, order, types)."""
        if type(case) is not dict or list(case) != _KEYS:
            return False
        budget, blocks, required = case["budget"], case["blocks"], case["required"]
        if type(budget) is not int or budget != self.budget:
            return False
        if type(required) is not list or countOf(map(type, required), str) != len(required):
            return False
        if required != self.required or type(blocks) is not list or len(blocks) != len(self.ids):
            return False
        return plain_columns(blocks) == (self.ids, self.sizes)

    def expected(self) -> dict[str, Any]:
        """``pack(self.build())``, from the parts where every unit is valid and every ID
        in the output is its own UTF-16."""
        sizes = self.sizes
        if self.budget < 0 or (sizes and min(sizes) < 1):
            return pack(self.build())
        flags, remaining = reference.pack_sizes(self.budget, sizes)
        kept = list(compress(self.ids, flags))
        if not own_utf16("".join(kept) + "".join(self.required)):
            return pack(self.build())
        return {"kept": kept, "remaining": remaining, "missing": missing_ids(self.required, kept)}

    def declared(self, rule: Rule) -> dict[str, Any]:
        """``pack(self.build(), rule=rule)``, from the parts where :meth:`expected` can."""
        sizes = self.sizes
        plain = self.budget >= 0 and (not sizes or min(sizes) >= 1)
        if not plain or not own_utf16("".join(self.ids) + "".join(self.required)):
            return pack(self.build(), rule=rule)
        case = Case(self.budget, tuple(self.ids), tuple(sizes), tuple(self.required))
        return interpret_case(rule, case, result_only=True).result


def blocks_in(case: object) -> int:
    """How many blocks ``case`` has (0 without a list of blocks)."""
    if isinstance(case, PlainCase):
        return len(case.sizes)
    blocks = case.get("blocks") if isinstance(case, dict) else None
    return len(blocks) if isinstance(blocks, list) else 0
