"""``verify``'s oracle: the declared rule.

The gate's phases (:mod:`packcheck._gate`) only produce cases; :class:`ReferenceOracle`
says whether the packer under test answers one as declared (the fixture's expected
output, else the rule's, plus the invariant checker) and explains the first finding.
The rule is one object, the declared answer of a case: its answers, walked along the
budget and one block's size, are also where the generated cases' transition points lie.
``packcheck diff`` plugs in the packer's previous version instead.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Hashable
from typing import Any

from hypothesis import strategies as st

from .._engines.pack import pack
from .._gate import Command, Fixture
from .._gate import Finding as GateFinding
from .._gate._plain_case import PlainCase
from .._gate._transitions import shape
from .._packers import Packer, PackerFault
from .._rule.jsonio import dumps
from ..strategies import MAX_SAFE_UNITS, cases
from ._causes import departure_index
from ._findings import Finding, diagnosed, examine

__all__ = ["VERIFY", "ReferenceOracle", "Rule"]

#: ``verify``'s words in its reports.
VERIFY = Command("verify", "conformant", "NOT conformant", "failure", "Counterexample")


#: A declared rule, as the oracle asks it: the declared answer of a case.
Rule = Callable[[dict[str, Any]], dict[str, Any]]


class ReferenceOracle:
    """``verify``'s oracle: the declared output (the fixture's, else the ``rule``'s,
    by default the seed's rule).  ``partition``: every answer but ``{"error": "size"}``
    must capture its partition."""

    follows: str | None = None
    count = False
    #: Its cases are drawn for the rule's transitions (exact fits of subsets and
    #: prefixes): an eighth as many bases as diff's: docs/mutation/verify_transitions.py.
    transition_bases = 12

    def __init__(
        self,
        packer: Packer,
        *,
        rule: Rule = pack,
        partition: bool = False,
        max_units: int = MAX_SAFE_UNITS,
    ) -> None:
        self.packer = packer
        self.rule = rule
        self.partition = partition
        self.max_units = max_units
        self.last: str | None = None

    def drawn(self, max_units: int, max_blocks: int) -> st.SearchStrategy[dict[str, Any]]:
        """Any case, half of them with an invalid unit."""
        return cases(max_units=max_units, max_blocks=max_blocks)

    def judge(self, case: Any, origin: str, fixture: Fixture | None = None) -> Finding | None:
        """Ask the packer; compare with the declared output and check the invariants
        (unless the answer is exactly the reference's output, which passes them)."""
        if fixture is not None:
            self.last = None
            if not fixture.checked:  # another rule's: its input only
                with contextlib.suppress(PackerFault):
                    self.packer.answer(case)
                return None
            return examine(self.packer, case, fixture.expected, origin, partition=self.partition)
        # The rule's own output: an answer exactly equal to it needs no invariant check.
        # A plain case's, under the seed's rule, from its parts.
        plain = isinstance(case, PlainCase)
        seed_rule = plain and self.rule is pack
        expected = case.expected() if seed_rule else self.rule(case.build() if plain else case)
        self.last = "error" if "error" in expected else "answer"
        return examine(self.packer, case, expected, origin, partition=self.partition, declared=True)

    def seen(self) -> str | None:
        """Whether the rule answered the case last judged (else ``{"error":"size"}``)."""
        return self.last

    def expected_shape(self, case: dict[str, Any]) -> Hashable:
        """The rule's answer for ``case``, numbers blanked."""
        return shape(self.rule(case))

    def skips(self, case: Any) -> bool:
        """Every probe is asked."""
        return False

    def notes(self) -> tuple[str, ...]:
        """Every case is compared."""
        return ()

    def polish(self, finding: GateFinding) -> bool:
        """A fault (a raise, a timeout) is shown as Hypothesis left it."""
        return not isinstance(finding.answer, PackerFault)

    def departs(self, finding: GateFinding) -> int | None:
        """Where the answer's ``kept`` first departs from the rule's, by block."""
        return departure_index(finding.case, finding.answer)

    def explained(self, finding: GateFinding) -> Finding:
        """Named causes, each confirmed on a sample, and the position where ``kept``
        departs from the rule's; or, when the case passes alone, that it needs state.

        The sample is drawn from the counterexample (a digest of it), not the run's
        seed: the same counterexample is given the same causes on every seed."""
        assert isinstance(finding, Finding)
        digest = hashlib.sha256(dumps(finding.case).encode()).hexdigest()
        return diagnosed(
            finding,
            self.packer,
            seed=int(digest[:8], 16),
            max_units=self.max_units,
            partition=self.partition,
        )
