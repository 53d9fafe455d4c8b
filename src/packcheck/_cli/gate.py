"""``packcheck verify`` and ``packcheck diff``: the gate's commands.

Their options come from the one table, :data:`._options.OPTIONS`: the parsers, the
defaults, the ``[tool.packcheck]`` / ``[tool.packcheck.diff]`` keys, the ``rerun:``
line and the settings the reports show, so an option means the same in both commands.
:func:`spec` resolves a run (the command line's settings, the table's, the defaults)
and :func:`run` runs it; the pytest plugin calls those two as the commands do.
"""

from __future__ import annotations

import argparse
import contextlib
import secrets
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._gate import Settings, junit_xml, render
from .._packers import SetupError
from .._rule.sources import SourceError
from ..strategies import MAX_SAFE_UNITS
from . import config
from ._options import (
    OPTIONS,
    Option,
    add_arguments,
    add_options,
    cut_off,
    error,
    options,
    publish,
)
from ._progress import showing
from ._seeds import run
from ._spec import Spec
from ._values import DEFAULT_TIMEOUT, power_text

__all__ = [
    "OPTIONS",
    "Option",
    "Spec",
    "add_options",
    "keys",
    "options",
    "register",
    "run",
    "spec",
]

#: The option that chooses the table itself: no key of any table.
_TABLE = "--table"
#: ``--max-units`` for packcheck's own packer: budgets and sums past int64.
OWN_MAX_UNITS = 2**70

_DESCRIPTIONS = {
    "verify": (
        "check a packer against the declared rule on fixtures and generated cases",
        "Check a packer against the declared rule: the seed fixtures and any saved "
        "failures first, then generated cases compared with the reference and the "
        "invariant checker. With no packer option, packcheck's own NumPy packer is "
        "checked. Options not given are read from [tool.packcheck] in the nearest "
        "pyproject.toml. Exit 0 conformant, 1 with a shrunk counterexample, 2 on a "
        "usage or setup error.",
    ),
    "diff": (
        "check that a packer behaves as its previous version did, whatever its rule",
        "Give every case of verify's phases (fixtures, generated cases, wide ranges, "
        "long lists) to two packers, NEW (--packer or --packer-cmd) and OLD (--against "
        "or --against-cmd), and compare what they do exactly: answers as JSON with "
        "exact types, an exception by its type, a timeout or a dead process as that "
        "side's fault. The first divergence is shrunk and shown beside the declared "
        "rule's answer. Options not given are read from [tool.packcheck.diff] in the "
        "nearest pyproject.toml. Exit 0 they agree, 1 on a divergence, 2 on a usage "
        "or setup error.",
    ),
}


def register(commands: Any, command: str) -> None:
    """Add ``command`` (``verify`` or ``diff``) to the ``packcheck`` subcommands."""
    summary, description = _DESCRIPTIONS[command]
    p = commands.add_parser(command, help=summary, description=description)
    add_arguments(p, command)  # every default None: an option not given may come from the table
    p.set_defaults(run=run_command, gate_command=command)


def keys(command: str) -> dict[str, config.Key]:
    """The keys of ``command``'s table: its long options without the dashes."""
    found: dict[str, config.Key] = {}
    for option in options(command):
        if option.flag == _TABLE:
            continue
        name, only = option.flag[2:], not option.table
        parse = None if option.switch else option.parse
        found[name] = config.Key(option.dest, parse, command_line_only=only)
        if option.kind == "switch":
            found[f"no-{name}"] = config.Key(option.dest, negated=True)
    return found


def _rerun_words(s: argparse.Namespace) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words of the command that repeats the run, before and after its seed: every
    setting that changes what it checks (those read from the table too, so it repeats
    the run from anywhere)."""
    head: list[str] = ["packcheck", s.gate_command]
    tail: list[str] = []
    words = head
    for option in options(s.gate_command):
        value = getattr(s, option.dest)
        if option.group == "seed":
            words = tail
        elif not option.rerun or value is None or value == option.default:
            continue
        elif option.switch:
            words.append(option.flag if value else f"--no-{option.flag[2:]}")
        else:
            words += [option.flag, option.text(value)]
    return tuple(head), tuple(tail)


def spec(given: Mapping[str, Any], command: str, start: Path | None = None) -> Spec:
    """The run ``given`` (the command line's options, by ``dest``) asks for, then the
    table (``[tool.packcheck]``, or ``[tool.packcheck.diff]`` for ``diff``, or the
    named ``[tool.packcheck.diff.NAME]`` that ``table`` chooses), then the defaults;
    its seed picked at random unless given.  A packer named on the command line
    replaces both keys of its side.  Raises :class:`config.ConfigError`, also when
    ``diff`` lacks a side or ``table`` names no table.
    """
    sides = [("packer", "packer_cmd")] + ([("against", "against_cmd")] if command == "diff" else [])
    table = keys(command)
    chosen = given.get("table")
    section = None if command == "verify" else command if chosen is None else f"{command}.{chosen}"
    s = config.resolve(
        given,
        table,
        {option.dest: option.default for option in options(command)},
        start=Path.cwd() if start is None else start,
        section=section,
        choices=[*sides, ("seed", "seeds"), ("workers", "scheduler")],
    )
    for side, (python, program) in zip(("NEW", "OLD"), sides, strict=False):
        if command == "diff" and getattr(s, python) is None and getattr(s, program) is None:
            named = f"--{python} or --{program.replace('_', '-')}"
            raise config.ConfigError(
                f"{side} is needed: {named} (or {python} or {program.replace('_', '-')} "
                f"in [tool.packcheck.{section}])"
            )
    fields = {o.dest: getattr(s, o.dest) for o in options(command) if o.shown}
    where = Path.cwd() if start is None else start
    # diff takes a rule only from --rule; verify also from [tool.packcheck.rule].
    rule_file = s.rule
    found = config.find(where) if command == "verify" and rule_file is None else None
    if found is not None and "rule" in found[1]:
        s.rule = config.shown(found[0])  # the rerun line names the table's file
    words = _rerun_words(s)
    own = command == "verify" and s.packer is None and s.packer_cmd is None
    # No timeout with --timeout 0, nor for packcheck's own packer: it runs in this process.
    timeout = (
        None if s.timeout == 0 or (own and s.timeout is None) else s.timeout or DEFAULT_TIMEOUT
    )
    # Past int64 for packcheck's own packer, exact at any size (its int64 edges checked too).
    max_units = s.max_units or (OWN_MAX_UNITS if own else MAX_SAFE_UNITS)
    shown = {**fields, "max_units": power_text(max_units), "timeout": timeout}
    shown["save_failures"] = None if s.save_failures is None else str(s.save_failures)
    seed = s.seed if s.seed is not None or s.seeds is not None else secrets.randbelow(2**32)
    oracle = {"partition": fields.pop("partition", False), "count": fields.pop("count", False)}
    del fields["timeout"]
    # Read last, all else decided: a bad rule is its one-line error, before anything runs.
    rule = config.rule(rule_file, where) if command == "verify" or rule_file else None
    return Spec(
        command,
        Settings(**{**fields, "max_units": max_units, "seed": seed}),
        **{k: getattr(s, k) for k in ("packer", "packer_cmd", "seeds", "workers", "scheduler")},
        **oracle,
        against=getattr(s, "against", None),
        against_cmd=getattr(s, "against_cmd", None),
        timeout=timeout,
        connect_timeout=s.connect_timeout,
        rule=rule,
        format=s.format,
        junit_xml=s.junit_xml,
        quiet=bool(s.quiet),
        origins=s.origins,
        shown={o.dest: shown[o.dest] for o in options(command) if o.shown},
        rerun_words=words,
    )


def run_command(args: argparse.Namespace) -> int:
    """Run ``verify`` or ``diff``: 0 it passed, 1 it failed, 2 usage or setup error."""
    command = args.gate_command
    try:
        chosen = spec(vars(args), command)
    except config.ConfigError as exc:
        return error(command, str(exc))
    # Said if stopped: how to repeat the run, where its failure found so far goes.
    rerun = chosen.rerun(None if chosen.seeds else chosen.settings.seed)
    try:
        # stdout carries the report alone: a packer called in this process prints to
        # stderr, as one in a worker process does.
        with (
            showing(command, chosen.quiet, rerun, chosen.settings.save_failures) as progress,
            contextlib.redirect_stdout(sys.stderr),
        ):
            outcome = run(chosen, progress)
    except (OSError, SourceError, SetupError) as exc:
        # SetupError also when a command ended before answering any case.
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        # A path in it (--junit-xml, --save-failures, a saved file) may hold a line break.
        return error(command, chosen.said(why))
    if outcome.status:
        cut_off(args, 1)
    report = render(outcome, chosen.format)
    return publish(command, report, chosen.junit_xml, lambda: junit_xml(outcome), outcome.status)
