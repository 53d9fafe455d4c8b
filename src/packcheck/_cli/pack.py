"""``packcheck pack``: a case in, the declared output (or its trace, or a run record) out."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._partition.trace import trace
from .._rule.jsonio import write_json
from .._rule.sources import SourceError, read_records
from ..audit import record_step
from ._common import answer, engine_option, flushing, opened, problem, reason, writable
from .explain import explain_lines

__all__ = ["register"]


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
    p.set_defaults(run=run_pack)


def run_pack(args: argparse.Namespace) -> int:
    """Answer every case of ``args.file``; 2 if any was malformed or the file unreadable."""
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
