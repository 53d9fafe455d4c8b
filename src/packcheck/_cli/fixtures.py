"""``packcheck fixtures``: check fixture files against their expected outputs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .._engines.choice import Engine
from .._inputs import opened, reason
from .._rule.declared import Rule
from .._rule.fixture_rule import contradiction, fixture_rule, others_note, same_rule
from .._rule.jsonio import dumps, show_text
from .._rule.same import same
from .._rule.sources import Record, SourceError, read_records
from . import config
from ._common import answer, engine_ready, problem
from ._options import cut_off, error, writable
from ._subcommand import Subcommand

COMMAND = "fixtures"


def _matches(expected: Any, actual: dict[str, Any]) -> bool:
    # An expected input error matches any input error: details are prose.
    if isinstance(expected, dict) and expected.get("error") == "input":
        return actual.get("error") == "input"
    return same(expected, actual, json=True)


def _rule_in_use(args: argparse.Namespace) -> Rule | None:
    """The rule in use; ``None`` after saying why it cannot be read."""
    try:
        return config.rule(getattr(args, "rule", None), Path.cwd()) or Rule()
    except config.ConfigError as exc:
        error(COMMAND, str(exc))
        return None


def _another(record: Record, rule: Rule | str, engine: Engine) -> str | None:
    """A fixture of another rule: why it is broken, if it contradicts that rule (its
    input is run)."""
    if isinstance(rule, str):
        answer(record, engine)
        return None
    return contradiction(rule, record.case, record.expected, record.where)


def run_fixtures(args: argparse.Namespace) -> int:
    """Check every fixture of the rule in use (of another rule, only its input is run);
    1 on a mismatch, 2 on an unreadable file or fixture, or one that contradicts its
    own rule."""
    if not engine_ready(COMMAND, args.engine):
        return 2
    in_use = _rule_in_use(args)
    if in_use is None:
        return 2
    declared = None if in_use.is_default else in_use
    checked = failed = others = 0
    broken = False
    failures: list[dict[str, Any]] = []  # with --format json, said at the end
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
                        problem(COMMAND, name, f"{record.where}: {record.error}")
                        continue
                    try:
                        rule = fixture_rule(record.rule, record.where)
                    except SourceError as exc:
                        broken = True
                        problem(COMMAND, name, str(exc))
                        continue
                    if not same_rule(rule, in_use):
                        others += 1
                        why = _another(record, rule, args.engine)
                        if why is not None:
                            broken = True
                            problem(COMMAND, name, why)
                        continue
                    actual, _ = answer(record, args.engine, declared)
                    checked += 1
                    if not _matches(record.expected, actual):
                        failed += 1
                        cut_off(args, 1)
                        failure = _failure(name, record, actual)
                        if args.format == "json":
                            failures.append(failure)
                        else:
                            _show(failure)
        except BrokenPipeError:
            raise
        except (OSError, SourceError) as exc:
            broken = True
            problem(COMMAND, name, reason(exc))
    notes = others_note(others)
    if args.format == "json":
        passed = {"checked": checked, "passed": checked - failed, "engine": args.engine}
        print(dumps({**passed, "failed": failures, "notes": list(notes)}))
    else:
        noun = "fixture" if checked == 1 else "fixtures"
        for note in notes:
            print(f"note:     {note}")
        print(f"{checked - failed} of {checked} {noun} passed ({args.engine} engine)")
    return 2 if broken else 1 if failed else 0


def _failure(name: str, record: Record, actual: dict[str, Any]) -> dict[str, Any]:
    where = {"file": show_text(name), "fixture": record.where}
    return {**where, "input": record.case, "expected": record.expected, "actual": actual}


def _show(failure: dict[str, Any]) -> None:
    print(writable(f"FAIL {failure['file']}: {failure['fixture']}", sys.stdout))
    print(f"  input:    {dumps(failure['input'])}")
    print(f"  expected: {dumps(failure['expected'])}")
    print(f"  actual:   {dumps(failure['actual'])}")


def _files(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE")


#: ``register(commands, name)`` adds ``fixtures`` to the ``packcheck`` subcommands.
register = Subcommand(
    "check fixture files against their expected outputs",
    """Check every fixture in each FILE (a JSON array of {id, input, expected} or the
    seed's CSV table). Exit 1 and print the case, the expected and the actual output
    on a mismatch; exit 2 when a file or fixture cannot be read.""",
    run_fixtures,
    COMMAND,
    _files,
)
