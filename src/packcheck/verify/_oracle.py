"""``verify``'s oracle: the declared rule, which judges each answer, places the
transition points and bounds the magnitudes drawn."""

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
from .._gate.plain_case import PlainCase, blocks_in
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
    """The largest unit drawn under ``rule`` so that every running total stays within
    ``max_units``: under another rule than the seed's, half of it less the reserve
    (a total is at most the budget plus the next charge), less each size's charge."""
    if rule.is_default:
        return max_units
    extra = math.ceil(rule.per_item) + math.ceil(rule.separator)
    return max(1, (max_units - math.ceil(rule.reserve)) // 2 - extra)


def twins(rule: Rule) -> list[Rule]:
    """Rules whose answers change at an edge ``rule``'s answer does not show, so a walk
    finds it: ``pin_overflow = "refuse"`` beside ``"allow"``, ``max_count + 1``."""
    found = []
    if rule.pin != "none" and rule.pin_overflow == "allow":
        found.append(Rule(**{**rule.keys(), "pin_overflow": "refuse"}))
    if rule.max_count:
        found.append(Rule(**{**rule.keys(), "max_count": rule.max_count + 1}))
    return found


class ReferenceOracle:
    """``verify``'s oracle: the declared output (the fixture's, else the ``rule``'s),
    and under another rule than the seed's, that rule's facts (:mod:`._rule_checks`)."""

    follows: str | None = None
    count = False
    #: An eighth as many bases as diff's: docs/mutation/verify_transitions.py.
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
        self.other: Rule | None = None if rule.is_default else rule
        if self.other is not None:
            # More kinds of transition point (a pin, a stop, a charge...): more bases.
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
        """Any case; under a rule with ``dedup``, half with IDs drawn from three."""
        drawn = cases(max_units=max_units, max_blocks=max_blocks)
        if self.other is None or self.other.dedup == "none":
            return drawn
        return st.one_of(drawn, drawn.map(_few_ids))

    def judge(self, case: Any, origin: str, fixture: Fixture | None = None) -> Finding | None:
        """Ask the packer; compare with the declared output and check the invariants."""
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
        if isinstance(case, PlainCase):
            expected = case.expected() if self.other is None else case.declared(self.other)
        else:
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
        length = blocks_in(case)
        answered = finding is None or not isinstance(finding.answer, PackerTimeout)
        slow = took > self.limit / 4 and answered and length > SHOWN_WHOLE
        if slow and (self.cut is None or length < self.cut):
            self.cut = length
            self.why_cut = f"took {took:.1f} s, more than a quarter of the timeout, on"
        return finding

    def seen(self) -> str | None:
        """What the rule did on the case last judged (:data:`~._gate.outcome.SEEN`)."""
        return self.last

    def expected_shape(self, case: dict[str, Any]) -> Hashable:
        """The rule's answer for ``case``, numbers blanked, and its :func:`twins`'."""
        answer = shape(self.rule(case))
        if not self.twins:
            return answer
        return (answer, *(shape(twin(case)) for twin in self.twins))

    def skips(self, case: Any) -> bool:
        """Once the packer took more than a quarter of its timeout on a long list it
        answered, longer lists are not asked (twice as long, four times the time)."""
        skipped = self.cut is not None and blocks_in(case) > self.cut
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
        """Whether to polish: a fault is shown as Hypothesis left it."""
        return not isinstance(finding.answer, PackerFault)

    def departs(self, finding: GateFinding) -> int | None:
        """The block where ``kept`` first departs, under the seed's rule."""
        if self.other is not None:
            return None
        return departure_index(finding.case, finding.answer)

    def explained(self, finding: GateFinding) -> Finding:
        """:func:`~._findings.diagnosed`."""
        assert isinstance(finding, Finding)
        return diagnosed(
            finding,
            self.packer,
            max_units=self.max_units,
            partition=self.partition,
            rule=self.declared,
        )


def _few_ids(case: dict[str, Any]) -> dict[str, Any]:
    """``case`` with block IDs from ``A``, ``B``, ``C`` (by position and size parity); a
    required ID takes its first block's new ID, so it still names one."""
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
