"""``packcheck rule``: the commands that handle a declared rule itself.

Each subcommand of :data:`SUBCOMMANDS` lives in its own module, ``rule_<name>``, with
``register(subcommands, name)`` as the top-level commands have.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._options import one_line_errors

__all__ = ["SUBCOMMANDS", "register"]

#: The subcommands of ``packcheck rule``, in the order its ``--help`` lists them; each
#: is the module ``rule_<name>`` of this package.
SUBCOMMANDS = ("infer",)


def register(commands: Any, name: str) -> None:
    """Add ``packcheck rule`` and its subcommands."""
    parser = commands.add_parser(
        name,
        help="infer the declared rule a packer follows",
        description="Handle a declared rule (docs/rules.md): infer the one a packer follows.",
    )
    subcommands = parser.add_subparsers(title="subcommands", metavar="SUBCOMMAND", required=True)
    for subcommand in SUBCOMMANDS:
        importlib.import_module(f".rule_{subcommand}", __package__).register(
            subcommands, subcommand
        )
    for command in subcommands.choices.values():
        command.set_defaults(command_parser=command)
        one_line_errors(command)
