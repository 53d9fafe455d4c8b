"""``packcheck verify`` and ``packcheck diff``: one option table for the gate's commands.

Each option of :data:`OPTIONS` is declared once, with the commands that take it; the
parsers, the defaults, the ``[tool.packcheck]`` / ``[tool.packcheck.diff]`` keys, the
``rerun:`` line and the settings the reports show all come from it, so an option means
the same in both commands.  :func:`settings` resolves a run's settings (the command
line's, the table's, the defaults) and :func:`checked` runs it through the library
(:func:`packcheck.verify.run`, :func:`packcheck.diff.run`); the pytest plugin calls
those two as the commands do.
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from .. import _stop
from .._gate import (
    DEFAULT_MAX_EXAMPLES,
    FORMATS,
    Outcome,
    Progress,
    Settings,
    examples,
    junit_xml,
    render,
    seeds_text,
)
from .._gate._settings import MAX_EXAMPLES
from .._packers import SetupError
from .._rule.jsonio import one_line
from .._rule.sources import SourceError
from ..strategies import MAX_SAFE_UNITS
from . import _config
from ._options import (
    DEFAULT_TIMEOUT,
    add_report_options,
    parse_units,
    positive,
    power_text,
    publish,
    seed,
    seeds,
    timeout,
    writable_file,
)
from ._progress import progress_for
from ._seeds import Job, Runs, checked_seeds, run_job

__all__ = [
    "OPTIONS",
    "Option",
    "checked",
    "gate_settings",
    "keys",
    "register",
    "run_seed",
    "seed_runs",
    "settings",
]

BOTH = ("verify", "diff")


def _examples(text: str) -> int:
    """``--max-examples``: a whole number, then the settings' own check of it."""
    try:
        return examples(positive(int)(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class Option:
    """One option of the gate's commands.

    ``parse`` reads its value (``None``: a switch, ``--x`` / ``--no-x``, or with
    ``flag`` a plain ``--x``); ``default`` is its value when neither the command line
    nor the table gives it; ``group`` names the options of which one may be given
    (one packer, two ways); ``shown``: the reports list it among the run's settings;
    ``rerun``: the ``rerun:`` line repeats it when it is not the default, written by
    ``text``; ``table``: ``[tool.packcheck]`` may set it.
    """

    flag: str
    help: str
    commands: tuple[str, ...] = BOTH
    parse: Callable[[str], Any] | None = str
    metavar: str | None = None
    default: Any = None
    group: str | None = None
    flag_only: bool = False
    shown: bool = False
    rerun: bool = True
    text: Callable[[Any], str] = str
    table: bool = True

    @property
    def dest(self) -> str:
        return self.flag[2:].replace("-", "_")


_PYTHON = "a Python function case -> output: MODULE:FUNCTION (the current directory is "
_PROGRAM = "a program reading one JSON case per line and printing one JSON output per line"
OPTIONS = (
    Option(
        "--packer",
        f"the packer checked (diff: NEW), {_PYTHON}importable) or PATH.py:FUNCTION",
        metavar="MODULE:FUNCTION",
        group="new",
    ),
    Option(
        "--packer-cmd",
        f"the packer checked (diff: NEW), {_PROGRAM}",
        metavar="COMMAND",
        group="new",
    ),
    Option(
        "--against",
        "OLD, as --packer: e.g. PATH.py:FUNCTION in a checkout of the previous release",
        ("diff",),
        metavar="SPEC",
        group="old",
    ),
    Option("--against-cmd", "OLD, as --packer-cmd", ("diff",), metavar="COMMAND", group="old"),
    Option("--seed", "reproduce a run (default: random, printed)", parse=seed, group="seed"),
    Option(
        "--seeds",
        "run the gate once per seed, A-B or a list such as 1,4,9: one after another, or "
        "across --workers / --scheduler; the verdict is the lowest failing seed's run, "
        "reported as --seed would",
        parse=seeds,
        metavar="SEEDS",
        group="seed",
        text=seeds_text,
    ),
    Option(
        "--workers",
        "run the seeds on a local Dask cluster of N processes (needs the dask extra: "
        "pip install 'packcheck[dask]')",
        parse=positive(int),
        metavar="N",
        group="cluster",
        rerun=False,
    ),
    Option(
        "--scheduler",
        "run the seeds on the Dask cluster at ADDRESS (tcp://host:8786), whose workers "
        "have packcheck and reach the packer (the same paths, or the module installed)",
        metavar="ADDRESS",
        group="cluster",
        rerun=False,
    ),
    Option(
        "--connect-timeout",
        "with --scheduler: give up reaching it (and a worker) after SECONDS (default: 10)",
        parse=positive(float),
        metavar="SECONDS",
        rerun=False,
        text="{:g}".format,
    ),
    Option(
        "--max-examples",
        f"generated cases (default: {DEFAULT_MAX_EXAMPLES}, at most {MAX_EXAMPLES:,})",
        parse=_examples,
        metavar="N",
        default=DEFAULT_MAX_EXAMPLES,
        shown=True,
    ),
    Option(
        "--max-units",
        "largest generated magnitude, digits or e.g. 2**70 (default: 2**53-1, what every "
        "JSON implementation holds exactly; 2**70 for verify of packcheck's own packer)",
        parse=parse_units,
        metavar="N",
        shown=True,
        text=power_text,
    ),
    Option(
        "--timeout",
        "seconds per case (and side), then that case fails (diff: one OLD gives no answer "
        "to is not compared) (default: 10); a Python packer "
        "runs in a worker process for it; 0: no timeout (verify then runs a Python packer "
        "in this process)",
        parse=timeout,
        metavar="SECONDS",
        shown=True,
        text="{:g}".format,
    ),
    Option(
        "--partition",
        'every answer but {"error":"size"} must capture its partition (packed, available, '
        "dropped); a captured one is checked with or without this",
        ("verify",),
        default=False,
        shown=True,
        parse=None,
    ),
    Option(
        "--count",
        "run every phase to its end and report, per phase, the share of cases on which "
        "the two differ and what share OLD answered, answered an error, raised on or gave "
        "no answer to (the first divergence is still shrunk and shown); --no-count "
        "undoes count = true",
        ("diff",),
        default=False,
        shown=True,
        parse=None,
    ),
    Option(
        "--long-lists",
        "the long lists (15 to 131,073 blocks); --no-long-lists: a quicker, weaker check "
        "(default: on)",
        default=True,
        shown=True,
        parse=None,
    ),
    Option(
        "--save-failures",
        "replay DIR/*.json first, and save a new failure there as a fixture",
        parse=Path,
        metavar="DIR",
        shown=True,
    ),
    Option("--format", "", default="text", rerun=False, table=False),
    Option("--junit-xml", "", parse=Path, rerun=False, table=False),
    Option(
        "--quiet",
        "no progress on stderr (default: a live line on a terminal, else a line per phase "
        "and every 10 s)",
        default=False,
        flag_only=True,
        rerun=False,
        parse=None,
    ),
)
#: The report options, added by :func:`add_report_options`.
_REPORTS = ("--format", "--junit-xml")
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


def options(command: str) -> Iterator[Option]:
    """The options ``command`` takes, in the table's order."""
    return (option for option in OPTIONS if command in option.commands)


def register(commands: Any, command: str) -> None:
    """Add ``command`` (``verify`` or ``diff``) to the ``packcheck`` subcommands."""
    summary, description = _DESCRIPTIONS[command]
    p = commands.add_parser(command, help=summary, description=description)
    groups: dict[str, Any] = {}
    # Every default is None: an option not given may come from the table.
    for option in options(command):
        if option.flag in _REPORTS:
            continue
        where = p
        if option.group is not None:
            if option.group not in groups:
                groups[option.group] = p.add_mutually_exclusive_group()
            where = groups[option.group]
        if option.flag_only:
            where.add_argument(
                option.flag, "-q", action="store_true", default=None, help=option.help
            )
        elif option.parse is None:
            where.add_argument(option.flag, action=argparse.BooleanOptionalAction, help=option.help)
        else:
            where.add_argument(
                option.flag, type=option.parse, metavar=option.metavar, help=option.help
            )
    add_report_options(p, FORMATS)
    p.set_defaults(run=run_command, gate_command=command)


def keys(command: str) -> dict[str, _config.Key]:
    """The keys of ``command``'s table: its long options without the dashes."""
    found: dict[str, _config.Key] = {}
    for option in options(command):
        name, only = option.flag[2:], not option.table
        found[name] = _config.Key(option.dest, option.parse, command_line_only=only)
        if option.parse is None and not option.flag_only:
            found[f"no-{name}"] = _config.Key(option.dest, negated=True)
    return found


def settings(
    given: Mapping[str, Any], command: str, start: Path | None = None
) -> argparse.Namespace:
    """The run's settings: ``given`` (the command line's), then those of the table
    (``[tool.packcheck]``, or ``[tool.packcheck.diff]`` for ``diff``), then the
    defaults.  A packer named on the command line replaces both keys of its side.

    Raises :class:`_config.ConfigError`, also when ``diff`` lacks a side.
    """
    sides = [("packer", "packer_cmd")] + ([("against", "against_cmd")] if command == "diff" else [])
    s = _config.resolve(
        given,
        keys(command),
        {option.dest: option.default for option in options(command)},
        start=Path.cwd() if start is None else start,
        section=None if command == "verify" else command,
        choices=[*sides, ("seed", "seeds"), ("workers", "scheduler")],
    )
    for side, (spec, program) in zip(("NEW", "OLD"), sides, strict=False):
        if command == "diff" and getattr(s, spec) is None and getattr(s, program) is None:
            named = f"--{spec} or --{program.replace('_', '-')}"
            raise _config.ConfigError(
                f"{side} is needed: {named} (or {spec} or {program.replace('_', '-')} "
                "in [tool.packcheck.diff])"
            )
    return s


def _own(s: argparse.Namespace) -> bool:
    """``verify`` of packcheck's own packer: no packer named."""
    return s.gate_command == "verify" and s.packer is None and s.packer_cmd is None


def timeout_of(s: argparse.Namespace) -> float | None:
    """Seconds a packer gets per case; ``None``: no timeout (``--timeout 0``, or
    ``verify`` of packcheck's own packer, which runs in this process)."""
    if s.timeout == 0 or (_own(s) and s.timeout is None):
        return None
    return DEFAULT_TIMEOUT if s.timeout is None else float(s.timeout)


def max_units(s: argparse.Namespace) -> int:
    """``--max-units``, or its default: past int64 for packcheck's own packer, whose
    integers are exact at any size (its kernel's int64 edges are checked too)."""
    if s.max_units is not None:
        return int(s.max_units)
    return OWN_MAX_UNITS if _own(s) else MAX_SAFE_UNITS


def rerun(s: argparse.Namespace, run_seed: int | None) -> str:
    """The command that repeats this run: every setting that changes what it checks
    (those read from the table too, so it repeats the run from anywhere).

    With ``run_seed``, the run of that seed alone (``--seed``, never ``--seeds``);
    ``None``: the run of ``--seeds``.
    """
    words = ["packcheck", s.gate_command]
    given = {"--seed": run_seed, "--seeds": None} if run_seed is not None else {}
    for option in options(s.gate_command):
        value = given.get(option.flag, getattr(s, option.dest))
        if not option.rerun or value is None or value == option.default:
            continue
        if option.parse is None:
            words.append(option.flag if value else f"--no-{option.flag[2:]}")
        else:
            words += [option.flag, option.text(value)]
    return shlex.join(words)


def shown(s: argparse.Namespace) -> dict[str, Any]:
    """What decides what a run checks, for the JSON and JUnit reports."""
    effective = {
        "max_units": power_text(max_units(s)),
        "timeout": timeout_of(s),
        "save_failures": None if s.save_failures is None else str(s.save_failures),
    }
    return {
        option.dest: effective.get(option.dest, getattr(s, option.dest))
        for option in options(s.gate_command)
        if option.shown
    }


def gate_settings(s: argparse.Namespace, seed: int, progress: Progress | None) -> Settings:
    """The :class:`Settings` of the run of ``seed`` with the settings ``s``."""
    fields = {o.dest: getattr(s, o.dest) for o in options(s.gate_command) if o.shown}
    fields.update(max_units=max_units(s), seed=seed, progress=progress)
    del fields["timeout"]
    return Settings(**fields)


def run_seed(s: argparse.Namespace) -> int:
    """The seed ``--seed`` gives, or one picked at random (and printed in the report)."""
    return s.seed if s.seed is not None else random.SystemRandom().randrange(2**32)


def seed_runs(s: argparse.Namespace) -> Runs:
    """What ``--seeds`` runs of the settings ``s`` (:class:`_seeds.Runs`)."""
    values = {o.dest: getattr(s, o.dest) for o in options(s.gate_command)}
    return Runs(
        s.seeds if s.seeds is not None else (run_seed(s),),
        argparse.Namespace(gate_command=s.gate_command, **values),
        partial(gate_settings, s),
        timeout_of(s),
        partial(rerun, s),
        shown(s),
    )


def checked(s: argparse.Namespace, progress: Progress | None = None) -> Outcome:
    """Run the gate with the settings ``s``; raises :class:`OSError`,
    :class:`SourceError` or :class:`SetupError` when it cannot run at all (a command
    that ended before answering any case never ran as a packer, a cluster that cannot
    be had).  With ``--seeds``, ``--workers`` or ``--scheduler``, the run of each seed
    (:mod:`packcheck._cli._seeds`)."""
    if s.junit_xml is not None:
        writable_file(s.junit_xml)
    if s.seeds is not None or s.workers is not None or s.scheduler is not None:
        return checked_seeds(s, progress, seed_runs(s))
    seed = run_seed(s)
    _stop.note(rerun=rerun(s, seed), save=s.save_failures)  # said if stopped
    outcome = run_job(Job(s, gate_settings(s, seed, progress), timeout_of(s)), progress)
    return replace(outcome, rerun=rerun(s, outcome.seed), settings=shown(s))


def run_command(args: argparse.Namespace) -> int:
    """Run ``verify`` or ``diff``: 0 it passed, 1 it failed, 2 usage or setup error."""
    command = args.gate_command
    try:
        s = settings(vars(args), command)
    except _config.ConfigError as exc:
        print(one_line(f"packcheck {command}: error: {exc}"), file=sys.stderr)
        return 2
    progress = progress_for(sys.stderr, s.quiet, command)
    try:
        outcome = checked(s, progress)
        if progress is not None:
            progress.finish()
    except (OSError, SourceError, SetupError) as exc:
        # SetupError also when a command ended before answering any case.
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        # A path in it (--junit-xml, --save-failures, a saved file) may hold a line break.
        print(
            one_line(f"packcheck {command}: {_config.attributed(why, s.origins)}"), file=sys.stderr
        )
        return 2
    finally:
        if progress is not None:
            progress.close()
    if outcome.status:
        args.status_if_cut_off = 1  # a reader that goes away must not turn this into a pass
    report = render(outcome, s.format)
    return publish(command, report, s.junit_xml, lambda: junit_xml(outcome), outcome.status)
