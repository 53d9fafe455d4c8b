"""``packcheck rule show [FILE]``: a rule in full, each key with its value and meaning."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._rule.jsonio import dumps
from ..rules import show
from . import config
from ._options import error
from ._subcommand import Subcommand
from .rule import located


def run(args: argparse.Namespace) -> int:
    try:
        rule, source = located(args.file, Path.cwd())
    except config.ConfigError as exc:
        return error("rule show", str(exc))
    shown = show(rule, source)
    print(dumps(shown.json()) if args.format == "json" else shown.text())
    return 0


def _file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a rule file (its keys at the top level) or a pyproject.toml",
    )


#: ``register(commands, name)`` adds ``rule show`` to the ``packcheck rule`` subcommands.
register = Subcommand(
    "show a declared rule in full: each key, its value and its meaning",
    "Show the rule of FILE (a rule file, or a pyproject.toml's [tool.packcheck.rule]), "
    "or without FILE the rule verify uses: [tool.packcheck.rule] in the nearest "
    "pyproject.toml, else the default rule. Each key is shown with its value and what "
    "it means, and the report names where the rule came from. Exit 0, or 2 when the "
    "rule cannot be read.",
    run,
    "rule show",
    _file,
)
