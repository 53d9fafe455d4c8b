"""What ``rule infer`` prints: the rule's changed keys as TOML, after comment lines
that say how it was found (or that it is only the nearest), or one JSON object."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .._rule.declared import Rule, RuleError, json_value
from .._rule.jsonio import dumps, one_line
from ..rules import Inferred

#: Spellings of the same rule listed by name; the rest are counted.
_SPELLINGS = 3
#: Where the rule found is packcheck's own, which an empty table is.
_DEFAULT = (
    "# The rule below is packcheck's default rule: every key at its default, so no key follows."
)


def rule_table(rule: Rule) -> dict[str, Any]:
    """The keys of ``rule`` that differ from the default (a fraction as ``"p/q"``)."""
    table: dict[str, Any] = {}
    for line in rule.changed():
        key = line.split(" = ", 1)[0]
        table[key] = json_value(getattr(rule, key))
    return table


def _keys(rule: Rule, chosen: Rule) -> str:
    """How ``rule`` differs from ``chosen``: its TOML lines that ``chosen`` lacks, and
    ``chosen``'s keys that it leaves at the default."""
    mine, theirs = rule.changed(), chosen.changed()
    added = [line for line in mine if line not in theirs]
    named = {line.split(" = ", 1)[0] for line in added}
    reset = [
        f"{key} at its default"
        for key in (line.split(" = ", 1)[0] for line in theirs if line not in mine)
        if key not in named
    ]
    return ", ".join(added + reset)


def _bare(rule: Rule, chosen: Rule) -> Rule:
    """``rule`` with each key it sets apart from ``chosen`` that cannot change its
    answers (``pin_overflow`` without a pin) at its default."""
    same = rule.canonical()
    for line in rule.changed():
        key = line.split(" = ", 1)[0]
        if getattr(rule, key) == getattr(chosen, key):
            continue
        try:
            reset = replace(rule, **{key: getattr(Rule(), key)})
        except RuleError:  # a key the others need (remaining = "sizes" for a fraction)
            continue
        if reset.canonical() == same:
            rule = reset
    return rule


def _header(found: Inferred) -> list[str]:
    head = f"packcheck rule infer --seed {found.seed}"
    if not found.fits and isinstance(found.answer, Exception):
        return [
            f"{head}: NO rule can be checked: the packer gave no answer to a case.",
            f"The nearest rule, below, gives the packer's answer on {found.agreed:,} of "
            f"{found.asked:,} cases asked; the case (a longer --timeout may answer it):",
            f"  case:     {dumps(found.counterexample)}",
            f"  packer:   {_shown(found.answer)}",
            f"  the rule: {dumps(found.expected)}",
        ]
    if not found.fits:
        return [
            f"{head}: NO rule of the vocabulary gives every answer the packer gave.",
            f"The nearest rule, below, gives the packer's answer on {found.agreed:,} of "
            f"{found.asked:,} cases asked;",
            "on this one it does not (what the vocabulary cannot say):",
            f"  case:     {dumps(found.counterexample)}",
            f"  packer:   {_shown(found.answer)}",
            f"  the rule: {dumps(found.expected)}",
        ]
    lines = [
        f"{head}: gives every answer the packer gave on {found.asked:,} cases asked,",
        f"and passed verify --rule at --seed {found.seed} on {found.verified:,} cases.",
    ]
    same = [a for a in found.alternatives if a.equivalent]
    other = [a for a in found.alternatives if not a.equivalent]
    for alternative in other:
        keys = _keys(_bare(alternative.rule, found.rule), found.rule)
        lines.append(f"Also agrees on every case asked: {keys}")
        if alternative.case is None:
            lines.append("  no case found that tells it from this rule")
        else:
            lines.append(
                f"  told apart by a case the packer did not answer: {dumps(alternative.case)}"
            )
    spellings = [keys for keys in (_keys(a.rule, found.rule) for a in same) if keys]
    if spellings:
        lines.append("The same rule (the same answer to every case), also spelled:")
        lines += [f"  with {keys}" for keys in spellings[:_SPELLINGS]]
        if len(spellings) > _SPELLINGS:
            lines.append(f"  and {len(spellings) - _SPELLINGS} more")
    return lines


def _shown(answer: object) -> str:
    if isinstance(answer, Exception):
        return f"no answer: {answer}"
    try:
        return dumps(answer)
    except (TypeError, ValueError):
        return repr(answer)


def toml(found: Inferred) -> str:
    """The rule as TOML after its comment lines."""
    comments = [one_line(f"# {line}") for line in _header(found)]
    keys = found.rule.changed()
    if not keys:  # an empty table, said in words: a file of comments alone reads as nothing
        comments.append(_DEFAULT)
    return "".join(f"{line}\n" for line in [*comments, *keys])


def json_object(found: Inferred) -> dict[str, Any]:
    counter = None
    if found.counterexample is not None:
        counter = {
            "case": found.counterexample,
            "answer": _shown(found.answer) if isinstance(found.answer, Exception) else found.answer,
            "expected": found.expected,
        }
    return {
        "fits": found.fits,
        "rule": rule_table(found.rule),
        "toml": toml(found),
        "seed": found.seed,
        "asked": found.asked,
        "agreed": found.agreed,
        "verified": found.verified,
        "alternatives": [
            {"rule": rule_table(a.rule), "equivalent": a.equivalent, "case": a.case}
            for a in found.alternatives
        ],
        "counterexample": counter,
        "notes": list(found.notes),
    }
