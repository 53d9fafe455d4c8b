"""``packcheck rule``: the commands that handle a declared rule itself, each in a
module ``rule_<name>``, and what they share: finding the rule in use and its source."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from .._rule.declared import Rule
from . import config
from ._options import one_line_errors

#: The subcommands of ``packcheck rule``, in the order its ``--help`` lists them.
SUBCOMMANDS = ("show", "diff", "infer")

#: Where a rule comes from when neither a file nor a table names one.
DEFAULT_SOURCE = "the default rule (no [tool.packcheck.rule] in a pyproject.toml here or above)"


def register(commands: Any, name: str) -> None:
    parser = commands.add_parser(
        name,
        help="show a declared rule, compare two, or infer the one a packer follows",
        description="Handle a declared rule (docs/rules.md): show it key by key, or "
        "compare two rules on the smallest cases that tell them apart, or infer the rule a "
        "packer follows.",
    )
    subcommands = parser.add_subparsers(title="subcommands", metavar="SUBCOMMAND", required=True)
    for subcommand in SUBCOMMANDS:
        importlib.import_module(f".rule_{subcommand}", __package__).register(
            subcommands, subcommand
        )
    for command in subcommands.choices.values():
        one_line_errors(command)


def located(given: str | None, start: Path) -> tuple[Rule, str]:
    """The rule ``verify`` would use (``given``, else the nearest ``pyproject.toml``'s
    from ``start`` up, else the default), and where it came from."""
    rule = config.rule(given, start)
    if given is not None:
        assert rule is not None
        name = Path(given).name
        return rule, f"{given} [tool.packcheck.rule]" if name == "pyproject.toml" else given
    if rule is None:
        return Rule(), DEFAULT_SOURCE
    found = config.find(start)
    assert found is not None
    return rule, f"{config.shown(found[0])} [tool.packcheck.rule]"
