"""``packcheck rule diff OLD NEW``: the smallest cases on which two rules answer
differently, each with both answers; ``--save DIR`` keeps them as fixtures of NEW."""

from __future__ import annotations

import argparse
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._rule.declared import Rule
from .._rule.jsonio import dumps
from ..rules import DEFAULT_BASES
from . import config
from ._options import cut_off, error
from ._subcommand import Subcommand
from .rule import located

if TYPE_CHECKING:
    from ..rules import RuleDiff

COMMAND = "rule diff"


def _rerun(args: argparse.Namespace, chosen: int) -> str:
    words = [f"packcheck {COMMAND}", args.old, args.new, "--seed", str(chosen)]
    if args.max_examples != DEFAULT_BASES:
        words += ["--max-examples", str(args.max_examples)]
    return " ".join(words)


def run(args: argparse.Namespace) -> int:
    # They import Hypothesis: `rule show` never loads them.
    from .._gate.fixtures import save_fixture, writable_directory
    from ..rules import diff
    from ._progress import showing

    try:
        old, old_source = located(args.old, Path.cwd())
        new, new_source = located(args.new, Path.cwd())
        if args.save is not None:
            writable_directory(args.save)
    except (config.ConfigError, OSError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        # The folder's check speaks of verify's setting: said as this command's option.
        if why.startswith("save_failures "):
            why = "--save" + why.removeprefix("save_failures")
        return error(COMMAND, why)
    chosen = args.seed if args.seed is not None else secrets.randbelow(2**32)
    rerun = _rerun(args, chosen)
    with showing(COMMAND, args.quiet, rerun, args.save) as progress:
        found = diff(
            old,
            new,
            seed=chosen,
            max_examples=args.max_examples,
            max_cases=args.max_cases,
            progress=progress,
        )
    saved: list[str] = []
    if args.save is not None:
        try:
            count = len(found.cases)
            saved = [
                str(save_fixture(case.fixture(number, count), args.save))
                for number, case in enumerate(found.cases, 1)
            ]
        except OSError as exc:
            return error(COMMAND, str(exc.strerror or exc))
    status = 1 if found.cases else 0
    cut_off(args, status)
    sources = (old_source, new_source)
    if args.format == "json":
        print(dumps(_json(found, sources, saved, rerun)))
    else:
        print(_text(found, sources, saved, rerun))
    return status


def _named(rule: Rule) -> str:
    return rule.describe() or (
        f"{rule.name} (the default rule)" if rule.name else "the default rule"
    )


def _text(found: RuleDiff, sources: tuple[str, str], saved: list[str], rerun: str) -> str:
    lines = [
        f"OLD: {sources[0]}: {_named(found.old)}",
        f"NEW: {sources[1]}: {_named(found.new)}",
    ]
    if found.equivalent:
        same = ", ".join(found.new.canonical().changed()) or "the default rule"
        lines.append(f"equivalent: the same rule ({same}); no case tried")
        return "\n".join(lines)
    if not found.cases:
        lines.append(
            f"no difference found in {found.tried:,} cases (seed {found.seed}); "
            "they may still differ on a case not tried"
        )
        lines.append(f"rerun: {rerun}")
        return "\n".join(lines)
    many = len(found.cases) != 1
    lines.append(
        f"{len(found.cases)} case{'s' if many else ''} on which they answer differently, "
        f"smallest first ({found.tried:,} cases tried, seed {found.seed}):"
    )
    for case in found.cases:
        lines += [dumps(case.case), f"  OLD: {dumps(case.old)}", f"  NEW: {dumps(case.new)}"]
    lines += [f"saved: {path}" for path in saved]
    lines.append(f"rerun: {rerun}")
    return "\n".join(lines)


def _json(
    found: RuleDiff, sources: tuple[str, str], saved: list[str], rerun: str
) -> dict[str, Any]:
    verdict = "equivalent" if found.equivalent else "differ" if found.cases else "agree"
    return {
        "verdict": verdict,
        "old": {"source": sources[0], "name": found.old.name, "rule": found.old.changed()},
        "new": {"source": sources[1], "name": found.new.name, "rule": found.new.changed()},
        "canonical": {
            "old": found.old.canonical().changed(),
            "new": found.new.canonical().changed(),
        },
        "seed": found.seed,
        "tried": found.tried,
        "cases": [{"input": c.case, "old": c.old, "new": c.new} for c in found.cases],
        "saved": saved,
        "rerun": rerun,
    }


def _old_and_new(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the rule as it was")
    parser.add_argument("new", metavar="NEW", help="the rule as it is to be")


#: ``register(commands, name)`` adds ``rule diff`` to the ``packcheck rule`` subcommands.
register = Subcommand(
    "find the smallest cases on which two declared rules answer differently",
    "Compare two declared rules, OLD and NEW (rule files, or pyproject.toml files "
    "whose [tool.packcheck.rule] tables are the rules): small cases drawn from the "
    "seed are walked to both rules' transition points, and every case on which they "
    "answer differently is shrunk; the smallest are printed, each as one JSON line "
    "followed by both answers. Two spellings of one rule (equal canonical forms) are "
    "said to be equivalent without a search. Exit 0 when they agree, 1 when a case "
    "tells them apart, 2 when a rule cannot be read.",
    run,
    COMMAND,
    _old_and_new,
)
