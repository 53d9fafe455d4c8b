"""``packcheck pack``: a case in, the declared output (or its trace, or a run record) out;
in one process, or on a Dask cluster in pieces, the output the same."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from contextlib import closing, redirect_stdout
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain
from pathlib import Path
from typing import IO, Any

from .._engines.choice import Engine
from .._inputs import PIECE_BYTES, READ_ERRORS, Piece, Runner, expand, piece_lines, reason, whole
from .._inputs import pieces as all_pieces
from .._packers import CallablePacker, CommandPacker, Packer, PackerFault, SetupError, load
from .._partition.facts import without_partition
from .._partition.trace import trace
from .._partition.trace_text import trace_json
from .._rule.declared import Rule
from .._rule.interpret import REFUSED
from .._rule.jsonio import JSONError, dumps, loads, show_text, write_json
from .._rule.model import MalformedCase
from .._rule.recorded import RULE_KEY, recorded, refuses
from .._rule.sources import Record, SourceError, read_lines, read_records
from ..audit import ClusterError, ReadError, record_step
from . import config
from ._common import answer, cluster_runner, engine_ready, files_argument, flushing, problem
from ._gather import Gathered
from ._options import error, note, writable
from ._subcommand import Subcommand
from ._values import DEFAULT_TIMEOUT
from .explain import explain_lines

COMMAND = "pack"


def run_pack(args: argparse.Namespace) -> int:
    """Answer every case of ``args.files``; 2 if any was malformed or a file unreadable
    (or the packer or cluster could not be had), 1 if the packer recorded failed."""
    if (args.packer or args.packer_cmd) and not args.record:
        return error(
            COMMAND,
            "--packer and --packer-cmd need --record (they record that packer's run, for "
            "packcheck audit); drop them to pack, --explain or --trace with packcheck's "
            "own engines",
        )
    if args.explain and args.format == "json":
        return error(
            COMMAND, "--explain prints a readable trace, not JSON: --trace writes it as JSON"
        )
    if (args.packer or args.packer_cmd) and (args.workers or args.scheduler):
        return error(COMMAND, "--workers and --scheduler run packcheck's engines only")
    if not engine_ready(COMMAND, args.engine):
        return 2
    packer = None
    try:
        rule = config.rule(args.rule, Path.cwd())
        if rule is not None and rule.is_default:
            rule = None
        names = expand(args.files)
        packer = _packer(args)
        how = _How(
            args.engine,
            args.explain,
            args.trace,
            args.record,
            len(names) > 1,
            args.max_line_bytes,
            rule,
        )
        with cluster_runner(args, names) as run:
            return _pack(names, how, packer, run)
    except (SetupError, ClusterError, config.ConfigError) as exc:
        return error(COMMAND, str(exc))  # cannot be loaded, never answered, or no rule
    except ReadError as exc:
        problem(COMMAND, exc.name, exc.why)
        return 2
    finally:
        if packer is not None:
            packer.close()


def _packer(args: argparse.Namespace) -> Packer | None:
    if args.packer_cmd is not None:
        return CommandPacker(args.packer_cmd, DEFAULT_TIMEOUT)
    return None if args.packer is None else CallablePacker(load(args.packer))


def _recorded(case: dict[str, Any], packer: Packer, rule: Rule | None) -> dict[str, Any]:
    """``case`` as a run record of ``packer``: the partition it captured and its answer
    without it; :class:`PackerFault` if it failed on the case.

    ``{"error": "size"}`` records the empty partition, a refusal every block
    ``dropped`` (docs/partition.md).  Under a ``rule`` other than the default the
    record names it, and a Python packer's ``ValueError`` refuses where the rule can.
    """
    try:
        # stdout carries the records alone: what a packer in this process prints goes
        # to stderr, as verify's does.
        with redirect_stdout(sys.stderr):
            answer = packer.answer(case)
    except PackerFault as exc:
        if not (refuses(rule) and isinstance(exc.__cause__, ValueError)):
            raise
        answer = dict(REFUSED)
    captured: dict[str, Any] = {}
    named = recorded(rule)
    if named is not None:
        captured[RULE_KEY] = named
    if isinstance(answer, dict) and "partition" in answer:
        captured["partition"] = answer["partition"]
    elif answer == {"error": "size"}:
        captured["partition"] = {"packed": [], "available": [], "dropped": []}
    elif answer == REFUSED:
        blocks = case.get("blocks")
        ids = [block["id"] for block in blocks] if isinstance(blocks, list) else []
        captured["partition"] = {"packed": [], "available": [], "dropped": ids}
    return {**case, **captured, "result": without_partition(answer)}


@dataclass(frozen=True, slots=True)
class _How:
    """What ``pack`` prints per case; ``several``: files, each case's place naming its own."""

    engine: Engine
    explain: bool
    trace: bool
    record: bool
    several: bool
    max_line_bytes: int
    rule: Rule | None = None


# Per case: its output (lines, in pieces), the problem to name on stderr first (or None),
# and the exit status it calls for.
_Answer = tuple[Iterable[str], str | None, int]


def _answers(records: Iterable[Record], how: _How, packer: Packer | None) -> Iterator[_Answer]:
    # Under the default rule a trace or record packs the case itself, once.
    at_once = how.rule is None and packer is None and (how.trace or how.record)
    told = False
    for record in records:
        written = _written(record, how) if at_once and record.error is None else None
        if written is not None:
            yield written, None, 0
            continue
        result, trouble = answer(record, how.engine, how.rule)
        if trouble is not None and how.explain:  # headed as every case is
            yield (f"{record.where}:\n  result: {write_json(result)}\n",), trouble, 2
        elif trouble is not None:
            yield (write_json(result) + "\n",), trouble, 2
        elif how.explain:
            traced = trace(record.case, engine=how.engine, rule=how.rule)
            lines = explain_lines(traced, record.where)
            yield ("".join(line + "\n" for line in lines),), None, 0
        elif how.trace:
            # A case of millions of blocks: its trace is written as it is made.
            yield chain(trace_json(record.case, engine=how.engine, rule=how.rule), ("\n",)), None, 0
        elif packer is not None:
            try:
                step = _recorded(record.case, packer, how.rule)
            except PackerFault as exc:
                why = f"{record.where}: the packer failed: {exc}"
                yield (dumps({"error": "packer", "detail": str(exc)}) + "\n",), why, 1
                continue
            if "partition" not in step and not told:
                told = True  # once a run: every step of such a packer would say it
                note(COMMAND, f"{record.where}: {NO_PARTITION}")
            yield (dumps(step) + "\n",), None, 0
        elif how.record:
            step = record_step(record.case, engine=how.engine, rule=how.rule)
            yield (write_json(step) + "\n",), None, 0
        else:
            yield (write_json(result) + "\n",), None, 0


#: Said (once) of a packer whose answer holds no partition: its run cannot pass an audit.
NO_PARTITION = (
    "the packer's answer holds no partition, so neither does its record, and packcheck "
    "audit reports every such step as no-partition; a capturing packer returns its "
    'partition beside its answer (docs/partition.md, "What a capturing packer returns")'
)


def _written(record: Record, how: _How) -> Iterable[str] | None:
    """The trace or run record of ``record``'s case under the default rule (lines, in
    pieces), or ``None`` for a malformed case, which :func:`answer` then reports."""
    try:
        if how.trace:
            # A case of millions of blocks: its trace is written as it is made.
            pieces = trace_json(record.case, engine=how.engine)
            first = next(pieces)
            second = next(pieces, None)
            if second is None:  # one piece a case
                return (first + "\n",)
            return chain((first, second), pieces, ("\n",))
        return (write_json(record_step(record.case, engine=how.engine)) + "\n",)
    except MalformedCase:
        return None


def _records(piece: Piece, stream: IO[bytes], how: _How) -> Iterator[Record]:
    if piece.start:
        records = read_lines(stream, piece.first_line, how.max_line_bytes)
    else:
        records = read_records(
            stream, csv_hint=piece.name.lower().endswith(".csv"), max_line_bytes=how.max_line_bytes
        )
    if not how.several:
        return records
    name = show_text(piece.name)
    return (replace(record, where=f"{name}: {record.where}") for record in records)


def _splittable(first: bytes) -> bool:
    """Whether a file whose first line is ``first`` is JSON Lines whatever follows: that
    line is a case (an array could be the whole fixture file)."""
    try:
        value = loads(first.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except (UnicodeDecodeError, JSONError):
        return False
    return isinstance(value, dict)


def pack_task(piece: Piece, how: _How) -> tuple[list[_Answer], str | None]:
    """The answers to ``piece`` (on a worker), and why its reading stopped if it did."""
    found: list[_Answer] = []
    try:
        with piece_lines(piece) as stream:
            for text, trouble, status in _answers(_records(piece, stream, how), how, None):
                found.append((("".join(text),), trouble, status))
    except (*READ_ERRORS, SourceError) as exc:
        return found, reason(exc)
    return found, None


def _pack(names: list[str], how: _How, packer: Packer | None, run: Runner | None) -> int:
    # A trace or record is written in large pieces (docs/performance.md).
    out: IO[str] | Gathered = sys.stdout
    if (how.trace or how.record) and packer is None:
        out = Gathered(sys.stdout)
    try:
        status = 0
        if run is None:
            for name in names:
                piece = whole(name)
                try:
                    with piece_lines(piece) as stream:
                        source = flushing(stream, out.flush)
                        for one in _answers(_records(piece, source, how), how, packer):
                            status = max(status, _write(one, piece.name, how, out))
                except BrokenPipeError:
                    raise  # the reader went away: not a problem with the input (see _cli.main)
                except (*READ_ERRORS, SourceError) as exc:
                    out.flush()
                    problem(COMMAND, piece.name, reason(exc))
                    return 2
            fault = packer.leftover() if isinstance(packer, CommandPacker) else None
            if fault is not None:
                error(COMMAND, f"--packer-cmd: the packer {fault}")
                return 1
            return status
        pieces = all_pieces(names, run, PIECE_BYTES, _splittable)
        with closing(run(partial(pack_task, how=how), pieces)) as results:
            for piece, (found, stopped) in zip(pieces, results, strict=True):
                for one in found:
                    status = max(status, _write(one, piece.name, how, out))
                if stopped is not None:
                    out.flush()
                    problem(COMMAND, piece.name, stopped)
                    return 2
        return status
    finally:
        out.flush()


def _write(one: _Answer, name: str, how: _How, out: IO[str] | Gathered) -> int:
    text, trouble, status = one
    if trouble is not None:
        out.flush()  # what came before it first
    if trouble is not None and how.several:  # it names its file already
        error(COMMAND, trouble)
    elif trouble is not None:
        problem(COMMAND, name, trouble)
    for piece in text:
        out.write(piece if isinstance(out, Gathered) or not how.explain else writable(piece, out))
    return status


#: ``register(commands, name)`` adds ``pack`` to the ``packcheck`` subcommands.
register = Subcommand(
    "print the declared output of each case",
    """Print the declared output of each case as one compact JSON line, in input order.
    A FILE holds one JSON case, JSON Lines (one case per line), a JSON array of {id,
    input, expected} fixtures, or the seed's CSV table; '-' or no FILE reads standard
    input. A malformed case gets an {"error":"input","detail":...} line, the rest are
    still answered, and the exit status is 2.""",
    run_pack,
    COMMAND,
    partial(files_argument, how="answered in order"),
)
