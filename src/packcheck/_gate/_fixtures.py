"""Fixture files: cases with their expected output, and the shipped seed cases.

Each fixture belongs to a rule (:mod:`packcheck._rule.fixture_rule`): the one its
``rule`` key records, else the default; a rule file's own fixtures
(:class:`packcheck.Rule`'s ``fixtures``) belong to that rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

from .._rule.declared import Rule
from .._rule.fixture_rule import contradiction, fixture_rule
from .._rule.jsonio import dumps
from .._rule.sources import SourceError, read_records

__all__ = [
    "Fixture",
    "read_fixtures",
    "rule_fixtures",
    "save_fixture",
    "saved_fixtures",
    "seed_fixtures",
    "writable_directory",
]

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
            case = _plain_numbers(record.case)
            contradicted = contradiction(rule, case, record.expected, where)
            if contradicted is not None:
                raise SourceError(contradicted)
            yield Fixture(record.name, case, record.expected, where, rule)


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
