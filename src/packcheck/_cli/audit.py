"""``packcheck audit``: check every model step of a recorded run (JSON Lines), in one
process or on a Dask cluster."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from functools import partial
from pathlib import Path

from .._inputs import expand, whole
from .._rule.jsonio import dumps, one_line, show_text
from ..audit import Audit, ClusterError, ReadError, RuleMismatch, RunSummary, Violation, audited
from . import config
from ._common import (
    cluster_runner,
    files_argument,
)
from ._options import cut_off, error, writable
from ._subcommand import Subcommand

#: Lost IDs listed in the text summary (``--json`` lists every one tallied).
LOST_SHOWN = 10


def run_audit(args: argparse.Namespace) -> int:
    """Audit ``args.files`` as one run; 0 clean, 1 a violation (or strict warning), 2 bad
    input (or a cluster that cannot be had)."""
    try:
        rule = config.rule(args.rule, Path.cwd())
        names = expand(args.files)
    except (ReadError, config.ConfigError) as exc:
        return _failed(str(exc))
    name = show_text(whole(names[0]).name) if len(names) == 1 else f"{len(names)} files"
    # Without a rule given, the run's own: the rule its records name.
    audit = Audit(rule=rule, rule_from_run=rule is None)
    try:
        with (
            _collector_paused(),
            cluster_runner(args, names) as run,
            closing(
                audited(
                    names,
                    audit,
                    run,
                    max_line_bytes=args.max_line_bytes,
                    unreadable=partial(_unreadable, audit, args),
                )
            ) as found,
        ):
            for violation in found:
                _write(violation, args)
    except BrokenPipeError:
        raise  # the reader went away (see _cli.main)
    except RuleMismatch as exc:
        if rule is None:  # the rule its first record names
            return _failed(f"{exc} (a run is audited under one rule: its first record's)")
        return _failed(f"{exc} (audit a run under the rule it was recorded under: --rule FILE)")
    except (ReadError, ClusterError) as exc:
        return _failed(str(exc))
    summary = audit.summary()
    if not summary.steps and not summary.malformed:
        if summary.unreadable:  # said where it came: nothing else to report
            return 2
        empty = "it is empty" if len(names) == 1 else "they are empty"
        return _failed(f"{name}: no steps in input ({empty})")
    out = sys.stdout
    if args.format == "json":
        out.write(dumps(summary.to_json()) + "\n")
    else:
        for text in _summary_lines(summary, name):
            out.write(writable(one_line(text), out) + "\n")
    if summary.warning:
        print(f"packcheck audit: warning: {summary.warning}", file=sys.stderr)
    return summary.status(strict=args.strict)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while the run is audited: an audit makes no cycles
    (what it drops is freed at once), and a chunk's records, held while they are
    checked, would have the collector walk them again and again (a fifth of the CPU
    of a 100,000-step audit)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _unreadable(audit: Audit, args: argparse.Namespace, error: ReadError) -> None:
    """A file that cannot be read, or is cut short, said where it comes (on stderr,
    after the violations before it); the audit goes on with the next file."""
    cut_off(args, 2)
    sys.stdout.flush()
    _failed(str(error))
    audit.unreadable_file(error)


def _failed(why: str) -> int:
    return error("audit", why)


def _write(violation: Violation, args: argparse.Namespace) -> None:
    """One violation on stdout, a malformed line's as every other check's (once: not
    on stderr too; its exit status, 2, is the summary's)."""
    out = sys.stdout
    # The worst status so far: a violation after a malformed line keeps its 2.
    status = 2 if violation.check == "malformed" else 1
    cut_off(args, status)
    # A file name (several files) or a text from data is escaped at the edge: one line.
    if args.format == "json":
        text = dumps(violation.to_json())
    else:
        text = writable(one_line(str(violation)), out)
    out.write(text + "\n")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _summary_lines(summary: RunSummary, name: str) -> list[str]:
    counts = (
        f"{_count(summary.steps, 'step')}, {summary.correct} with a correct partition, "
        f"{_count(summary.violations, 'violation')}"
    )
    if summary.malformed:
        counts += f", {_count(summary.malformed, 'malformed line')}"
    if summary.unreadable:
        counts += f", {_count(len(summary.unreadable), 'unreadable file')}"
    lines = [f"packcheck audit: {counts} ({name})"]
    if summary.rule is not None:
        given = " (as the run records it)" if summary.rule_recorded else ""
        lines.append(f"  rule: {summary.rule}{given}")
    for loss in summary.lost[:LOST_SHOWN]:  # under a rule, its reasons on lines of their own
        first, *reasons = loss.lines()
        lines += [f"  {first}", *reasons]
    if len(summary.lost) > LOST_SHOWN:
        lines.append(
            f"  ... and {len(summary.lost) - LOST_SHOWN} more lost IDs (--json lists them)"
        )
    lines += [f"  unreadable: {name}" for name in summary.unreadable]
    if summary.untracked:
        lines.append(
            f"  ... and {summary.untracked} losses of IDs past the first {len(summary.lost)}"
        )
    if summary.unknown:
        steps = _count(summary.unknown, "step")
        lines.append(f"  lost in {steps}: unknown (no list of kept IDs recorded)")
    if not summary.lost and not summary.unknown:
        lines.append("  lost: nothing (every required ID was packed in every step)")
    return lines


#: ``register(commands, name)`` adds ``audit`` to the ``packcheck`` subcommands.
register = Subcommand(
    "check the partitions a system recorded over a run",
    """Check a recorded run: JSON Lines, one model step per line, each the step's case
    plus the partition captured (and, when recorded, the result). Every step must
    carry the partition the declared rule gives, a recorded result must be the
    declared output (under --rule, or [tool.packcheck.rule], that rule's). Prints
    one line per violation, then a summary with the required IDs the run lost, how
    often and why. Exit 0 clean, 1 any violation, 2 unreadable
    or malformed input (the other lines still checked).""",
    run_audit,
    "audit",
    partial(files_argument, how="audited as one run"),
)
