"""``packcheck verify``: gate any packer (Python or any language) against the rule."""

from __future__ import annotations

import argparse
import math
import random
import re
import shlex
import sys
from pathlib import Path
from typing import Any, NoReturn

from .. import _stop
from .._load import SetupError, load
from .._packers import CallablePacker, CommandPacker, Packer, WorkerPacker
from .._rule.sources import SourceError
from ..strategies import MAX_SAFE_UNITS
from ..verify import _gate as verify
from ..verify._findings import Finding
from ..verify._fixtures import save_fixture, saved_fixtures, seed_fixtures, writable_directory
from ..verify._gate import DEFAULT_MAX_EXAMPLES, DEFAULT_PACKER, Progress
from ..verify._reports import Outcome, github, json_report, junit_xml, text
from . import _config, _reports
from ._progress import progress_for

__all__ = ["DEFAULT_TIMEOUT", "gate", "parse_units", "register", "settings"]

#: ``--max-units`` for packcheck's own packer: budgets and sums past int64.
OWN_MAX_UNITS = 2**70
#: Seconds a packer gets per case (a Python packer runs in a worker process for it).
DEFAULT_TIMEOUT = 10.0
_TERM = r"\d+(?:\*\*\d+)?"
_EXPRESSION = re.compile(rf"{_TERM}(?:[+-]{_TERM})*")
#: The largest ``--max-units`` is ``2**_MAX_BITS``: about 4,200 digits, within what
#: Python (and most JSON readers) will convert between integers and text.
_MAX_BITS = 14_000


def parse_units(text: str) -> int:
    """``--max-units``: digits or a sum of powers such as ``2**70`` or ``2**53-1``."""
    text = text.replace(" ", "").replace("_", "")
    if not _EXPRESSION.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{_clip(text)!r} is not a number such as 9007199254740991 or 2**70"
        )
    total = 0
    for sign, term in re.findall(rf"([+-]?)({_TERM})", text):
        base, _, power = term.partition("**")
        if max(len(base), len(power)) > 4000:  # int() refuses more than 4300 digits
            raise argparse.ArgumentTypeError(f"{_clip(term)} is too large (at most 2**{_MAX_BITS})")
        value, exponent = int(base), int(power or 1)
        if value > 1 and exponent * math.log2(value) > _MAX_BITS + 1:
            raise argparse.ArgumentTypeError(f"{_clip(term)} is too large (at most 2**{_MAX_BITS})")
        total += -(value**exponent) if sign == "-" else value**exponent
    if total < 1:
        raise argparse.ArgumentTypeError(f"{_clip(text)} must be at least 1")
    if total > 2**_MAX_BITS:
        raise argparse.ArgumentTypeError(f"{_clip(text)} is too large (at most 2**{_MAX_BITS})")
    return total


def _clip(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:37]}..."


def _positive(kind: type[int] | type[float]) -> Any:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not value > 0 or value == math.inf:
            raise argparse.ArgumentTypeError(f"{text} must be greater than 0")
        return value

    return parse


def _timeout(text: str) -> float:
    """``--timeout``: seconds, or 0 for none."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"{text} must be 0 (no timeout) or more")
    return value


def _seed(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return int(text)


def _one_line_errors(parser: argparse.ArgumentParser) -> None:
    """A bad option value is one line (exit 2); an unknown option shows the usage."""
    usage_error = parser.error

    def error(message: str) -> NoReturn:
        if message.startswith("argument "):
            parser.exit(2, f"{parser.prog}: error: {message}\n")
        usage_error(message)

    parser.error = error  # type: ignore[method-assign]


def register(commands: Any) -> None:
    """Add ``verify`` to the ``packcheck`` subcommands."""
    p = commands.add_parser(
        "verify",
        help="check a packer against the declared rule on fixtures and generated cases",
        description=(
            "Check a packer against the declared rule: the seed fixtures and any saved "
            "failures first, then generated cases compared with the reference and the "
            "invariant checker. With no packer option, packcheck's own NumPy packer is "
            "checked. Options not given are read from [tool.packcheck] in the nearest "
            "pyproject.toml. Exit 0 conformant, 1 with a shrunk counterexample, 2 on a "
            "usage or setup error."
        ),
    )
    _one_line_errors(p)
    # Every default is None: an option not given may come from [tool.packcheck].
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--packer",
        metavar="MODULE:FUNCTION",
        help="a Python function case -> output: MODULE:FUNCTION (the current directory "
        "is importable) or PATH.py:FUNCTION",
    )
    which.add_argument(
        "--packer-cmd",
        metavar="COMMAND",
        help="a program reading one JSON case per line and printing one JSON output per line",
    )
    p.add_argument("--seed", type=_seed, help="reproduce a run (default: random, printed)")
    p.add_argument(
        "--max-examples",
        type=_positive(int),
        metavar="N",
        help=f"generated cases (default: {DEFAULT_MAX_EXAMPLES})",
    )
    p.add_argument(
        "--max-units",
        type=parse_units,
        metavar="N",
        help="largest generated magnitude, digits or e.g. 2**70 (default: 2**53-1, what "
        "every JSON implementation holds exactly; 2**70 for packcheck's own packer)",
    )
    p.add_argument(
        "--timeout",
        type=_timeout,
        metavar="SECONDS",
        help=f"per case, then the case fails (default: {DEFAULT_TIMEOUT:g}); a Python "
        "packer runs in a worker process for it; 0: no timeout, a Python packer runs "
        "in this process",
    )
    p.add_argument(
        "--partition",
        action=argparse.BooleanOptionalAction,
        help='every answer but {"error":"size"} must capture its partition '
        "(packed, available, dropped); a captured one is checked with or without this",
    )
    p.add_argument(
        "--long-lists",
        action=argparse.BooleanOptionalAction,
        help="the long lists (15 to 131,073 blocks); --no-long-lists: a quicker, weaker "
        "check (default: on)",
    )
    p.add_argument(
        "--save-failures",
        type=Path,
        metavar="DIR",
        help="replay DIR/*.json first, and save a new counterexample there as a fixture",
    )
    _reports.add_options(p)
    p.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        default=None,
        help="no progress on stderr (default: a live line on a terminal, else a line "
        "per phase and every 10 s)",
    )
    p.set_defaults(run=run_verify)


#: What an option not given on the command line nor in [tool.packcheck] is.
_DEFAULTS: dict[str, Any] = {
    "packer": None,
    "packer_cmd": None,
    "seed": None,
    "max_examples": DEFAULT_MAX_EXAMPLES,
    "max_units": None,
    "timeout": None,
    "partition": False,
    "long_lists": True,
    "save_failures": None,
    "format": "text",
    "junit_xml": None,
    "quiet": False,
}


def settings(
    args: argparse.Namespace, parser: argparse.ArgumentParser, start: Path | None = None
) -> argparse.Namespace:
    """The run's settings: the command line's, then ``[tool.packcheck]``'s, then defaults.

    A packer named on the command line replaces both packer keys of the table.
    Raises :class:`_config.ConfigError`.
    """
    return _config.resolve(
        args,
        parser,
        _DEFAULTS,
        start=Path.cwd() if start is None else start,
        choices=[("packer", "packer_cmd")],
    )


def _timeout_of(s: argparse.Namespace) -> float | None:
    """Seconds the packer gets per case; ``None``: no timeout, run in this process."""
    own = s.packer is None and s.packer_cmd is None
    if s.timeout == 0 or (own and s.timeout is None):
        return None
    return DEFAULT_TIMEOUT if s.timeout is None else float(s.timeout)


def _packer(s: argparse.Namespace) -> tuple[Packer, str]:
    """The adapter for the packer settings, and its name; raises :class:`SetupError`.

    A packer gets ``timeout`` seconds a case (default :data:`DEFAULT_TIMEOUT`); a
    Python one runs in a worker process for that, except packcheck's own when no
    timeout is asked for.  ``--timeout 0``: no timeout, a Python packer in-process.
    """
    timeout = _timeout_of(s)
    if s.packer_cmd is not None:
        command = CommandPacker(s.packer_cmd, timeout or math.inf)
        command.start()
        return command, f"command {s.packer_cmd!r}"
    spec = s.packer or DEFAULT_PACKER
    name = s.packer or "packcheck's NumPy packer"
    if timeout is None:
        return CallablePacker(load(spec)), name
    worker = WorkerPacker(spec, timeout)
    worker.start()
    return worker, name


def _power_text(units: int) -> str:
    """``2**70`` or ``2**53-1`` where ``units`` has that form, else its digits."""
    for exact, suffix in ((units, ""), (units + 1, "-1")):
        if exact >= 2**8 and exact & (exact - 1) == 0:
            return f"2**{exact.bit_length() - 1}{suffix}"
    return str(units)


def _rerun(s: argparse.Namespace, seed: int) -> str:
    """The command that repeats this run: every setting that changes what it checks
    (those read from [tool.packcheck] too, so it repeats the run from anywhere)."""
    words = ["packcheck", "verify"]
    if s.packer:
        words += ["--packer", s.packer]
    if s.packer_cmd:
        words += ["--packer-cmd", s.packer_cmd]
    words += ["--seed", str(seed)]
    if s.max_examples != DEFAULT_MAX_EXAMPLES:
        words += ["--max-examples", str(s.max_examples)]
    if s.max_units is not None:
        words += ["--max-units", _power_text(s.max_units)]
    if s.timeout is not None:
        words += ["--timeout", f"{s.timeout:g}"]
    if s.partition:
        words.append("--partition")
    if not s.long_lists:
        words.append("--no-long-lists")
    if s.save_failures is not None:
        words += ["--save-failures", str(s.save_failures)]
    return shlex.join(words)


def _max_units(s: argparse.Namespace) -> int:
    """``--max-units``, or its default: past int64 for packcheck's own packer, whose
    integers are exact at any size (its kernel's int64 edges are checked too)."""
    if s.max_units is not None:
        return int(s.max_units)
    own = s.packer is None and s.packer_cmd is None
    return OWN_MAX_UNITS if own else MAX_SAFE_UNITS


def _save(finding: Finding, directory: Path) -> Path:
    return save_fixture(finding.fixture(), directory)


def _settings_shown(s: argparse.Namespace) -> dict[str, Any]:
    """What decides what a run checks, for the JSON and JUnit reports."""
    return {
        "max_examples": s.max_examples,
        "max_units": _power_text(_max_units(s)),
        "timeout": _timeout_of(s),
        "partition": s.partition,
        "long_lists": s.long_lists,
        "save_failures": None if s.save_failures is None else str(s.save_failures),
    }


def gate(s: argparse.Namespace, progress: Progress | None = None) -> Outcome:
    """Run the gate with the settings ``s``; raises :class:`OSError`,
    :class:`SourceError` or :class:`SetupError` when it cannot run at all."""
    seed = s.seed if s.seed is not None else random.SystemRandom().randrange(2**32)
    _stop.note(rerun=_rerun(s, seed), save=s.save_failures)  # said if stopped
    fixtures = seed_fixtures()
    if s.save_failures is not None:
        writable_directory(s.save_failures)
        fixtures += saved_fixtures(s.save_failures)
    if s.junit_xml is not None:
        _reports.writable_file(s.junit_xml)
    packer, name = _packer(s)
    try:
        summary = verify.run(
            packer,
            seed=seed,
            max_examples=s.max_examples,
            max_units=_max_units(s),
            fixtures=fixtures,
            long_lists=s.long_lists,
            progress=progress,
            partition=s.partition,
        )
    finally:
        packer.close()
    finding = summary.finding
    saved = None
    fresh = finding is not None and not finding.origin.startswith("fixture")
    if fresh and s.save_failures is not None:
        assert finding is not None
        try:
            path = _save(finding, s.save_failures)
            saved = f"{path} (replayed first by the next run with --save-failures)"
        except OSError as exc:
            saved = f"nothing: {exc.strerror or exc}"
    return Outcome(summary, name, _rerun(s, seed), saved, _settings_shown(s))


def run_verify(args: argparse.Namespace) -> int:
    """Verify the chosen packer; 0 conformant, 1 counterexample, 2 usage/setup error."""
    try:
        s = settings(args, args.command_parser)
    except _config.ConfigError as exc:
        print(f"packcheck verify: error: {exc}", file=sys.stderr)
        return 2
    progress = progress_for(sys.stderr, s.quiet)
    try:
        outcome = gate(s, progress)
        if progress is not None:
            progress.finish()
    except (OSError, SourceError, SetupError) as exc:
        # SetupError also when a command ended before answering any case.
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"packcheck verify: {_config.attributed(why, s.origins)}", file=sys.stderr)
        return 2
    finally:
        if progress is not None:
            progress.close()
    if outcome.status:
        args.status_if_cut_off = 1  # a reader that goes away must not turn this into a pass
    report = {"text": text, "json": json_report, "github": github}[s.format](outcome)
    return _reports.publish(
        "verify", report, s.junit_xml, lambda: junit_xml(outcome), outcome.status
    )
