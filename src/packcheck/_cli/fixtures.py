"""``packcheck fixtures``: check fixture files against their expected outputs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._rule.jsonio import dumps, same_json
from .._rule.sources import Record, SourceError, read_records
from ..audit._read import opened, reason
from ._common import (
    answer,
    engine_option,
    engine_ready,
    line_limit_option,
    problem,
    writable,
)
from ._options import add_command, cut_off


def register(commands: Any, name: str) -> None:
    """Add ``fixtures`` to the ``packcheck`` subcommands."""
    f = add_command(
        commands,
        name,
        "check fixture files against their expected outputs",
        """Check every fixture in each FILE (a JSON array of {id, input, expected} or the
        seed's CSV table). Exit 1 and print the case, the expected and the actual output
        on a mismatch; exit 2 when a file or fixture cannot be read.""",
        run_fixtures,
    )
    f.add_argument("files", nargs="+", metavar="FILE")
    f.add_argument(
        "--rule",
        metavar="FILE",
        help="the declared rule in use: a rule file, or a pyproject.toml's "
        "[tool.packcheck.rule] (default: the nearest pyproject.toml's table)",
    )
    engine_option(f)
    line_limit_option(f)


def _matches(expected: Any, actual: dict[str, Any]) -> bool:
    # An expected input error matches any input error: details are prose.
    if isinstance(expected, dict) and expected.get("error") == "input":
        return actual.get("error") == "input"
    return same_json(expected, actual)


def run_fixtures(args: argparse.Namespace) -> int:
    """Check every fixture; 1 on a mismatch, 2 on an unreadable file or fixture."""
    if not engine_ready(args.engine):
        return 2
    checked = failed = 0
    broken = False
    for name in args.files:
        try:
            with opened(name) as stream:
                records = read_records(
                    stream,
                    csv_hint=name.lower().endswith(".csv"),
                    max_line_bytes=args.max_line_bytes,
                )
                for record in records:
                    if record.error is None and not record.has_expected:
                        record = Record(record.where, error="fixture has no 'expected'")
                    if record.error is not None:
                        broken = True
                        problem(name, f"{record.where}: {record.error}")
                        continue
                    actual, _ = answer(record, args.engine)
                    checked += 1
                    if not _matches(record.expected, actual):
                        failed += 1
                        cut_off(args, 1)
                        print(writable(f"FAIL {name}: {record.where}", sys.stdout))
                        print(f"  input:    {dumps(record.case)}")
                        print(f"  expected: {dumps(record.expected)}")
                        print(f"  actual:   {dumps(actual)}")
        except BrokenPipeError:
            raise
        except (OSError, SourceError) as exc:
            broken = True
            problem(name, reason(exc))
    noun = "fixture" if checked == 1 else "fixtures"
    print(f"{checked - failed} of {checked} {noun} passed ({args.engine} engine)")
    return 2 if broken else 1 if failed else 0
