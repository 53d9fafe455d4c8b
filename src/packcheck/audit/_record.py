"""Run records under a declared rule: writing one (:func:`record_step`), and the check
that a step recorded under a rule is audited under the same (:class:`RuleMismatch`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._engines.choice import Engine
from .._inputs import ReadError
from .._partition.facts import partition_json
from .._partition.mask import capture
from .._partition.trace import trace
from .._rule.declared import Rule, RuleError
from .._rule.recorded import RULE_KEY, read_recorded, recorded, same_rule, shown_rule


class RuleMismatch(ReadError):
    """A step recorded under a rule other than the one the audit uses: one line, naming
    both (``name`` is the file, filled in where it is known; ``line`` its line)."""

    def __init__(self, name: str, line: int, why: str) -> None:
        super().__init__(name, why)
        self.line = line

    def __str__(self) -> str:
        return f"{self.name}: line {self.line}: {self.why}"

    def __reduce__(self) -> tuple[type[RuleMismatch], tuple[str, int, str]]:
        # From a worker, as it is now (its file named, its line shifted or not).
        return RuleMismatch, (self.name, self.line, self.why)


def recorded_rule(value: object, number: int, file: str | None) -> Rule | None:
    """The rule ``value``, the ``rule`` of the step on line ``number``, names (``None``
    for packcheck's own); :class:`RuleMismatch` if it names none."""
    try:
        named = read_recorded(value)
    except RuleError as exc:
        raise RuleMismatch(file or "", number, f"not a recorded rule: {exc}") from None
    return None if named.is_default else named


def same_rule_or_raise(value: object, rule: Rule | None, number: int, file: str | None) -> None:
    """Raise :class:`RuleMismatch` unless ``value``, the ``rule`` of the step on line
    ``number``, names ``rule``, the one in use (``None``: the seed's)."""
    named = recorded_rule(value, number, file)
    if not same_rule(named, rule):
        why = f"recorded under {shown_rule(named)}, audited under {shown_rule(rule)}"
        raise RuleMismatch(file or "", number, why)


def record_step(
    case: Mapping[str, Any], *, engine: Engine = "reference", rule: Rule | None = None
) -> dict[str, Any]:
    """``case`` as a run record, as ``packcheck pack --record`` writes it: its keys, the
    ``partition`` and ``result`` (empty and ``{"error": "size"}`` for a size error), and
    under a ``rule`` other than the default its ``rule`` key.  Raises
    :class:`packcheck.MalformedCase`."""
    named = recorded(rule)
    if named is None:  # the default rule: no Step per block (a case of millions of blocks)
        result, partition = capture(case, engine=engine)
        return {**case, "partition": partition, "result": result}
    captured = trace(case, engine=engine, rule=rule)
    return {
        **case,
        RULE_KEY: named,
        "partition": partition_json(captured.partition),
        "result": captured.result,
    }
