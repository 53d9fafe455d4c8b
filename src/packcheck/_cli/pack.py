"""``packcheck pack`` and ``packcheck fixtures``: answer cases, check fixture files."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from .._engines.choice import ENGINES, Engine
from .._engines.pack import pack
from .._partition.trace import trace
from .._rule.jsonio import dumps, same_json
from .._rule.model import MalformedCase
from .._rule.sources import Record, SourceError, read_records
from ..audit import record_step
from .explain import explain_lines

__all__ = ["answer", "register"]


def register(commands: Any) -> None:
    """Add ``pack`` and ``fixtures`` to the ``packcheck`` subcommands."""
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
    _engine_option(p)
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

    f = commands.add_parser(
        "fixtures",
        help="check fixture files against their expected outputs",
        description=(
            "Check every fixture in each FILE (a JSON array of {id, input, expected} or "
            "the seed's CSV table). Exit 1 and print the case, the expected and the "
            "actual output on a mismatch; exit 2 when a file or fixture cannot be read."
        ),
    )
    f.add_argument("files", nargs="+", metavar="FILE")
    _engine_option(f)
    f.set_defaults(run=run_fixtures)


def _engine_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="reference",
        help="packing algorithm; the answer is the same (default: reference)",
    )


@contextmanager
def _opened(name: str) -> Iterator[IO[bytes]]:
    if name == "-":
        yield sys.stdin.buffer
        return
    with open(name, "rb") as stream:
        yield stream


class _FlushingInput(io.RawIOBase):
    """The raw bytes of a file descriptor; ``flush`` runs before every read.

    A read from a pipe may wait for its writer, who may be waiting for the answers
    already written: flushing first means no answer sits in a buffer while the tool
    waits.  Reads are buffered chunks, so this costs one flush per chunk, not per case.
    """

    def __init__(self, fd: int, flush: Callable[[], None]) -> None:
        super().__init__()
        self._fd = fd
        self._flush = flush

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._flush()
        data = os.read(self._fd, len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _flushing(stream: IO[bytes], flush: Callable[[], None]) -> IO[bytes]:
    """``stream``, read so that ``flush`` runs before any read that could wait."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # an in-memory stream never waits
        return stream
    return io.BufferedReader(_FlushingInput(fd, flush), buffer_size=1 << 16)


def answer(record: Record, engine: Engine) -> tuple[dict[str, Any], str | None]:
    """The declared output for ``record``, or an input-error record and its message."""
    if record.error is None:
        try:
            return pack(record.case, engine=engine), None
        except MalformedCase as exc:
            detail = f"{record.where}: {exc}"
    else:
        detail = f"{record.where}: {record.error}"
    return {"error": "input", "detail": detail}, detail


def _writable(text: str, stream: IO[str]) -> str:
    """``text`` with what ``stream``'s encoding cannot write as backslash escapes.

    IDs and fixture names are shown as typed, but an ASCII terminal cannot show
    "café", and a file name may hold undecodable bytes (surrogate escapes).
    """
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def _problem(name: str, message: str) -> None:
    print(f"packcheck: {name}: {message}", file=sys.stderr)


def run_pack(args: argparse.Namespace) -> int:
    """Answer every case of ``args.file``; 2 if any was malformed or the file unreadable."""
    name = "<stdin>" if args.file == "-" else args.file
    out = sys.stdout
    status = 0
    try:
        with _opened(args.file) as stream:
            source = _flushing(stream, out.flush)
            for record in read_records(source, csv_hint=name.lower().endswith(".csv")):
                result, problem = answer(record, args.engine)
                if problem is not None:
                    status = 2
                    _problem(name, problem)
                    out.write(dumps(result) + "\n")
                elif args.explain:
                    for line in explain_lines(trace(record.case, engine=args.engine), record.where):
                        out.write(_writable(line, out) + "\n")
                elif args.trace:
                    out.write(dumps(trace(record.case, engine=args.engine).to_json()) + "\n")
                elif args.record:
                    out.write(dumps(record_step(record.case, engine=args.engine)) + "\n")
                else:
                    out.write(dumps(result) + "\n")
    except BrokenPipeError:
        raise  # the reader went away: not a problem with the input (see _cli.main)
    except (OSError, SourceError) as exc:
        _problem(name, _reason(exc))
        return 2
    return status


def _reason(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot read: {exc.strerror}"
    return str(exc)


def _matches(expected: Any, actual: dict[str, Any]) -> bool:
    # An expected input error matches any input error: details are prose.
    if isinstance(expected, dict) and expected.get("error") == "input":
        return actual.get("error") == "input"
    return same_json(expected, actual)


def run_fixtures(args: argparse.Namespace) -> int:
    """Check every fixture; 1 on a mismatch, 2 on an unreadable file or fixture."""
    checked = failed = 0
    broken = False
    for name in args.files:
        try:
            with _opened(name) as stream:
                for record in read_records(stream, csv_hint=name.lower().endswith(".csv")):
                    if record.error is None and not record.has_expected:
                        record = Record(record.where, error="fixture has no 'expected'")
                    if record.error is not None:
                        broken = True
                        _problem(name, f"{record.where}: {record.error}")
                        continue
                    actual, _ = answer(record, args.engine)
                    checked += 1
                    if not _matches(record.expected, actual):
                        failed += 1
                        args.status_if_cut_off = 1
                        print(_writable(f"FAIL {name}: {record.where}", sys.stdout))
                        print(f"  input:    {dumps(record.case)}")
                        print(f"  expected: {dumps(record.expected)}")
                        print(f"  actual:   {dumps(actual)}")
        except BrokenPipeError:
            raise
        except (OSError, SourceError) as exc:
            broken = True
            _problem(name, _reason(exc))
    print(f"{checked - failed} of {checked} fixtures passed ({args.engine} engine)")
    return 2 if broken else 1 if failed else 0
