"""A finding: a case the packer under test did not answer as the oracle expects."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from .._packers import PackerFault
from .._rule.declared import Rule
from .._rule.fixture_rule import recorded
from .._rule.jsonio import dumps, shortened, show
from .plain_case import blocks_in

__all__ = ["SHOWN_WHOLE", "Finding", "case_summary", "cut_lists", "plain_json", "show_answer"]

#: A case with more blocks than this is summarised in a report and saved whole.
SHOWN_WHOLE = 50


@dataclass(frozen=True, slots=True)
class Finding:
    """A case the packer answered wrongly, and the checks it failed.

    ``answer`` is a :class:`PackerFault` when none came; ``first``: the finding as first
    found, ``before`` cases after the run's start; ``under``: the rule its fixture
    records (``"OLD"`` for ``diff`` without one, ``None``: the default).
    """

    #: The start of a saved fixture's id: ``verify-`` and a digest of the case.
    PREFIX: ClassVar[str] = "verify"

    case: Any
    expected: Any
    answer: Any
    failures: tuple[str, ...]
    origin: str
    name: str | None = None
    first: Finding | None = None
    before: int | None = None
    saving: str = "save_failures=DIR"
    under: Rule | str | None = None

    def declared(self) -> Any:
        """The expected output a saved fixture records."""
        return self.expected

    def fixture(self) -> dict[str, Any]:
        """The case as a fixture ``{"id", "rule", "input", "expected"}`` (``rule`` only
        when it is not the default)."""
        digest = hashlib.sha256(dumps(self.case).encode()).hexdigest()[:12]
        rule = recorded(self.under)
        return {
            "id": self.name or f"{self.PREFIX}-{digest}",
            **({} if rule is None else {"rule": rule}),
            "input": self.case,
            "expected": self.declared(),
        }

    def blocks(self) -> int:
        """How many blocks the case has (0 without a list of blocks)."""
        return blocks_in(self.case)

    # Each oracle's finding writes its own report, JSON verdict and JSON failure keys.
    def report(self) -> str:
        raise NotImplementedError  # pragma: no cover - each oracle's finding has its own

    def verdict(self) -> str:
        raise NotImplementedError  # pragma: no cover - each oracle's finding has its own

    def json(self) -> dict[str, Any]:
        raise NotImplementedError  # pragma: no cover - each oracle's finding has its own


def case_summary(case: dict[str, Any], at: int | None = None) -> str:
    """A long case in a line: length, budget, required, and the blocks within three of
    ``at`` (else the first three and last two)."""
    blocks = case["blocks"]
    n = len(blocks)
    shown = [*range(3), *range(n - 2, n)] if at is None else range(max(0, at - 3), min(n, at + 4))
    window = ", ".join(f"[{i}] {dumps(blocks[i])}" for i in shown)
    return (
        f"{n:,} blocks, budget {show(case.get('budget'), 40)}, required "
        f"{show(case.get('required'), 80)}; blocks {window}"
    )


def cut_lists(output: dict[Any, Any], key: Callable[[Any], str], tuples: bool = False) -> str:
    """``output`` on one line, each list (or tuple) past 8 entries cut to its ends."""
    parts = []
    for name, value in output.items():
        if isinstance(value, (list, tuple) if tuples else list) and len(value) > 8:
            head = ",".join(show(v, 20) for v in value[:3])
            tail = ",".join(show(v, 20) for v in value[-2:])
            parts.append(f"{key(name)}:[{head},... {len(value):,} entries ...,{tail}]")
        else:
            parts.append(f"{key(name)}:{show(value, 200)}")
    return "{" + ",".join(parts) + "}"


def show_answer(answer: object) -> str:
    """JSON when the answer is plain JSON data, else ``repr`` (which shows types)."""
    if isinstance(answer, PackerFault):
        return f"(no answer: {str(answer).splitlines()[0].removesuffix('; stderr:')})"
    return shortened(answer, dumps if plain_json(answer) else repr)


def plain_json(value: object) -> bool:
    """Whether ``value`` is JSON data as JSON writes it back (exact types)."""
    if type(value) is dict:
        return all(type(k) is str and plain_json(v) for k, v in value.items())
    if type(value) is list:
        return all(map(plain_json, value))
    if type(value) is float:
        # 0.0 is written 0.0, never 0: JSON shows the type; NaN and infinities it cannot.
        return math.isfinite(value)
    # Decimal: a command packer's non-integral number, written back as it was read.
    return type(value) in (str, int, bool, type(None), Decimal)
