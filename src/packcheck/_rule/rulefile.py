"""Reading a declared rule from TOML: a rule file (keys at the top, ``[[fixtures]]``), or
a pyproject.toml's ``[tool.packcheck.rule]``."""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .declared import KEYS, Rule, RuleError, RuleFixture
from .interpret import interpret
from .jsonio import show
from .model import MalformedCase

__all__ = ["check_fixture", "load", "rule_from_table", "same_answer"]

_TABLE = ("tool", "packcheck", "rule")


def load(path: str | os.PathLike[str]) -> Rule:
    """The rule (and its fixtures) of ``path``; :class:`OSError` when the file cannot be
    read, :class:`RuleError` naming the file and key for anything else."""
    file = str(path)
    data = Path(path).read_bytes()
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RuleError(
            "", f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=file
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise RuleError("", f"not TOML: {exc}", file=file) from None
    if Path(path).name != "pyproject.toml":
        return rule_from_table(document, file=file)
    table: Any = document
    for part in _TABLE:
        table = table.get(part) if isinstance(table, dict) else None
    if not isinstance(table, dict):
        raise RuleError("", "no [tool.packcheck.rule] table", file=file)
    return rule_from_table(table, file=file, prefix="tool.packcheck.rule.")


def rule_from_table(table: Mapping[str, Any], *, file: str, prefix: str = "") -> Rule:
    """The rule of one TOML table, its fixtures checked; ``prefix`` spells its keys."""
    allowed = sorted([*KEYS, "fixtures"])
    for key in table:
        if not prefix and key == "tool":
            raise RuleError(
                key,
                "a rule file holds its keys at the top level, without the "
                "[tool.packcheck.rule] heading of pyproject.toml",
                file=file,
            )
        if key not in allowed:
            known = "the keys: " + ", ".join(allowed)
            near = difflib.get_close_matches(key, allowed, n=1)
            hint = f"did you mean {near[0]!r}? {known}" if near else known
            raise RuleError(f"{prefix}{key}", f"unknown rule key ({hint})", file=file)
    keys = {key: value for key, value in table.items() if key != "fixtures"}
    try:
        Rule(**keys)
    except RuleError as exc:
        raise RuleError(f"{prefix}{exc.where}", exc.why, file=file) from None
    fixtures = _fixtures(table.get("fixtures", []), file=file, where=f"{prefix}fixtures")
    try:
        return Rule(**keys, fixtures=tuple(fixtures))
    except RuleError as exc:  # a fixture the rule contradicts, named by its id
        raise RuleError(exc.where, exc.why, file=file) from None


def _fixtures(value: object, *, file: str, where: str) -> list[RuleFixture]:
    if not isinstance(value, list):
        raise RuleError(where, "expected an array of tables ([[fixtures]])", file=file)
    fixtures: list[RuleFixture] = []
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise RuleError(f"{where}[{index}]", "expected a table", file=file)
        fixture_id = item.get("id")
        if not isinstance(fixture_id, str):
            raise RuleError(f"{where}[{index}].id", "expected a string", file=file)
        for key in ("input", "expected"):
            if key not in item:
                raise RuleError(f"fixture {fixture_id!r}", f"has no {key!r}", file=file)
        if any(fixture.id == fixture_id for fixture in fixtures):
            raise RuleError(f"fixture {fixture_id!r}", "two fixtures have this id", file=file)
        fixtures.append(RuleFixture(fixture_id, item["input"], item["expected"]))
    return fixtures


def check_fixture(rule: Rule, fixture: RuleFixture) -> None:
    """:class:`RuleError` naming the fixture unless the rule answers ``fixture.expected``."""
    where = f"fixture {fixture.id!r}"
    try:
        answer = interpret(rule, fixture.input).result
    except MalformedCase as exc:
        raise RuleError(where, f"input is not a case ({exc})") from None
    if not same_answer(answer, fixture.expected):
        raise RuleError(
            where, f"expected {show(fixture.expected, 80)} but the rule gives {show(answer, 80)}"
        )


def same_answer(answer: Mapping[str, Any], expected: object) -> bool:
    """``expected`` is ``answer``: equal as JSON, with an integer ``remaining`` (a TOML
    float ``3.0`` is not the integer ``3``)."""
    return (
        isinstance(expected, dict)
        and expected == answer
        and type(expected.get("remaining", 0)) is int
    )
