"""Every option of every command, declared once, and what the commands share in using them.

:data:`OPTIONS` declares each option (``per``: where a command takes it otherwise);
:data:`TAKES` lists each command's, in its ``--help``'s order.  :func:`add_options`
adds them through any ``addoption`` (argparse's, pytest's).  Errors a user can mend
are said by :func:`error`: ``packcheck COMMAND: error: ...``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, NoReturn

from .._engines.choice import ENGINES
from .._rule.jsonio import one_line
from .._rule.limits import DEFAULT_BASES, DEFAULT_CASES, DEFAULT_MAX_EXAMPLES, MAX_EXAMPLES
from .._rule.lines import MAX_LINE_BYTES
from ._later import (
    Later,
    clocks,
    connect_timeout,
    formats,
    kinds,
    steps_help,
    workload_help,
    workloads,
)
from ._values import (
    DEFAULT_TIMEOUT,
    byte_count,
    examples,
    fraction,
    parse_units,
    positive,
    power_text,
    seconds,
    seed,
    seeds,
    sizes,
    timeout,
)

#: The commands whose options not given are read from ``[tool.packcheck]``: on their
#: command line an option the table may set defaults to ``None``.
CONFIGURED = ("verify", "diff")


@dataclass(frozen=True, slots=True)
class Option:
    """One option: ``flag`` and ``help``; ``kind``: ``value`` (read by ``parse``,
    one of ``choices``), ``append`` (repeatable), ``switch`` (``--x`` / ``--no-x``),
    ``flag`` (``--x`` alone, or its ``short``) or ``alias`` (sets ``alias`` to
    ``const``); ``default``: its value when not given; ``group``: the options of
    which one may be given; ``per``: a command's own fields, where they differ.

    For ``verify`` and ``diff``: ``shown``, the reports list it among the run's
    settings; ``rerun``, the ``rerun:`` line repeats it when it is not the default,
    written by ``text``; ``table``, ``[tool.packcheck]`` may set it.
    """

    flag: str
    help: str | Later
    parse: Callable[[str], Any] = str
    kind: str = "value"
    metavar: str | None = None
    choices: Sequence[str] | Later | None = None
    default: Any = None
    nargs: str | None = None
    short: str | None = None
    group: str | None = None
    alias: str | None = None
    const: Any = None
    shown: bool = False
    rerun: bool = True
    text: Callable[[Any], str] = str
    table: bool = True
    per: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        return self.alias or self.flag[2:].replace("-", "_")

    @property
    def switch(self) -> bool:
        return self.kind in ("switch", "flag")

    def of(self, command: str) -> Option:
        own = replace(self, **self.per.get(command, {}), per={})
        made = {
            name: getattr(own, name).make()
            for name in ("help", "choices", "default")
            if isinstance(getattr(own, name), Later)
        }
        return replace(own, **made) if made else own


def _on_files(**fields: Any) -> dict[str, Mapping[str, Any]]:
    return {"pack": fields, "audit": fields}


def _cluster(flag: str, gate: str, files: str, **fields: Any) -> Option:
    """A cluster option: ``gate``, its help in ``verify`` and ``diff``, ``files`` in
    ``pack`` and ``audit``."""
    return Option(flag, gate, group="cluster", rerun=False, per=_on_files(help=files), **fields)


#: ``bench --quick``, and without it: the matrix's repeats; ``--against``'s wall seconds
#: (``--time-budget`` overrides both) and sizes, for kernels and for case-level and
#: command packers (an agent-sized step and a long list; without it, every size).
QUICK_REPEAT, FULL_REPEAT = 3, 9
QUICK_BUDGET, FULL_BUDGET = 30.0, 120.0
QUICK_SIZES, QUICK_CASE_SIZES = (10**5,), (100, 10**4)
#: The most cases ``bench --cases`` takes, from the start of the first file: a sample of
#: a run is timed over and over, and ten thousand steps already make a long sample.
MAX_CASES = 10_000

_PYTHON = "a Python function case -> output: MODULE:FUNCTION (the current directory is "
_PROGRAM = "a program reading one JSON case per line and printing one JSON output per line"
_DASK = "(needs the dask extra: pip install 'packcheck[dask]')"
_FILES_WORKERS = (
    f"run on a local Dask cluster of N processes (1: a thread of this one); the output is "
    f"the same {_DASK}"
)
_FILES_CLUSTER = (
    "run on the Dask cluster at ADDRESS (tcp://host:8786), whose workers must reach the "
    "files (shared or object storage)"
)
_RULE_FILE = (
    "the declared rule of FILE (its keys at the top level, or a pyproject.toml's "
    "[tool.packcheck.rule]); default: [tool.packcheck.rule] of the pyproject.toml found "
    "from here upwards, else packcheck's own rule"
)
_CONNECT = "with --scheduler: give up reaching it after SECONDS (default: 10)"
_ONE_OBJECT = "the report on stdout: text, or json (one object) (default: text)"
_QUIET = "no progress on stderr (default: a live line on a terminal, else a line per "

OPTIONS = (
    Option(
        "--packer",
        f"the packer checked (diff: NEW), {_PYTHON}importable) or PATH.py:FUNCTION",
        metavar="MODULE:FUNCTION",
        group="new",
        per={
            "pack": {
                "help": "with --record: record this packer's answers and the partitions it "
                "captures (a case -> answer function, or PATH.py:FUNCTION), not packcheck's"
            },
            "bench": {
                "help": "a packer to time: a case-level function (case -> answer, what "
                "verify --packer takes) or a kernel-level one (pack_sizes(budget, int64 "
                "sizes)), told apart by its signature or by trying a small case (or --kind); "
                "or PATH.py:FUNCTION (a file of another checkout, loaded as part of its "
                "package); with --against, NEW",
                "kind": "append",
                "default": [],
                "group": None,
            },
            "rule infer": {"help": f"{_PYTHON}importable) or PATH.py:FUNCTION"},
        },
    ),
    Option(
        "--packer-cmd",
        f"the packer checked (diff: NEW), {_PROGRAM}",
        metavar="COMMAND",
        group="new",
        per={
            "pack": {"help": "with --record: the same for a packer speaking JSON Lines"},
            "bench": {
                "help": "a packer speaking JSON Lines (what verify --packer-cmd takes), "
                "started once: each sample sends a batch of cases through it (timed on the "
                "command clock)",
                "kind": "append",
                "default": [],
                "group": None,
            },
            "rule infer": {"help": _PROGRAM},
        },
    ),
    Option(
        "--against",
        "OLD, as --packer: e.g. PATH.py:FUNCTION in a checkout of the previous release",
        metavar="SPEC",
        group="old",
        per={
            "bench": {
                "help": "OLD: time NEW against it, in pairs, and gate on the verdicts",
                "metavar": "MODULE:FUNCTION",
            }
        },
    ),
    Option(
        "--against-cmd",
        "OLD, as --packer-cmd",
        metavar="COMMAND",
        group="old",
        per={"bench": {"help": "OLD as a JSON Lines command"}},
    ),
    Option(
        "--rule",
        "the packing rule the packer declares, a rule file (its keys at the top level) or "
        "a pyproject.toml (its [tool.packcheck.rule]); verify: default "
        "[tool.packcheck.rule] in the nearest pyproject.toml, else the seed's rule; diff: "
        "the rule its report shows as context and its saved fixtures expect",
        metavar="FILE",
        table=False,
        per={
            "pack": {"help": f"answer by {_RULE_FILE}"},
            "audit": {
                "help": f"check every step against {_RULE_FILE}. A step recorded under "
                "another rule is an error (exit 2)"
            },
            "fixtures": {
                "help": "the declared rule in use: a rule file, or a pyproject.toml's "
                "[tool.packcheck.rule] (default: the nearest pyproject.toml's table)"
            },
            "bench": {
                "help": "the declared rule the packers follow (a rule file, or a "
                "pyproject.toml's [tool.packcheck.rule]): answers are checked against it, a "
                "Python packer's ValueError is its refusal where the rule refuses, and the "
                "workloads' budgets fit it; case-level packers and commands only (default: "
                "packcheck's own rule)"
            },
        },
    ),
    Option(
        "--seed",
        "reproduce a run (default: random, printed)",
        parse=seed,
        group="seed",
        per={
            "bench": {"help": "data seed (default: 0)", "default": 0, "group": None},
            "rule infer": {"group": None},
            "rule diff": {"group": None},
        },
    ),
    Option(
        "--seeds",
        "run the gate once per seed, A-B or a list such as 1,4,9: one after another, or "
        "across --workers / --scheduler; the verdict is the lowest failing seed's run, "
        "reported as --seed would",
        parse=seeds,
        metavar="SEEDS",
        group="seed",
    ),
    _cluster(
        "--workers",
        f"run the seeds on a local Dask cluster of N processes {_DASK}",
        _FILES_WORKERS,
        parse=positive(int),
        metavar="N",
    ),
    _cluster(
        "--scheduler",
        "run the seeds on the Dask cluster at ADDRESS (tcp://host:8786), whose workers "
        "have packcheck and reach the packer (the same paths, or the module installed)",
        _FILES_CLUSTER,
        metavar="ADDRESS",
    ),
    Option(
        "--connect-timeout",
        "with --scheduler: give up reaching it (and a worker) after SECONDS (default: 10)",
        parse=positive(float),
        metavar="SECONDS",
        rerun=False,
        text="{:g}".format,
        per=_on_files(help=_CONNECT, default=connect_timeout),
    ),
    Option(
        "--max-examples",
        f"generated cases (default: {DEFAULT_MAX_EXAMPLES}, at most {MAX_EXAMPLES:,})",
        parse=examples,
        metavar="N",
        default=DEFAULT_MAX_EXAMPLES,
        shown=True,
        per={
            "rule infer": {
                "help": "generated cases of the verify --rule check (default: verify's)",
                "parse": positive(int),
                "default": None,
            },
            "rule diff": {
                "help": f"small cases drawn and walked (default: {DEFAULT_BASES})",
                "parse": positive(int),
                "default": DEFAULT_BASES,
            },
        },
    ),
    Option(
        "--max-cases",
        f"cases shown at most, smallest first (default: {DEFAULT_CASES})",
        parse=positive(int),
        metavar="N",
        default=DEFAULT_CASES,
    ),
    Option(
        "--max-units",
        "largest generated magnitude, digits or e.g. 2**70 (default: 2**53-1, what every "
        "JSON implementation holds exactly; 2**70 for verify of packcheck's own packer)",
        parse=parse_units,
        metavar="N",
        shown=True,
        text=power_text,
        per={
            "rule infer": {
                "help": "largest magnitude asked, digits or e.g. 2**70 (default: 2**53-1)"
            }
        },
    ),
    Option(
        "--timeout",
        "seconds per case (and side), then that case fails (diff: one OLD gives no answer "
        f"to is not compared) (default: {DEFAULT_TIMEOUT:g}); a Python packer "
        "runs in a worker process for it; 0: no timeout (verify then runs a Python packer "
        "in this process)",
        parse=timeout,
        metavar="SECONDS",
        shown=True,
        text="{:g}".format,
        per={
            "bench": {
                "help": "a case of a packer given (not packcheck's engines) past this ends "
                f"the run with exit 1 (default: {DEFAULT_TIMEOUT:g}; a batch of N cases "
                "gets N times it); 0: no limit",
                "default": DEFAULT_TIMEOUT,
            },
            "rule infer": {
                "help": f"seconds per case (default: {DEFAULT_TIMEOUT:g}); a Python packer "
                "runs in a worker process for it; 0: no timeout (the packer runs in this "
                "process)"
            },
        },
    ),
    Option(
        "--partition",
        'every answer but {"error":"size"} must capture its partition (packed, available, '
        "dropped); a captured one is checked with or without this",
        kind="switch",
        default=False,
        shown=True,
    ),
    Option(
        "--count",
        "run every phase to its end and report, per phase, the share of cases on which "
        "the two differ and what share OLD answered, answered an error, raised on or gave "
        "no answer to (the first divergence is still shrunk and shown); --no-count "
        "undoes count = true",
        kind="switch",
        default=False,
        shown=True,
    ),
    Option(
        "--long-lists",
        "the long lists (15 to 131,073 blocks); --no-long-lists: a quicker, weaker check "
        "(default: on)",
        kind="switch",
        default=True,
        shown=True,
        per={"rule infer": {"help": "the verify --rule check's long lists (default: on)"}},
    ),
    Option(
        "--save-failures",
        "replay DIR/*.json first, and save a new failure there as a fixture",
        parse=Path,
        metavar="DIR",
        shown=True,
    ),
    Option(
        "--save",
        "write each case shown as a fixture of NEW (its expected answer NEW's) in DIR, "
        "which verify --rule NEW --save-failures DIR replays",
        parse=Path,
        metavar="DIR",
    ),
    Option(
        "--table",
        "take the settings not given from [tool.packcheck.diff.NAME] instead of "
        "[tool.packcheck.diff]: a named table sets up another diff (against the last "
        "release, against a declared rule...)",
        metavar="NAME",
        rerun=False,
        table=False,
    ),
    Option(
        "--quiet",
        f"{_QUIET}phase and every 10 s)",
        kind="flag",
        short="-q",
        default=False,
        rerun=False,
        per={
            "bench": {"help": f"{_QUIET}workload and size and every 10 s)"},
            "rule infer": {"help": "no progress on stderr"},
        },
    ),
    Option(
        "--format",
        "the report on stdout: text, json (one object) or github (Actions annotations, "
        "then the text) (default: text)",
        choices=formats,
        default="text",
        rerun=False,
        table=False,
        per={
            "pack": {
                "help": "the output on stdout: json, one compact JSON line per case, its only "
                "format (--explain prints a readable trace) (default: json)",
                "choices": ("json",),
                # Not given is told from given: --explain is text, and refuses it.
                "default": None,
            },
            "fixtures": {
                "help": "the report on stdout: text, or json (one object: the counts and "
                "every fixture that failed) (default: text)",
                "choices": ("text", "json"),
            },
            "audit": {
                "help": "the report on stdout: text, or json (one JSON object per violation "
                "({line, check, message, step}), then the summary) (default: text)",
                "choices": ("text", "json"),
            },
            "bench": {
                "help": "the results on stdout: text, or json (one object: a baseline for "
                "--compare); with json the text report and verdict go to stderr (default: "
                "text)",
                "choices": ("text", "json"),
            },
            "rule infer": {
                "help": "stdout: the rule as TOML (default) or one JSON object",
                "choices": ("text", "json"),
            },
            "rule diff": {"help": _ONE_OBJECT, "choices": ("text", "json")},
            "rule show": {"help": _ONE_OBJECT, "choices": ("text", "json")},
        },
    ),
    Option("--json", "the same as --format json", kind="alias", alias="format", const="json"),
    Option(
        "--junit-xml",
        "also write the report as JUnit XML to PATH (a test case per phase)",
        parse=Path,
        metavar="PATH",
        rerun=False,
        table=False,
    ),
    Option(
        "--engine",
        "packing algorithm; the answer is the same (default: reference; numba needs the "
        "extra: pip install 'packcheck[numba]')",
        choices=ENGINES,
        default="reference",
    ),
    Option(
        "--max-line-bytes",
        "refuse, as malformed, an input line (a case, a record, a document read whole, a "
        "CSV table) longer than BYTES, never holding it whole; 64M, 1G, or digits "
        f"(default: {MAX_LINE_BYTES >> 20}M)",
        parse=byte_count,
        metavar="BYTES",
        default=MAX_LINE_BYTES,
    ),
    Option(
        "--explain",
        "print a readable trace per case: steps, partition, why each ID is missing",
        kind="flag",
        default=False,
        group="shown",
    ),
    Option(
        "--trace",
        "print the trace per case as one JSON line (result, steps, partition, reasons)",
        kind="flag",
        default=False,
        group="shown",
    ),
    Option(
        "--record",
        "print each case as a run record (the case plus its partition and result), the "
        "JSON Lines `packcheck audit` reads",
        kind="flag",
        default=False,
        group="shown",
    ),
    Option(
        "--strict",
        "exit 1 when no step left any block out (the run cannot show capture works)",
        kind="flag",
        default=False,
        per={"bench": {"help": "--against: an inconclusive verdict exits 1"}},
    ),
    Option(
        "--kind",
        "what the Python packers are: case-level or kernel-level (default: told apart by "
        "signature, or by trying a small case)",
        choices=kinds,
    ),
    Option(
        "--engines",
        "also time packcheck's NumPy packer in the matrix (default: only without "
        "--packer/--packer-cmd)",
        kind="switch",
    ),
    Option(
        "--max-regression",
        "largest allowed slowdown, against OLD or of a speedup (default: 10%%)",
        parse=fraction,
        metavar="PERCENT",
        default="10%",
    ),
    Option(
        "--time-budget",
        f"--against: wall seconds for the comparison, checks and warm-ups included "
        f"(default: {QUICK_BUDGET:g} with --quick, else {FULL_BUDGET:g}); sampling stops early "
        "where every verdict is clear, and a cell the budget leaves too few pairs is "
        "inconclusive",
        parse=seconds,
        metavar="SECONDS",
    ),
    Option(
        "--plot",
        "plot time per block against n, or with --history speedup per commit",
        metavar="FILE.png",
    ),
    Option("--compare", "exit 1 if a speedup fell", metavar="BASELINE.json"),
    Option("--history", "show the speedups of the --json files in DIR", metavar="DIR"),
    Option("--sizes", "block counts", parse=sizes, metavar="N,N,..."),
    Option("--workload", workload_help, kind="append", metavar="NAME", choices=workloads),
    Option(
        "--reference-limit",
        "run the reference only up to N blocks (default: 1000000)",
        parse=positive(int),
        metavar="N",
        default=10**6,
    ),
    Option("--steps", steps_help, kind="switch"),
    Option(
        "--cases",
        "also time the packers on these recorded cases (files, globs, .gz, fsspec "
        "URLs; JSON Lines, a recorded run, CSV: what pack reads), as a workload of their "
        f"own, 'recorded', first; the first {MAX_CASES:,} cases at most; with --workload "
        "only the workloads named as well",
        metavar="FILE",
        nargs="+",
    ),
    Option(
        "--quick",
        f"{QUICK_REPEAT} repeats, not {FULL_REPEAT}; with --against, n="
        f"{' and '.join(f'{n:,}' for n in QUICK_SIZES)} for kernels, n="
        f"{' and '.join(f'{n:,}' for n in QUICK_CASE_SIZES)} for case-level packers and "
        "commands",
        kind="flag",
        default=False,
    ),
    Option("--repeat", "repeats (overrides --quick)", parse=positive(int), metavar="N"),
    Option(
        "--min-time",
        "time each sample over calls lasting at least this long "
        "(default: 0.02, with --against 0.005)",
        parse=seconds,
        metavar="SECONDS",
    ),
    Option(
        "--clock",
        "thread CPU time (the default: waiting for a busy core is not counted), "
        "process CPU time (all threads), wall time (for a packer that waits or uses "
        "other processes), or command: the thread's CPU time plus that of the command "
        "packers' processes (Linux; the default with a command packer, else wall)",
        choices=clocks,
    ),
)

#: The options each command takes, in the order its ``--help`` lists them.
TAKES: Mapping[str, tuple[str, ...]] = {
    "verify": (
        "--packer", "--packer-cmd", "--rule", "--seed", "--seeds", "--workers", "--scheduler",
        "--connect-timeout", "--max-examples", "--max-units", "--timeout", "--partition",
        "--long-lists", "--save-failures", "--quiet", "--format", "--junit-xml",
    ),
    "diff": (
        "--packer", "--packer-cmd", "--against", "--against-cmd", "--rule", "--seed",
        "--seeds", "--workers", "--scheduler", "--connect-timeout", "--max-examples",
        "--max-units", "--timeout", "--count", "--long-lists", "--save-failures", "--table",
        "--quiet", "--format", "--junit-xml",
    ),
    "pack": (
        "--engine", "--max-line-bytes", "--explain", "--trace", "--record", "--rule",
        "--packer", "--packer-cmd", "--workers", "--scheduler", "--connect-timeout",
        "--format",
    ),
    "audit": (
        "--max-line-bytes", "--format", "--json", "--strict", "--rule", "--workers",
        "--scheduler", "--connect-timeout",
    ),
    "fixtures": ("--rule", "--engine", "--max-line-bytes", "--format"),
    "bench": (
        "--packer", "--packer-cmd", "--against", "--against-cmd", "--kind", "--timeout",
        "--engines", "--max-regression", "--time-budget", "--strict", "--format", "--json",
        "--plot", "--compare", "--history", "--quiet", "--sizes", "--workload",
        "--reference-limit", "--steps", "--seed", "--cases", "--rule", "--max-line-bytes",
        "--quick", "--repeat", "--min-time", "--clock",
    ),
    "rule infer": (
        "--packer", "--packer-cmd", "--seed", "--max-examples", "--max-units", "--timeout",
        "--long-lists", "--format", "--quiet",
    ),
    "rule diff": ("--seed", "--max-examples", "--max-cases", "--save", "--format", "--quiet"),
    "rule show": ("--format",),
}  # fmt: skip

_BY_FLAG = {option.flag: option for option in OPTIONS}


def options(command: str) -> Iterator[Option]:
    """The options ``command`` takes, as it takes them, in its ``--help``'s order."""
    return (_BY_FLAG[flag].of(command) for flag in TAKES[command])


def add_options(
    addoption: Callable[..., Any],
    command: str,
    prefix: str = "",
    grouped: Callable[[str], Callable[..., Any]] | None = None,
    only: Sequence[str] | None = None,
) -> None:
    """Add ``command``'s options (``only`` these flags, if given) through ``addoption``,
    each ``--PREFIXNAME`` (its value at ``PREFIX_NAME``); ``grouped(group)``: the
    ``addoption`` of a group whose options exclude one another."""
    for flag in TAKES[command]:
        if only is not None and flag not in only:
            continue  # its Later values are never made
        option = _BY_FLAG[flag].of(command)
        names = [f"--{prefix}{option.flag[2:]}"]
        if option.short is not None and not prefix:
            names.append(option.short)
        default = None if command in CONFIGURED and option.table else option.default
        kwargs: dict[str, Any] = {"help": option.help}
        if prefix:
            kwargs["dest"] = (prefix + option.dest).replace("-", "_")
        if option.kind == "switch":
            kwargs.update(action=argparse.BooleanOptionalAction, default=default)
        elif option.kind == "flag":
            kwargs.update(action="store_true", default=default)
        elif option.kind == "alias":
            kwargs.update(action="store_const", const=option.const)
            kwargs.setdefault("dest", option.dest)
        else:
            kwargs.update(type=option.parse, default=default)
            kwargs.update(metavar=option.metavar, choices=option.choices, nargs=option.nargs)
            kwargs.update(action="append" if option.kind == "append" else "store")
            if option.metavar is None and option.choices is None:
                kwargs["metavar"] = option.dest.upper()
        add = addoption if option.group is None or grouped is None else grouped(option.group)
        add(*names, **kwargs)


def add_arguments(
    parser: argparse.ArgumentParser, command: str, required: Sequence[str] = ()
) -> None:
    """Add ``command``'s options to ``parser``, with its groups of options that exclude
    one another (those named in ``required``: one must be given)."""
    groups: dict[str, Any] = {}

    def grouped(name: str) -> Callable[..., Any]:
        if name not in groups:
            groups[name] = parser.add_mutually_exclusive_group(required=name in required)
        return groups[name].add_argument  # type: ignore[no-any-return]

    add_options(parser.add_argument, command, grouped=grouped)


def writable(text: str, stream: IO[str]) -> str:
    """``text`` with what ``stream``'s encoding cannot write (an ASCII terminal's "é",
    a file name's undecodable bytes) as backslash escapes."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def error(command: str, message: str) -> int:
    """Say an error the user can mend, ``packcheck COMMAND: error: MESSAGE``, on stderr
    in one line (a line break from data escaped); its exit status, 2."""
    _say(command, "error", message)
    return 2


def note(command: str, message: str) -> None:
    """Say ``packcheck COMMAND: note: MESSAGE`` as :func:`error` says its errors."""
    _say(command, "note", message)


def _say(command: str, kind: str, message: str) -> None:
    where = f"packcheck {command}" if command else "packcheck"
    print(writable(one_line(f"{where}: {kind}: {message}"), sys.stderr), file=sys.stderr)


def one_line_errors(parser: argparse.ArgumentParser) -> None:
    """A bad option value is one line (exit 2); an unknown option shows the usage of the
    command it was given to (``args.command_parser``)."""
    parser.set_defaults(command_parser=parser)
    usage_error = parser.error

    def bad_value(message: str) -> NoReturn:
        if message.startswith("argument "):
            parser.exit(error(parser.prog.removeprefix("packcheck").strip(), message))
        usage_error(message)

    parser.error = bad_value  # type: ignore[method-assign]


def cut_off(args: argparse.Namespace, status: int) -> None:
    """A reader that goes away (``| head``) leaves at least ``status``: a check that
    already failed must not turn into a pass."""
    args.status_if_cut_off = max(getattr(args, "status_if_cut_off", 0), status)


def publish(
    command: str, report: str, junit: Path | None, xml: Callable[[], bytes], status: int
) -> int:
    """Print ``report``, write ``xml()`` to ``junit`` if given; the exit status.

    A JUnit file that cannot be written is a one-line error on stderr, exit 2.
    """
    print(report)
    if junit is not None:
        try:
            junit.write_bytes(xml())
        except OSError as exc:
            return error(command, f"--junit-xml {junit}: {exc.strerror}")
    return status
