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
import secrets
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._gate import (
    DEFAULT_MAX_EXAMPLES,
    FORMATS,
    Settings,
    examples,
    junit_xml,
    render,
    seeds_text,
)
from .._gate.settings import MAX_EXAMPLES
from .._packers import SetupError
from .._rule.jsonio import one_line
from .._rule.sources import SourceError
from .._stop import pending
from ..strategies import MAX_SAFE_UNITS
from . import config
from ._options import (
    DEFAULT_TIMEOUT,
    add_report_options,
    cut_off,
    parse_units,
    positive,
    power_text,
    publish,
    seed,
    seeds,
    timeout,
)
from ._progress import progress_for
from ._seeds import run
from ._spec import Spec

__all__ = ["OPTIONS", "Option", "Spec", "keys", "register", "run", "said", "spec"]

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
    Option(
        "--rule",
        "the packing rule the packer declares, a rule file (its keys at the top level) or "
        "a pyproject.toml (its [tool.packcheck.rule]); verify: default "
        "[tool.packcheck.rule] in the nearest pyproject.toml, else the seed's rule; diff: "
        "the rule its report shows as context and its saved fixtures expect",
        metavar="FILE",
        table=False,
    ),
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
    Option(
        "--table",
        "take the settings not given from [tool.packcheck.diff.NAME] instead of "
        "[tool.packcheck.diff]: a named table sets up another diff (against the last "
        "release, against a declared rule...)",
        ("diff",),
        metavar="NAME",
        rerun=False,
        table=False,
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


def keys(command: str) -> dict[str, config.Key]:
    """The keys of ``command``'s table: its long options without the dashes."""
    found: dict[str, config.Key] = {}
    for option in options(command):
        if option.flag == _TABLE:
            continue
        name, only = option.flag[2:], not option.table
        found[name] = config.Key(option.dest, option.parse, command_line_only=only)
        if option.parse is None and not option.flag_only:
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
        elif option.parse is None:
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
    rule = config.rule(s.rule, where) if command == "verify" or s.rule else None
    if s.rule is None and rule is not None:
        found = config.find(where)
        assert found is not None
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


def said(message: str, origins: Mapping[str, str]) -> str:
    """A library's one-line error in the command's words: the setting it starts with
    (``save_failures``) as its flag, or as the table's key that set it."""
    first = message.split(" ", 1)[0]
    option = next((o for o in OPTIONS if "_" in o.dest and o.dest == first), None)
    flagged = message if option is None else option.flag + message[len(first) :]
    return config.attributed(flagged, origins)


def run_command(args: argparse.Namespace) -> int:
    """Run ``verify`` or ``diff``: 0 it passed, 1 it failed, 2 usage or setup error."""
    command = args.gate_command
    try:
        chosen = spec(vars(args), command)
    except config.ConfigError as exc:
        print(one_line(f"packcheck {command}: error: {exc}"), file=sys.stderr)
        return 2
    progress = progress_for(sys.stderr, chosen.quiet, command)
    try:
        outcome = run(chosen, progress)
        if progress is not None:
            progress.finish()
    except (OSError, SourceError, SetupError) as exc:
        # SetupError also when a command ended before answering any case.
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        # A path in it (--junit-xml, --save-failures, a saved file) may hold a line break.
        print(one_line(f"packcheck {command}: error: {said(why, chosen.origins)}"), file=sys.stderr)
        return 2
    except BaseException as exc:
        stop = pending(exc)
        if stop is None:
            raise
        # Said if stopped: how to repeat the run, where its failure found so far goes.
        stop.rerun = chosen.rerun(None if chosen.seeds else chosen.settings.seed)
        stop.save = chosen.settings.save_failures
        raise stop from None
    finally:
        if progress is not None:
            progress.close()
    if outcome.status:
        cut_off(args, 1)
    report = render(outcome, chosen.format)
    return publish(command, report, chosen.junit_xml, lambda: junit_xml(outcome), outcome.status)
