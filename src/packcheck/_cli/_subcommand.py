"""A subcommand of ``packcheck`` whose options all come from the option table."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ._options import add_arguments


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    """A command that takes options only."""


@dataclass(frozen=True)
class Subcommand:
    """A subcommand: its line in ``packcheck --help`` (``summary``), its own
    ``description``, ``run`` (parsed arguments -> exit status), what ``arguments`` adds
    before the options, and its name in the option table (``options``; ``required``:
    its groups of which one must be given)."""

    summary: str
    description: str
    run: Callable[[argparse.Namespace], int]
    options: str
    arguments: Callable[[argparse.ArgumentParser], None] = _no_arguments
    required: Sequence[str] = ()

    def __call__(self, commands: Any, name: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = commands.add_parser(
            name, help=self.summary, description=self.description
        )
        parser.set_defaults(run=self.run)
        self.arguments(parser)
        add_arguments(parser, self.options, self.required)
        return parser
