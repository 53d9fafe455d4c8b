"""``packcheck verify``: gate any packer (Python or any language) against the rule."""

from __future__ import annotations

import argparse
import math
import random
import re
import shlex
import sys
import time
from pathlib import Path
from typing import IO, Any

from .._load import SetupError, load
from .._packers import CallablePacker, CommandPacker, Packer, WorkerPacker
from .._rule.jsonio import dumps
from .._rule.sources import SourceError
from ..strategies import MAX_SAFE_UNITS
from ..verify import _gate as verify
from ..verify._findings import Finding
from ..verify._fixtures import Fixture, read_fixtures, seed_fixtures
from ..verify._gate import DEFAULT_MAX_EXAMPLES, DEFAULT_PACKER

__all__ = ["parse_units", "register"]

#: ``--max-units`` for packcheck's own packer: budgets and sums past int64.
OWN_MAX_UNITS = 2**70
#: Seconds a command packer (or a Python packer given ``--timeout``) gets per case.
DEFAULT_TIMEOUT = 10.0
_TERM = r"\d+(?:\*\*\d+)?"
_EXPRESSION = re.compile(rf"{_TERM}(?:[+-]{_TERM})*")
_MAX_BITS = 1_000_000


def parse_units(text: str) -> int:
    """``--max-units``: digits or a sum of powers such as ``2**70`` or ``2**53-1``."""
    text = text.replace(" ", "").replace("_", "")
    if not _EXPRESSION.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number such as 9007199254740991 or 2**70"
        )
    total = 0
    for sign, term in re.findall(rf"([+-]?)({_TERM})", text):
        base, _, power = term.partition("**")
        value, exponent = int(base), int(power or 1)
        if value > 1 and exponent * math.log2(value) > _MAX_BITS:
            raise argparse.ArgumentTypeError(f"{term} is too large (limit 2**{_MAX_BITS})")
        total += -(value**exponent) if sign == "-" else value**exponent
    if total < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1")
    return total


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


def _seed(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return int(text)


def register(commands: Any) -> None:
    """Add ``verify`` to the ``packcheck`` subcommands."""
    p = commands.add_parser(
        "verify",
        help="check a packer against the declared rule on fixtures and generated cases",
        description=(
            "Check a packer against the declared rule: the seed fixtures and any saved "
            "failures first, then generated cases compared with the reference and the "
            "invariant checker. With no packer option, packcheck's own NumPy packer is "
            "checked. Exit 0 conformant, 1 with a shrunk counterexample, 2 on a usage "
            "or setup error."
        ),
    )
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
        default=DEFAULT_MAX_EXAMPLES,
        metavar="N",
        help=f"generated cases (default: {DEFAULT_MAX_EXAMPLES})",
    )
    p.add_argument(
        "--max-units",
        type=parse_units,
        default=None,
        metavar="N",
        help="largest generated magnitude, digits or e.g. 2**70 (default: 2**53-1, what "
        "every JSON implementation holds exactly; 2**70 for packcheck's own packer)",
    )
    p.add_argument(
        "--timeout",
        type=_positive(float),
        metavar="SECONDS",
        help=f"per case; a Python packer then runs in a worker process (default: "
        f"{DEFAULT_TIMEOUT:g} for --packer-cmd, none in-process)",
    )
    p.add_argument(
        "--partition",
        action="store_true",
        help='every answer but {"error":"size"} must capture its partition '
        "(packed, available, dropped); a captured one is checked with or without this",
    )
    p.add_argument(
        "--no-long-lists",
        action="store_true",
        help="leave out the long lists (15 to 131,073 blocks): a quicker, weaker check",
    )
    p.add_argument(
        "--save-failures",
        type=Path,
        metavar="DIR",
        help="replay DIR/*.json first, and save a new counterexample there as a fixture",
    )
    p.set_defaults(run=run_verify)


def _packer(args: argparse.Namespace) -> tuple[Packer, str]:
    """The adapter for the packer options, and its name; raises :class:`SetupError`."""
    if args.packer_cmd is not None:
        command = CommandPacker(args.packer_cmd, args.timeout or DEFAULT_TIMEOUT)
        command.start()
        return command, f"command {args.packer_cmd!r}"
    spec = args.packer or DEFAULT_PACKER
    name = args.packer or "packcheck's NumPy packer"
    if args.timeout is not None:
        return WorkerPacker(spec, args.timeout), name
    return CallablePacker(load(spec)), name


def _fixtures(directory: Path | None) -> list[Fixture]:
    fixtures = seed_fixtures()
    if directory is not None and directory.is_dir():
        for path in sorted(directory.glob("*.json")):
            fixtures += read_fixtures(path)
    return fixtures


class _Progress:
    """A live line on a terminal's stderr: phase, cases, elapsed; at most ten a second."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self.shown = 0.0

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - self.shown >= 0.1:
            self.shown = now
            count = f"{done}/{total}" if total else f"{done}"
            unit = "tries" if phase == "shrinking" else "cases"
            self.stream.write(
                f"\r\x1b[Kpackcheck verify: {phase}: {count} {unit}, {now - self.started:.0f} s"
            )
            self.stream.flush()

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _power_text(units: int) -> str:
    """``2**70`` or ``2**53-1`` where ``units`` has that form, else its digits."""
    for exact, suffix in ((units, ""), (units + 1, "-1")):
        if exact >= 2**8 and exact & (exact - 1) == 0:
            return f"2**{exact.bit_length() - 1}{suffix}"
    return str(units)


def _rerun(args: argparse.Namespace, seed: int) -> str:
    """The command that repeats this run: every option that changes what it checks."""
    words = ["packcheck", "verify"]
    if args.packer:
        words += ["--packer", args.packer]
    if args.packer_cmd:
        words += ["--packer-cmd", args.packer_cmd]
    words += ["--seed", str(seed)]
    if args.max_examples != DEFAULT_MAX_EXAMPLES:
        words += ["--max-examples", str(args.max_examples)]
    if args.max_units is not None:
        words += ["--max-units", _power_text(args.max_units)]
    if args.timeout is not None:
        words += ["--timeout", f"{args.timeout:g}"]
    if args.partition:
        words.append("--partition")
    if args.no_long_lists:
        words.append("--no-long-lists")
    if args.save_failures is not None:
        words += ["--save-failures", str(args.save_failures)]
    return shlex.join(words)


def _max_units(args: argparse.Namespace) -> int:
    """``--max-units``, or its default: past int64 for packcheck's own packer, whose
    integers are exact at any size (its kernel's int64 edges are checked too)."""
    if args.max_units is not None:
        return int(args.max_units)
    own = args.packer is None and args.packer_cmd is None
    return OWN_MAX_UNITS if own else MAX_SAFE_UNITS


def _save(finding: Finding, directory: Path) -> Path:
    fixture = finding.fixture()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{fixture['id']}.json"
    path.write_text(dumps([fixture]) + "\n", encoding="ascii")
    return path


def _writable_directory(directory: Path) -> None:
    """Raise :class:`OSError` unless ``directory`` is, or can be made, a writable folder."""
    if directory.exists() and not directory.is_dir():
        raise OSError(f"--save-failures {directory}: exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"--save-failures {directory}: {exc.strerror or exc}") from None


def run_verify(args: argparse.Namespace) -> int:
    """Verify the chosen packer; 0 conformant, 1 counterexample, 2 usage/setup error."""
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    try:
        if args.save_failures is not None:
            _writable_directory(args.save_failures)
        fixtures = _fixtures(args.save_failures)
        packer, name = _packer(args)
    except (OSError, SourceError, SetupError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"packcheck verify: {why}", file=sys.stderr)
        return 2
    progress = _Progress(sys.stderr) if sys.stderr.isatty() else None
    try:
        summary = verify.run(
            packer,
            seed=seed,
            max_examples=args.max_examples,
            max_units=_max_units(args),
            fixtures=fixtures,
            long_lists=not args.no_long_lists,
            progress=progress,
            partition=args.partition,
        )
    except SetupError as exc:
        # A command that ended before answering any case never ran as a packer.
        print(f"packcheck verify: {exc}", file=sys.stderr)
        return 2
    finally:
        if progress is not None:
            progress.clear()
        packer.close()
    line = f"{summary.counts()}, seed {seed}, {summary.seconds:.1f} s ({name})"
    finding = summary.finding
    if finding is None:
        print(f"packcheck verify: conformant: {line}")
        return 0
    args.status_if_cut_off = 1  # a reader that goes away must not turn this into a pass
    print(finding.report())
    if args.save_failures is not None and not finding.origin.startswith("fixture"):
        try:
            saved = _save(finding, args.save_failures)
            print(f"saved:    {saved} (replayed first by the next run with --save-failures)")
        except OSError as exc:
            print(f"saved:    nothing: {exc.strerror or exc}")
    print(f"rerun:    {_rerun(args, seed)}")
    print(f"packcheck verify: NOT conformant: {line}")
    return 1
