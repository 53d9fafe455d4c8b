"""Fixture files: cases with their expected declared output, and the shipped seed cases.

Every fixture belongs to a rule: the one its ``rule`` key records (the keys that
differ from the default, and the name), the default rule when it has none, or
``"OLD"``: its expected answer is what ``diff``'s OLD answered, not a rule's.  A rule
file's own fixtures (:class:`packcheck.Rule`'s ``fixtures``) belong to that rule.
A fixture's expected answer must be its own rule's (:func:`contradiction`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

from .._rule.declared import Rule, RuleError
from .._rule.interpret import interpret
from .._rule.jsonio import dumps, show
from .._rule.model import MalformedCase
from .._rule.rulefile import rule_from_table, same_answer
from .._rule.sources import SourceError, read_records

__all__ = [
    "OLD",
    "Fixture",
    "contradiction",
    "fixture_rule",
    "others_note",
    "read_fixtures",
    "recorded",
    "rule_fixtures",
    "same_rule",
    "save_fixture",
    "saved_fixtures",
    "seed_fixtures",
    "writable_directory",
]

#: A fixture's ``rule`` when its expected answer is ``diff``'s OLD's, not a rule's.
OLD = "OLD"
_DEFAULT = Rule()


@dataclass(frozen=True, slots=True)
class Fixture:
    """A case with its expected output; ``origin`` says where it was read.

    ``rule`` is the rule the expected output is the answer of (the default rule
    unless the fixture records another), or :data:`OLD`.  ``checked``: the run
    compares the packer's answer with ``expected``; when false (a fixture of another
    rule than the run's) only its input is run.
    """

    name: str | None
    case: Any
    expected: Any
    origin: str
    rule: Rule | str = field(default=_DEFAULT)
    checked: bool = True


def recorded(rule: Rule | str | None) -> dict[str, Any] | str | None:
    """What a saved fixture records as its ``rule``: the name and the keys that differ
    from the default (charges that are not whole as ``"p/q"``), :data:`OLD` as it is,
    ``None`` for the default rule (whatever its name) and for no rule."""
    if rule is None or isinstance(rule, str):
        return rule
    if rule.is_default:
        return None
    keys = rule.keys()
    shown: dict[str, Any] = {"name": rule.name} if rule.name else {}
    for key, value in keys.items():
        if key != "name" and value != getattr(_DEFAULT, key):
            fraction = isinstance(value, Fraction)
            shown[key] = f"{value.numerator}/{value.denominator}" if fraction else value
    return shown


def fixture_rule(value: Any, where: str) -> Rule | str:
    """The rule a fixture's ``rule`` value names; :class:`SourceError` if none."""
    if value is None:
        return _DEFAULT
    if value == OLD:
        return OLD
    if not isinstance(value, dict) or "fixtures" in value:
        why = 'expected an object of rule keys (docs/rules.md) or "OLD"'
        raise SourceError(f"{where}: rule: {why}, got {dumps(value)[:80]}")
    try:
        return rule_from_table(value, file=where, prefix="rule.")
    except RuleError as exc:
        raise SourceError(str(exc)) from None


def same_rule(one: Rule | str, other: Rule | str) -> bool:
    """Whether a fixture of ``one`` is a fixture of ``other``: the same keys, the name
    aside (or both :data:`OLD`)."""
    if isinstance(one, str) or isinstance(other, str):
        return one == other
    return one.changed() == other.changed()


def contradiction(fixture: Fixture) -> str | None:
    """One line naming ``fixture`` when its expected output is not its own rule's
    answer (the rule's interpreter decides); ``None`` when it is, or its rule is
    :data:`OLD` (a recorded answer, not a rule's)."""
    if isinstance(fixture.rule, str):
        return None
    expected = fixture.expected
    try:
        answer = interpret(fixture.rule, fixture.case).result
    except MalformedCase as exc:
        # An input error is any input error: its details are prose.
        if isinstance(expected, dict) and expected.get("error") == "input":
            return None
        why = f"its input is not a case ({exc})"
    else:
        if same_answer(answer, expected):
            return None
        why = f"expected {show(expected, 80)} but the rule gives {show(answer, 80)}"
    rule = fixture.rule.describe() or "the default rule"
    return f"{fixture.origin}: contradicts its rule ({rule}): {why}"


def others_note(count: int) -> tuple[str, ...]:
    """The report's note on the fixtures of another rule than the run's, if any."""
    if not count:
        return ()
    many = count != 1
    said = "fixtures of another rule were" if many else "fixture of another rule was"
    return (f"{count:,} {said} run for {'their' if many else 'its'} input only",)


def rule_fixtures(rule: Rule) -> list[Fixture]:
    """The fixtures a rule file carries, as the gate replays them: that rule's."""
    label = f"rule {rule.name!r}" if rule.name else "rule"
    return [
        Fixture(item.id, item.input, item.expected, f"fixture of the {label}: {item.id}", rule)
        for item in rule.fixtures
    ]


def _plain_numbers(value: Any) -> Any:
    """Fixture numbers as a Python ``json.loads`` gives them: floats where exact."""
    if isinstance(value, Decimal):
        return float(value) if float(value) == value else value
    if isinstance(value, dict):
        return {key: _plain_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain_numbers(item) for item in value]
    return value


def read_fixtures(path: Path, label: str | None = None) -> Iterator[Fixture]:
    """The fixtures of one file; raises :class:`OSError` or :class:`SourceError`.

    A record that cannot be read, has no ``expected``, expects an input error
    (malformed cases are outside the declared rule), names no rule or contradicts its
    own rule (:func:`contradiction`) raises :class:`SourceError`.
    """
    label = label or str(path)
    with path.open("rb") as stream:
        for record in read_records(stream):
            if record.error is not None or not record.has_expected:
                why = record.error or "fixture has no 'expected'"
                raise SourceError(f"{label}: {record.where}: {why}")
            where = f"fixture {label}: {record.where}"
            rule = fixture_rule(record.rule, where)
            fixture = Fixture(
                record.name, _plain_numbers(record.case), record.expected, where, rule
            )
            contradicted = contradiction(fixture)
            if contradicted is not None:
                raise SourceError(contradicted)
            yield fixture


def saved_fixtures(directory: Path) -> list[Fixture]:
    """The fixtures of ``directory/*.json`` (none when it is not a directory), by name;
    raises :class:`OSError` or :class:`SourceError`."""
    if not directory.is_dir():
        return []
    return [fixture for path in sorted(directory.glob("*.json")) for fixture in read_fixtures(path)]


def writable_directory(directory: Path) -> None:
    """Raise :class:`OSError` unless ``directory`` is, or can be made, a writable folder."""
    if directory.exists() and not directory.is_dir():
        raise OSError(f"save_failures {directory}: exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"save_failures {directory}: {exc.strerror or exc}") from None


def save_fixture(fixture: dict[str, Any], directory: Path) -> Path:
    """Write ``fixture`` (``{"id", "input", "expected"}``) as ``directory/ID.json``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{fixture['id']}.json"
    path.write_text(dumps([fixture]) + "\n", encoding="ascii")
    return path


def seed_fixtures() -> list[Fixture]:
    """The seed cases shipped inside the package (``packcheck/data/seed.json``)."""
    with resources.as_file(resources.files("packcheck") / "data" / "seed.json") as path:
        return list(read_fixtures(path, "seed.json"))
