"""``verify``'s finding: a counterexample to the declared rule, and how it is found."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from .._gate import SHOWN_WHOLE, plain_json, show_answer
from .._gate import Finding as GateFinding
from .._gate.findings import case_summary, cut_lists
from .._gate.plain_case import PlainCase
from .._packers import Packer, PackerFault, PackerRefusal, PackerTimeout
from .._partition.facts import require_partition, without_partition
from .._partition.invariants import InvariantError, check_output
from .._rule.declared import Rule
from .._rule.interpret import REFUSED
from .._rule.jsonio import dumps, one_line
from .._rule.same import same
from ._causes import departure_by, departure_index
from ._confirm import confirm
from ._rule_checks import check_rule_output

__all__ = ["SHOWN_WHOLE", "Finding", "diagnosed", "examine", "show_answer"]

_SEED = Rule()
#: Said below a ``ValueError`` a Python packer raised where the rule gives an answer.
_NOT_REFUSED = "not a refusal: the rule does not refuse this case, so a ValueError here is a fault"


@dataclass(frozen=True, slots=True)
class Finding(GateFinding):
    """A counterexample to the declared rule: ``causes``, the wrong variants confirmed
    (``support``: how far); ``departs``: where ``kept`` first leaves the rule's;
    ``alone``: ``False`` when the case passed when asked again on its own."""

    causes: tuple[str, ...] = field(default=())
    departs: str | None = None
    support: str | None = None
    alone: bool | None = None

    def verdict(self) -> str:
        return "not conformant"

    def json(self) -> dict[str, Any]:
        fault = self.answer if isinstance(self.answer, PackerFault) else None
        plain = fault is None and plain_json(self.answer)
        return {
            "check": self.failures[0],
            "checks": list(self.failures),
            "case": self.case,
            "answer": self.answer if plain else None,
            "answer_text": show_answer(self.answer),
            "fault": None if fault is None else str(fault),
            "expected": self.expected,
            "departure": self.departs,
            "causes": list(self.causes),
            "cause": "; ".join(self.causes) or "no known cause" if self._caused() else None,
        }

    def _caused(self) -> bool:
        """Whether causes were sought: for any answer, or a refusal a neighbour gives."""
        if isinstance(self.answer, PackerRefusal):
            return bool(self.causes)
        return not isinstance(self.answer, PackerFault)

    def report(self) -> str:
        """A few lines for a person; a case past :data:`SHOWN_WHOLE` blocks is summarised
        around its first departure."""
        lines = [f"FAIL {self.origin}"]
        for failure in self.failures:
            # A check's own lines stay lines: only a line break from data is escaped.
            first, *table = failure.split("\n")
            lines += [f"  check:    {first}", *table]
        if self.departs is not None:
            lines.append(f"  departs:  {self.departs}")
        if self.alone is False:
            lines += self._not_alone()
        elif self.failures and self._caused():
            said = f"consistent with: {'; '.join(self.causes)}" if self.causes else "no known cause"
            support = f" ({self.support})" if self.support else ""
            lines.append(f"  cause:    {said}{support}")
        if self.blocks() <= SHOWN_WHOLE:
            lines.append(f"  answer:   {show_answer(self.answer)}")
            lines.append(f"  expected: {dumps(self.expected)}")
            lines.append(f"  fixture:  {dumps([self.fixture()])}")
            return "\n".join(map(one_line, lines))
        lines.append(f"  case:     {self._case_summary()}")
        lines.append(f"  answer:   {_summarised(self.answer)}")
        lines.append(f"  expected: {_summarised(self.expected)}")
        lines.append(f"  fixture:  too long to show; {self.saving} saves it whole")
        return "\n".join(map(one_line, lines))

    def _not_alone(self) -> list[str]:
        lines = [
            "  alone:    this case passes when asked again on its own: the failure needs "
            "state the packer kept from earlier calls"
        ]
        first = self.first
        if first is not None and self.before is not None:
            shown = (
                dumps(first.case)
                if first.blocks() <= SHOWN_WHOLE
                else f"{first.blocks():,} blocks ({self.saving} saves the shrunk case)"
            )
            lines.append(
                f"  first:    found as case {self.before + 1:,} of the run, after "
                f"{self.before:,} others passed: {shown}"
            )
        return lines

    def _case_summary(self) -> str:
        found = departure_index(self.case, self.answer) if self.departs is not None else None
        return case_summary(self.case, 0 if found is None else found)


def _summarised(output: object) -> str:
    """An output with long lists cut to their ends."""
    if isinstance(output, PackerFault) or not isinstance(output, dict):
        return show_answer(output)
    return cut_lists(output, dumps)


def examine(
    packer: Packer,
    case: Any,
    expected: Any,
    origin: str,
    *,
    partition: bool = False,
    declared: bool = False,
    rule: Rule | None = None,
) -> Finding | None:
    """Ask ``packer`` about ``case``; a :class:`Finding` unless it answers ``expected``.

    A ``partition`` the answer carries is checked (with ``partition=True`` one must be
    there).  ``declared=True``: ``expected`` is the rule's own output, so an answer
    equal to it passes the invariants unchecked.  ``rule``: another declared rule than
    the seed's, under which a :class:`PackerRefusal` is ``{"error": "refused"}``.
    """
    recipe = case if isinstance(case, PlainCase) else None
    try:
        answer: object = packer.answer(case) if recipe is None else packer.answer_built(recipe)
    except PackerFault as exc:
        if rule is not None and isinstance(exc, PackerRefusal) and expected == REFUSED:
            return None
        case = case if recipe is None else recipe.build()
        # A refusal in shape, where the rule answers: the line below says why it is none.
        said = (_NOT_REFUSED,) if isinstance(exc, PackerRefusal) else ()
        return Finding(case, expected, exc, (f"packer fault: {exc}", *said), origin)
    failures: list[str] = []
    if not same(expected, without_partition(answer)):
        failures.append("output: differs from the declared output (exact JSON and types)")
    elif declared and not partition and type(answer) is dict and "partition" not in answer:
        return None
    if recipe is not None:
        case = recipe.build()
    try:
        if rule is None:
            check_output(case, answer)
        else:
            check_rule_output(rule, case, answer)
        if partition:
            require_partition(answer)
    except InvariantError as exc:
        failures.append(f"invariant {exc}")
    return Finding(case, expected, answer, tuple(failures), origin) if failures else None


def diagnosed(
    finding: Finding, packer: Packer, *, max_units: int, partition: bool = False, rule: Rule = _SEED
) -> Finding:
    """``finding`` asked again alone (unless it timed out): if it passes, it needs state
    and no cause is named; else its causes under ``rule``, confirmed on a sample seeded
    by the case (:mod:`packcheck.verify._confirm`), and where ``kept`` departs."""
    if isinstance(finding.answer, PackerTimeout):
        return finding  # asked again, it would wait the timeout once more
    first = finding.first or finding
    again = examine(
        packer,
        finding.case,
        finding.expected,
        finding.origin,
        partition=partition,
        rule=None if rule.is_default else rule,
    )
    if again is None:
        return replace(finding, alone=False, before=first.before, first=first)
    finding = replace(finding, departs=departure_by(rule, finding.case, finding.answer))
    answer, earlier = _judged(finding.answer, rule), _judged(first.answer, rule)
    if isinstance(answer, PackerFault):
        return finding
    confirmed = confirm(
        finding.case,
        answer,
        packer.answer,
        first=None if isinstance(earlier, PackerFault) else (first.case, earlier),
        seed=int(hashlib.sha256(dumps(finding.case).encode()).hexdigest()[:8], 16),
        max_units=max_units,
        rule=rule,
    )
    return replace(finding, causes=confirmed.causes, support=confirmed.support)


def _judged(answer: object, rule: Rule) -> object:
    """``answer`` as causes are sought: under another rule than the seed's, a refusal is
    ``{"error":"refused"}``."""
    if isinstance(answer, PackerRefusal) and not rule.is_default:
        return dict(REFUSED)
    return answer
