"""Causes named without confirmation, for tests that look at one case alone.

``verify`` names a cause only once it is confirmed on a sample (``_confirm.confirm``);
these name every simplest variant that gives the answer on the case itself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from packcheck._packers import PackerFault
from packcheck._rule.declared import Rule
from packcheck._rule.model import SizeError, read_case
from packcheck._rule.same import same
from packcheck.verify._causes import LENIENT, departure, plain_scan, variant_of
from packcheck.verify._confirm import variants
from packcheck.verify._findings import Finding
from packcheck.verify._neighbours import rule_answer


def _agrees_on_keys(answer: dict[str, Any], wrong: dict[str, Any]) -> bool:
    return all(same(answer.get(key), wrong[key], json=True) for key in wrong)


def named_causes(
    case: object, answer: object, expected: object, rule: Rule | None = None
) -> list[str]:
    """The wrong variants ``answer`` agrees with on ``case`` (maybe none), unconfirmed.

    Only an answer shaped like the declared output is compared; a variant that answers
    ``expected`` is left out, and of those that agree only the simplest are named.
    """
    rule = rule or Rule()
    if not isinstance(answer, dict) or set(answer) - {"partition"} != {
        "kept",
        "remaining",
        "missing",
    }:
        return []
    try:
        read = read_case(case)
    except ValueError:
        return []
    if not isinstance(expected, dict):
        return []
    if isinstance(read, SizeError):
        plain = variant_of(plain_scan) if rule.is_default else rule_answer(rule)
        return [
            name
            for name, reading in LENIENT
            if isinstance(case, dict)
            and (lenient := reading(case)) is not None
            and _agrees_on_keys(answer, plain(lenient))
        ]
    found = []
    for variant in variants(rule):
        wrong = variant.output(read)
        if not _agrees_on_keys(expected, wrong) and _agrees_on_keys(answer, wrong):
            found.append(variant)
    fewest = min((variant.faults for variant in found), default=0)
    return list(dict.fromkeys(v.name for v in found if v.faults == fewest))


def explained(finding: Finding) -> Finding:
    """``finding`` with its unconfirmed causes and where ``kept`` departs."""
    if isinstance(finding.answer, PackerFault):
        return finding
    causes = tuple(named_causes(finding.case, finding.answer, finding.expected))
    return replace(finding, causes=causes, departs=departure(finding.case, finding.answer))
