"""``packcheck bench --cases FILE...`` and ``--rule``: the user's own cases, by their
rule, read as ``pack`` reads them and timed as one workload, ``recorded``."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._bench import Recorded
from .._inputs import READ_ERRORS, ReadError, expand, piece_lines, reason, whole
from .._packers import SetupError
from .._rule.declared import Rule
from .._rule.jsonio import show_text
from .._rule.model import MalformedCase, read_case
from .._rule.sources import SourceError, read_records
from . import config
from ._options import MAX_CASES


def declared_rule(args: argparse.Namespace) -> Rule | None:
    """The rule of ``--rule`` (``None`` without it, or for the default rule)."""
    if args.rule is None:
        return None
    try:
        rule = config.rule(args.rule, Path.cwd())
    except config.ConfigError as exc:
        raise SetupError(str(exc)) from None
    return None if rule is None or rule.is_default else rule


def recorded_cases(args: argparse.Namespace) -> tuple[Recorded | None, list[str]]:
    """The cases of ``--cases`` (``None`` without it) and notes on what was left out:
    lines that are not cases, and cases past :data:`MAX_CASES`."""
    if not args.cases:
        return None, []
    cases: list[object] = []
    skipped: list[str] = []
    full = False
    try:
        names = expand(args.cases)
    except ReadError as exc:
        raise SetupError(f"--cases {show_text(exc.name)}: {exc.why}") from None
    for name in names:
        piece = whole(name)
        try:
            with piece_lines(piece) as stream:
                for record in read_records(stream, max_line_bytes=args.max_line_bytes):
                    why = record.error if record.error is not None else _malformed(record.case)
                    if why is not None:
                        skipped.append(f"{show_text(piece.name)}: {record.where}: {why}")
                    elif len(cases) < MAX_CASES:
                        cases.append(record.case)
                    else:
                        full = True
                        break
        except (*READ_ERRORS, SourceError) as exc:
            raise SetupError(f"--cases {show_text(piece.name)}: {reason(exc)}") from None
        if full:
            break
    if not cases:
        raise SetupError(f"--cases {' '.join(args.cases)}: no case in it to time")
    notes = []
    if skipped:
        first = skipped[0]
        notes.append(f"--cases: {len(skipped):,} line(s) not a case, left out (the first: {first})")
    if full:
        notes.append(f"--cases: the first {MAX_CASES:,} cases timed; the rest left out")
    return Recorded(tuple(cases)), notes


def _malformed(case: object) -> str | None:
    """Why ``case`` is not a case at all (no packer answers it), else ``None``."""
    try:
        read_case(case)
    except MalformedCase as exc:
        return str(exc)
    return None
