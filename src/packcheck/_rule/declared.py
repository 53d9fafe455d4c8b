"""A declared rule: the packing rule a packer states it follows, as data.

Every key is optional, its default the seed's rule.  A rule is validated when built: a
bad value raises :class:`RuleError` at the call site, one line naming the key.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any, Literal, NamedTuple, get_args

__all__ = ["Rule", "RuleError", "RuleFixture"]

Order = Literal["given", "reversed", "middle-out"]
Fit = Literal["le", "lt"]
OnMisfit = Literal["skip", "stop", "overshoot"]
Pin = Literal["none", "first", "last", "required"]
PinOverflow = Literal["allow", "refuse"]
Dedup = Literal["none", "first", "last", "kept"]
Output = Literal["input", "scan"]
Remaining = Literal["charged", "sizes"]

#: A charge: a whole number of units (``int``) or an exact fraction of one.
Charge = int | Fraction

_RATIO = re.compile(r"(0|[1-9][0-9]*)/([1-9][0-9]*)")


class RuleError(ValueError):
    """A bad rule key or rule file; one line naming the file, the key or fixture, and why."""

    def __init__(self, where: str, why: str, *, file: str | None = None) -> None:
        super().__init__(": ".join(part for part in (file, where, why) if part))
        self.where = where
        self.why = why
        self.file = file


class RuleFixture(NamedTuple):
    """A rule file's fixture (a plain tuple: the gate's fixture type is a layer above)."""

    id: str
    input: Any
    expected: Any


def _shown(value: object) -> str:
    return f"{value!r} ({type(value).__name__})"


def _charge(key: str, value: object) -> Charge:
    """An ``int``, ``Fraction`` or ``"p/q"`` ``>= 0``, exactly; a whole fraction as an ``int``."""
    if isinstance(value, str):
        match = _RATIO.fullmatch(value)
        if match is None:
            said = f'expected "p/q" with integers p >= 0 and q > 0, got {value!r}'
            if value.isdigit() and value.isascii():  # a whole number, quoted: strict all the same
                said += f': write {int(value)} without quotes, or "{int(value)}/1"'
            raise RuleError(key, said)
        value = Fraction(int(match[1]), int(match[2]))
    elif isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise RuleError(key, f'expected an integer >= 0 or "p/q", got {_shown(value)}')
    if value < 0:
        raise RuleError(key, f"expected a value >= 0, got {value}")
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else value
    return int(value)


def _count(key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(key, f"expected an integer >= 0, got {_shown(value)}")
    if value < 0:
        raise RuleError(key, f"expected an integer >= 0, got {value}")
    return int(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """A declared packing rule; ``Rule()`` is the seed's rule (keys: docs/rules.md).
    ``fixtures`` (checked when built) is not a key and no part of equality."""

    name: str = ""
    order: Order = "given"
    fit: Fit = "le"
    on_misfit: OnMisfit = "skip"
    per_item: Charge = 0
    separator: Charge = 0
    reserve: Charge = 0
    pin: Pin = "none"
    pin_overflow: PinOverflow = "allow"
    dedup: Dedup = "none"
    max_count: int = 0
    output: Output = "input"
    remaining: Remaining = "charged"
    refuse_budget_below: int = 0
    refuse_empty: bool = False
    fixtures: tuple[RuleFixture, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise RuleError("name", f"expected a string, got {_shown(self.name)}")
        for key, choices in CHOICES.items():
            value = getattr(self, key)
            if not isinstance(value, str) or value not in choices:
                listed = ", ".join(f'"{choice}"' for choice in choices)
                raise RuleError(key, f"expected one of {listed}, got {_shown(value)}")
        for key in ("per_item", "separator", "reserve"):
            object.__setattr__(self, key, _charge(key, getattr(self, key)))
        for key in ("max_count", "refuse_budget_below"):
            object.__setattr__(self, key, _count(key, getattr(self, key)))
        if not isinstance(self.refuse_empty, bool):
            raise RuleError(
                "refuse_empty", f"expected true or false, got {_shown(self.refuse_empty)}"
            )
        if self.remaining == "charged":
            for key in ("per_item", "separator", "reserve"):
                if isinstance(getattr(self, key), Fraction):
                    raise RuleError(
                        key,
                        f'fractional charge {getattr(self, key)} needs remaining = "sizes"'
                        " (answers stay integers)",
                    )
        object.__setattr__(self, "fixtures", _fixtures(self))

    @property
    def is_default(self) -> bool:
        """Whether every key but ``name`` has its default: the seed's rule."""
        return not self.changed()

    def changed(self) -> list[str]:
        """The keys, ``name`` aside, that differ from the default, as ``key = value``."""
        return [
            f"{key} = {toml_value(getattr(self, key))}"
            for key in RULE_KEYS
            if getattr(self, key) != DEFAULTS[key]
        ]

    def describe(self) -> str | None:
        """The name and the changed keys, for reports; ``None`` for the seed's rule."""
        changed = self.changed()
        if not changed:
            return None
        keys = ", ".join(changed)
        return f"{self.name} ({keys})" if self.name else keys

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Rule:
        """The rule of a rule file or a pyproject.toml's ``[tool.packcheck.rule]``, with
        its fixtures; :class:`RuleError` naming the file, or :class:`OSError`."""
        from .rulefile import load

        return load(path)

    def canonical(self) -> Rule:
        """This rule without name, fixtures, or keys that cannot change an answer under
        the others (``{max_count = 1, separator = 5}`` is ``{max_count = 1}``)."""
        from .canonical import canonical

        return canonical(self)

    def keys(self) -> dict[str, Any]:
        """Every key with its value (``name`` included, ``fixtures`` left out)."""
        return {key: getattr(self, key) for key in ("name", *RULE_KEYS)}


def _fixtures(rule: Rule) -> tuple[RuleFixture, ...]:
    """``rule.fixtures`` as checked :class:`RuleFixture` tuples, else :class:`RuleError`."""
    if not rule.fixtures:
        return ()
    # The interpreter reads rules: imported here, where a rule exists already.
    from .rulefile import check_fixture

    fixtures: list[RuleFixture] = []
    for index, item in enumerate(rule.fixtures):
        if not isinstance(item, tuple) or len(item) != 3 or not isinstance(item[0], str):
            why = f"expected an (id, input, expected) tuple with a string id, got {_shown(item)}"
            raise RuleError(f"fixtures[{index}]", why)
        fixture = RuleFixture(*item)
        check_fixture(rule, fixture)
        fixtures.append(fixture)
    return tuple(fixtures)


def json_value(value: object) -> object:
    """A key's value as JSON holds it: a fraction as ``"p/q"``."""
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    return value


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Fraction):
        return f'"{value.numerator}/{value.denominator}"'
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


_LITERALS: dict[str, Any] = {
    "order": Order,
    "fit": Fit,
    "on_misfit": OnMisfit,
    "pin": Pin,
    "pin_overflow": PinOverflow,
    "dedup": Dedup,
    "output": Output,
    "remaining": Remaining,
}
CHOICES: dict[str, tuple[str, ...]] = {key: get_args(kind) for key, kind in _LITERALS.items()}
#: The rule keys in table order, ``name`` aside.
RULE_KEYS: tuple[str, ...] = tuple(
    f.name for f in fields(Rule) if f.name not in {"name", "fixtures"}
)
DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Rule)}
#: Every key a rule table may hold.
KEYS: frozenset[str] = frozenset(("name", *RULE_KEYS))
