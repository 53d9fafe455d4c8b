"""``verify``'s oracle: the declared rule.

:class:`ReferenceOracle` says whether the packer answers a case as declared (the
fixture's expected output, else the rule's, plus the invariant checker) and explains
the first finding.  The rule (a :class:`~packcheck.Rule`, the seed's by default) also
places the generated cases' transition points and bounds their magnitudes
(:func:`unit_bound`).
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import Callable, Hashable
from typing import Any

from hypothesis import strategies as st

from .._engines.pack import pack
from .._gate import SHOWN_WHOLE, Command, Fixture
from .._gate import Finding as GateFinding
from .._gate.plain_case import PlainCase
from .._gate.transitions import shape
from .._packers import Packer, PackerFault, PackerTimeout
from .._rule.declared import Rule
from ..strategies import MAX_SAFE_UNITS, cases
from ._causes import departure_index
from ._findings import Finding, diagnosed, examine

__all__ = ["VERIFY", "ReferenceOracle", "twins", "unit_bound"]

#: ``verify``'s words in its reports.
VERIFY = Command("verify", "conformant", "NOT conformant", "failure", "Counterexample")

#: The seed's rule.
SEED_RULE = Rule()


def unit_bound(rule: Rule, max_units: int) -> int:
    """The largest unit drawn under ``rule`` so that every charge, running total and
    remaining stays within ``max_units``: ``max_units`` itself under a rule with the
    seed's keys; else half of it less the reserve (a running total is what was kept,
    at most the budget, plus the next charge), less the charge added to each size."""
    if rule.is_default:
        return max_units
    extra = math.ceil(rule.per_item) + math.ceil(rule.separator)
    return max(1, (max_units - math.ceil(rule.reserve)) // 2 - extra)


def twins(rule: Rule) -> list[Rule]:
    """Rules whose answers change where a block meets an edge of ``rule`` that leaves its
    answer as it was, so a walk finds that edge: ``pin_overflow = "refuse"`` beside
    ``"allow"``, ``max_count + 1`` beside ``max_count``."""
    found = []
    if rule.pin != "none" and rule.pin_overflow == "allow":
        found.append(Rule(**{**rule.keys(), "pin_overflow": "refuse"}))
    if rule.max_count:
        found.append(Rule(**{**rule.keys(), "max_count": rule.max_count + 1}))
    return found


class ReferenceOracle:
    """``verify``'s oracle: the declared output (the fixture's, else the ``rule``'s).
    ``partition``: every answer but ``{"error": "size"}`` must capture its partition.

    Under a rule other than the seed's every case is judged by the rule's answer, a
    ``ValueError`` is a refusal where the rule refuses, and the invariants checked are
    the rule's (:mod:`._rule_checks`)."""

    follows: str | None = None
    count = False
    #: Its cases are drawn for the rule's transitions (exact fits of subsets and
    #: prefixes): an eighth as many bases as diff's: docs/mutation/verify_transitions.py.
    transition_bases = 12
    #: Under a rule that refuses an empty list, bases are walked along their length.
    walks_length = False

    def __init__(
        self,
        packer: Packer,
        *,
        rule: Rule = SEED_RULE,
        partition: bool = False,
        max_units: int = MAX_SAFE_UNITS,
    ) -> None:
        self.packer = packer
        self.declared = rule
        #: The rule as a function, ``case -> answer``; the seed's is the NumPy engine's.
        self.rule: Callable[[Any], dict[str, Any]] = (
            pack if rule.is_default else functools.partial(pack, rule=rule)
        )
        # A rule with other keys than the seed's: its own checks, and refusals.
        self.other: Rule | None = None if rule.is_default else rule
        if self.other is not None:
            # A rule with more keys has more kinds of transition point (a pin, a stop, a
            # charge per block, a count, a refusal): a third more bases are walked.
            self.transition_bases = 16
            # An empty list's refusal ends at one block: a length, not a unit, moves it.
            self.walks_length = rule.refuse_empty
        #: Rules whose answers are walked beside the rule's (:func:`twins`).
        self.twins = tuple(functools.partial(pack, rule=twin) for twin in twins(rule))
        #: The packer's seconds a case (its adapter's timeout; none in this process).
        self.limit: float = getattr(packer, "timeout", math.inf)
        # The long list the packer answered slowly: longer ones are not asked.
        self.cut: int | None = None
        self.why_cut = ""
        self.left_out = 0
        self.partition = partition
        self.max_units = max_units
        self.last: str | None = None

    def drawn(self, max_units: int, max_blocks: int) -> st.SearchStrategy[dict[str, Any]]:
        """Any case, half of them with an invalid unit; under a rule that removes or
        skips duplicates, half of the valid ones with their IDs drawn from three."""
        drawn = cases(max_units=max_units, max_blocks=max_blocks)
        if self.other is None or self.other.dedup == "none":
            return drawn
        return st.one_of(drawn, drawn.map(_few_ids))

    def judge(self, case: Any, origin: str, fixture: Fixture | None = None) -> Finding | None:
        """Ask the packer; compare with the declared output and check the invariants
        (unless the answer is exactly the reference's output, which passes them)."""
        if fixture is not None:
            self.last = None
            if not fixture.checked:  # another rule's: its input only
                with contextlib.suppress(PackerFault):
                    self.packer.answer(case)
                return None
            return examine(
                self.packer,
                case,
                fixture.expected,
                origin,
                partition=self.partition,
                rule=self.other,
            )
        # The rule's own output: an answer exactly equal to it needs no invariant check.
        # A plain case's, under the seed's rule, from its parts.
        if isinstance(case, PlainCase):
            plain = True
            expected = case.expected() if self.other is None else case.declared(self.other)
        else:
            plain = False
            expected = self.rule(case)
        self.last = None if fixture is not None else "error" if "error" in expected else "answer"
        began = time.monotonic()
        finding = examine(
            self.packer,
            case,
            expected,
            origin,
            partition=self.partition,
            declared=True,
            rule=self.other,
        )
        took = time.monotonic() - began
        length = len(case.sizes) if plain else _length(case)
        answered = finding is None or not isinstance(finding.answer, PackerTimeout)
        slow = took > self.limit / 4 and answered and length > SHOWN_WHOLE
        if slow and (self.cut is None or length < self.cut):
            self.cut = length
            self.why_cut = f"took {took:.1f} s, more than a quarter of the timeout, on"
        return finding

    def seen(self) -> str | None:
        """Whether the rule answered the case last judged (else ``{"error":"size"}``)."""
        return self.last

    def expected_shape(self, case: dict[str, Any]) -> Hashable:
        """The rule's answer for ``case``, numbers blanked, and its :func:`twins`'."""
        answer = shape(self.rule(case))
        if not self.twins:
            return answer
        return (answer, *(shape(twin(case)) for twin in self.twins))

    def skips(self, case: Any) -> bool:
        """Once the packer took more than a quarter of its timeout on a long list it
        answered, longer lists are not asked (as ``diff`` judges a slow OLD: twice as
        long a list takes four times as long in a quadratic loop)."""
        length = len(case.sizes) if isinstance(case, PlainCase) else _length(case)
        skipped = self.cut is not None and length > self.cut
        self.left_out += skipped
        return skipped

    def notes(self) -> tuple[str, ...]:
        """Where the long lists were cut, and why."""
        if self.cut is None:
            return ()
        many = self.left_out != 1
        return (
            f"long lists cut at {self.cut:,} blocks: the packer {self.why_cut} a list of "
            f"{self.cut:,} blocks; {self.left_out:,} longer list{'s' * many} "
            f"{'were' if many else 'was'} not asked; a longer timeout raises the limit",
        )

    def polish(self, finding: GateFinding) -> bool:
        """A fault (a raise, a timeout) is shown as Hypothesis left it."""
        return not isinstance(finding.answer, PackerFault)

    def departs(self, finding: GateFinding) -> int | None:
        """Where the answer's ``kept`` first departs from the rule's, by block (under
        the seed's rule: the scan the departure is found by is its own)."""
        if self.other is not None:
            return None
        return departure_index(finding.case, finding.answer)

    def explained(self, finding: GateFinding) -> Finding:
        """Named causes, each confirmed on a sample drawn from the counterexample (the
        same causes on every seed), and where ``kept`` departs; or, when the case passes
        alone, that it needs state."""
        assert isinstance(finding, Finding)
        return diagnosed(
            finding,
            self.packer,
            max_units=self.max_units,
            partition=self.partition,
            rule=self.declared,
        )


def _length(case: Any) -> int:
    blocks = case.get("blocks") if isinstance(case, dict) else None
    return len(blocks) if isinstance(blocks, list) else 0


def _few_ids(case: dict[str, Any]) -> dict[str, Any]:
    """``case`` with its blocks' IDs taken from ``A``, ``B``, ``C`` (by position, and a
    size's parity): repeated IDs, for a rule's ``dedup``.  A required ID that names a
    block becomes its first block's new ID, so that it still names one (and pins it
    under ``pin = "required"``)."""
    blocks = case["blocks"]
    ids = "ABC"
    renamed = [
        {**block, "id": ids[(index + _parity(block.get("size"))) % 3]}
        for index, block in enumerate(blocks)
    ]
    new: dict[str, str] = {}
    for block, then in zip(blocks, renamed, strict=True):
        new.setdefault(block["id"], then["id"])
    return {**case, "blocks": renamed, "required": [new.get(r, r) for r in case["required"]]}


def _parity(size: object) -> int:
    return size % 2 if isinstance(size, int) and not isinstance(size, bool) else 0
