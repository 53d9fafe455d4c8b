"""``packcheck rule``: the commands about declared rules, one module each.

:data:`SUBCOMMANDS` is the table of them: each module has ``add_parser(subparsers)``,
which adds its parser and sets ``run``.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._options import one_line_errors

__all__ = ["SUBCOMMANDS", "register"]

#: Each ``packcheck rule`` subcommand and the module that holds it, in --help's order.
SUBCOMMANDS = {"infer": "rule_infer"}


def register(commands: Any, name: str) -> None:
    """Add ``rule`` and its subcommands to the ``packcheck`` subcommands."""
    p = commands.add_parser(
        name,
        help="work with declared rules: infer the rule a packer follows",
        description="Commands about declared rules (docs/rules.md).",
    )
    subcommands = p.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for module in SUBCOMMANDS.values():
        parser = importlib.import_module(f".{module}", __package__).add_parser(subcommands)
        # An unknown option or a bad value is reported by the subcommand's own parser.
        parser.set_defaults(command_parser=parser)
        one_line_errors(parser)
