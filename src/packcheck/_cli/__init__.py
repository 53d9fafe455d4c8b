"""The ``packcheck`` command: a thin dispatcher over one module per subcommand.

Each subcommand's module has ``register(subparsers, name)``, which adds its parser and
sets ``run`` (parsed arguments -> exit status).  A command's module is imported only
when its parser is needed: ``pack`` never imports ``verify``'s, which imports Hypothesis.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .. import __version__
from .._stop import Stopped, check, end_all, handling, pending
from ._options import add_options, error, one_line_errors

__all__ = ["add_options", "main"]

#: The subcommands, in the order ``packcheck --help`` lists them.
COMMANDS = ("pack", "fixtures", "verify", "diff", "rule", "bench", "audit")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered, or just ``only``."""
    parser = argparse.ArgumentParser(
        prog="packcheck",
        description="Check a context packer against the declared packing rule.",
        epilog="Exit status: 0 ok, 1 a check failed, 2 usage or input error, "
        "130 or 143 stopped by Ctrl-C or SIGTERM.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for name in COMMANDS if only is None else (only,):
        module = "gate" if name in ("verify", "diff") else name
        importlib.import_module(f".{module}", __package__).register(commands, name)
    for command in commands.choices.values():
        one_line_errors(command)
    return parser


def _open_closed_streams() -> None:
    """Point a standard stream the caller closed (``<&-``, ``>&-``) at the null device:
    Python starts with it ``None``, and ``print(file=None)`` writes to stdout."""
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            # Left open for the life of the process, as the standard streams are.
            setattr(sys, name, open(os.devnull, mode, encoding="utf-8"))  # noqa: SIM115


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``packcheck`` with ``argv`` (default ``sys.argv[1:]``); the exit status."""
    _open_closed_streams()
    argv = sys.argv[1:] if argv is None else list(argv)
    # A command named first needs only its own parser; anything else (no command,
    # --help, --version, a typo) gets the whole one, so every command is listed.
    only = argv[0] if argv and argv[0] in COMMANDS else None
    args = None  # until parsed: a signal may come while the command's modules load
    command = f"packcheck {only}" if only else "packcheck"
    if only == "rule" and len(argv) > 1 and not argv[1].startswith("-"):
        command += f" {argv[1]}"  # a subcommand of its own: `packcheck rule diff`
    with handling():
        try:
            args, unknown = build_parser(only).parse_known_args(argv)
            if unknown:
                args.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
            status: int = args.run(args)
            check()  # a signal that something caught on its way
        except BaseException as exc:
            stop = pending(exc)
            if stop is not None:
                return _stopped(stop, command)
            if isinstance(exc, KeyboardInterrupt):
                print("packcheck: interrupted", file=sys.stderr)
                return 130
            if isinstance(exc, MemoryError):
                # Its frames are gone by now, and what they held: room for one line.
                why = "out of memory: the input needs more memory than this process may have"
                return error(command.removeprefix("packcheck").strip(), why)
            if not isinstance(exc, BrokenPipeError):
                raise
            # The reader went away (``| head``): stdout to /dev/null, so the final flush
            # cannot fail again; a check that already failed keeps its status.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return int(getattr(args, "status_if_cut_off", 0))
        finally:
            end_all()  # a packer's process that no clean-up reached
    return status


def _stopped(stop: Stopped, command: str) -> int:
    """Say, on one line, that ``command`` was stopped, how to repeat it and where the
    failure found so far was saved (with ``--save-failures``); the exit status."""
    words = [f"{command}: stopped by {stop}"]
    if stop.rerun is not None:
        words.append(f"to repeat it: {stop.rerun}")
    found, directory = stop.found, stop.save
    if found is not None and directory is not None and not found.origin.startswith("fixture"):
        from .._gate.fixtures import save_fixture

        try:
            words.append(
                f"the failure found so far saved to {save_fixture(found.fixture(), directory)}"
            )
        except OSError as exc:
            words.append(f"the failure found so far not saved: {exc.strerror or exc}")
    print("; ".join(words), file=sys.stderr, flush=True)
    return stop.status
