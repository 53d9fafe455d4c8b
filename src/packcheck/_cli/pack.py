"""``packcheck pack``: a case in, the declared output (or its trace, or a run record) out."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._load import SetupError, load
from .._packers import CallablePacker, CommandPacker, Packer, PackerFault
from .._partition.facts import without_partition
from .._partition.trace import trace
from .._rule.jsonio import dumps, write_json
from .._rule.sources import SourceError, read_records
from ..audit import record_step
from ._common import (
    answer,
    engine_option,
    engine_ready,
    flushing,
    opened,
    problem,
    reason,
    writable,
)
from .explain import explain_lines

__all__ = ["register"]

# Seconds a command packer gets per case (as verify gives it).
_COMMAND_TIMEOUT = 10.0


def register(commands: Any) -> None:
    """Add ``pack`` to the ``packcheck`` subcommands."""
    p = commands.add_parser(
        "pack",
        help="print the declared output of each case",
        description=(
            "Print the declared output of each case as one compact JSON line, in input "
            "order. FILE holds one JSON case, JSON Lines (one case per line), a JSON "
            "array of {id, input, expected} fixtures, or the seed's CSV table; '-' or "
            "no FILE reads standard input. A malformed case gets an "
            '{"error":"input","detail":...} line, the rest are still answered, and the '
            "exit status is 2."
        ),
    )
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="input (default: -)")
    engine_option(p)
    shown = p.add_mutually_exclusive_group()
    shown.add_argument(
        "--explain",
        action="store_true",
        help="print a readable trace per case: steps, partition, why each ID is missing",
    )
    shown.add_argument(
        "--trace",
        action="store_true",
        help="print the trace per case as one JSON line (result, steps, partition, reasons)",
    )
    shown.add_argument(
        "--record",
        action="store_true",
        help="print each case as a run record (the case plus its partition and result), "
        "the JSON Lines `packcheck audit` reads",
    )
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--packer",
        metavar="MODULE:FUNCTION",
        help="with --record: record this packer's answers and the partitions it captures "
        "(a case -> answer function, or PATH.py:FUNCTION), not packcheck's",
    )
    who.add_argument(
        "--packer-cmd",
        metavar="COMMAND",
        help="with --record: the same for a packer speaking JSON Lines",
    )
    p.set_defaults(run=run_pack)


def run_pack(args: argparse.Namespace) -> int:
    """Answer every case of ``args.file``; 2 if any was malformed or the file unreadable
    (or the packer cannot be loaded), 1 if the packer recorded failed on a case."""
    if (args.packer or args.packer_cmd) and not args.record:
        print(
            "packcheck: --packer and --packer-cmd record a packer's run: they need --record",
            file=sys.stderr,
        )
        return 2
    if not engine_ready(args.engine):
        return 2
    packer = None
    try:
        packer = _packer(args)
        return _pack(args, packer)
    except SetupError as exc:  # cannot be loaded, or a command that never answered
        print(f"packcheck: {exc}", file=sys.stderr)
        return 2
    finally:
        if packer is not None:
            packer.close()


def _packer(args: argparse.Namespace) -> Packer | None:
    if args.packer_cmd is not None:
        return CommandPacker(args.packer_cmd, _COMMAND_TIMEOUT)
    return None if args.packer is None else CallablePacker(load(args.packer))


def _recorded(case: dict[str, Any], packer: Packer) -> dict[str, Any]:
    """``case`` as a run record of ``packer``: the partition it captured and its answer
    without it; :class:`PackerFault` if it failed on the case.

    An answer without a partition is recorded without one (the audit names it), but
    for an invalid unit (``{"error": "size"}``: no scan ran), which records the empty
    partition (docs/rule.md, "A packer that captures its partition").
    """
    answer = packer.answer(case)
    captured: dict[str, Any] = {}
    if isinstance(answer, dict) and "partition" in answer:
        captured["partition"] = answer["partition"]
    elif answer == {"error": "size"}:
        captured["partition"] = {"packed": [], "available": [], "dropped": []}
    return {**case, **captured, "result": without_partition(answer)}


def _pack(args: argparse.Namespace, packer: Packer | None) -> int:
    name = "<stdin>" if args.file == "-" else args.file
    out = sys.stdout
    status = 0
    try:
        with opened(args.file) as stream:
            source = flushing(stream, out.flush)
            for record in read_records(source, csv_hint=name.lower().endswith(".csv")):
                result, trouble = answer(record, args.engine)
                if trouble is not None:
                    status = 2
                    problem(name, trouble)
                    out.write(write_json(result) + "\n")
                elif args.explain:
                    for line in explain_lines(trace(record.case, engine=args.engine), record.where):
                        out.write(writable(line, out) + "\n")
                elif args.trace:
                    out.write(write_json(trace(record.case, engine=args.engine).to_json()) + "\n")
                elif packer is not None:
                    try:
                        out.write(dumps(_recorded(record.case, packer)) + "\n")
                    except PackerFault as exc:
                        status = max(status, 1)
                        problem(name, f"{record.where}: the packer failed: {exc}")
                        out.write(dumps({"error": "packer", "detail": str(exc)}) + "\n")
                elif args.record:
                    out.write(write_json(record_step(record.case, engine=args.engine)) + "\n")
                else:
                    out.write(write_json(result) + "\n")
    except BrokenPipeError:
        raise  # the reader went away: not a problem with the input (see _cli.main)
    except (OSError, SourceError) as exc:
        problem(name, reason(exc))
        return 2
    return status
