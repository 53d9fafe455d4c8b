"""``packcheck bench``: time packers side by side, gate on speed, track it over time.

Three modes: ``--against OLD`` (:mod:`.bench_ab`), the matrix (every packer against
the reference at every size, ``--compare`` with a stored baseline, ``--steps`` after
it), and ``--history DIR`` (the speedups of stored results, per commit).
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import os
import stat
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from .._bench import (
    CASE_SIZES,
    CASE_WORKLOADS,
    COMMAND_CLOCK,
    DEFAULT_SIZES,
    KIND,
    REFERENCE,
    BenchError,
    CaseSubject,
    CommandSubject,
    Kernel,
    KernelSubject,
    Limit,
    Report,
    StepsReport,
    Subject,
    commands_clock,
    compare,
    differences,
    python_subject,
    run,
    run_steps,
)
from .._bench import compared as cells_compared
from .._engines import compiled
from .._engines import numpy_entry as scan
from .._engines.choice import Engine
from .._engines.pack import pack
from .._packers import SetupError, load
from .._rule.declared import Rule
from .._rule.jsonio import dumps, loads, one_line
from .._rule.lines import MAX_LINE_BYTES
from ._options import FULL_REPEAT, QUICK_REPEAT, error
from ._subcommand import Subcommand
from .bench_ab import min_time, run_ab
from .bench_cases import declared_rule, recorded_cases
from .bench_plot import draw, draw_history
from .bench_show import measuring, published, table, table_history, table_steps

_NEW = "packcheck.scan:pack_sizes"


def run_bench(args: argparse.Namespace) -> int:
    """Dispatch to the mode asked for; 2 on a usage or setup error."""
    subjects: list[Subject] = []
    python = args.timeout and (args.packer or args.against)  # a command has its own
    limit = Limit(args.timeout, partial(_expired, subjects)) if python else None
    try:
        try:
            _check_modes(args)
            plot = _pyplot() if args.plot else None
            if args.history:
                reports = _history(args.history)
                print(table_history(reports))
                return 2 if _plotted(partial(draw_history, reports), plot, args.plot) else 0
            rule = declared_rule(args)
            with measuring(quiet=True):  # a packer's prints while it is told apart
                subjects += _subjects(args, limit, rule)
            _check_rule(rule, subjects)
            clock = _clock(args)
            args.recorded, args.read_notes = recorded_cases(args)
            args.declared = rule
            if args.against or args.against_cmd:
                old = subjects.pop()
                new = subjects[0] if subjects else KernelSubject(_NEW, scan.pack_sizes)
                subjects.append(old)  # closed with the others
                return run_ab(args, new, old, clock)
            packers = _matrix(args, subjects, rule)
            # The compiled column is there only where the extra is installed: a baseline
            # recorded without it is still a baseline for the rest.
            required = [name for name in packers if name != "numba"]
            baseline = _baseline(args.compare, required) if args.compare else None
            return _run_matrix(args, packers, baseline, plot, clock)
        except SetupError as exc:  # and a usage error; a path in it may hold a line break
            return error("bench", str(exc))
        except BenchError as exc:  # a wrong answer, or a packer that failed
            print(f"packcheck bench: {exc}", file=sys.stderr)
            if args.format == "json":  # stdout still holds one object: what ended the run
                print(dumps({"error": one_line(str(exc))}))
            return 1
    finally:
        if limit is not None:
            limit.close()
        for subject in subjects:
            subject.close()


def _expired(subjects: list[Subject], reason: str) -> None:
    """A Python packer is past its :class:`Limit` (called from the watchdog thread, the
    packer still running): one line, exit 1."""
    print(f"packcheck bench: {reason}", file=sys.stderr, flush=True)
    for subject in subjects:
        subject.close()
    os._exit(1)


def _check_modes(args: argparse.Namespace) -> None:
    against = args.against or args.against_cmd
    given = args.packer or args.packer_cmd
    timed = args.compare or args.steps or args.cases or args.rule or args.format == "json"
    if args.history and (against or given or timed):
        raise SetupError("--history reads stored results: it takes only --plot")
    if against and (args.steps or args.engines):
        raise SetupError(
            "--steps and --engines add packcheck's engines to the matrix; not with --against"
        )
    if against and (args.compare or args.plot or len(args.packer + args.packer_cmd) > 1):
        raise SetupError("--against compares one --packer (NEW) with OLD; no --compare or --plot")
    if not against and (args.strict or args.time_budget is not None):
        raise SetupError("--strict and --time-budget apply to --against only")


def _check_rule(rule: Rule | None, subjects: list[Subject]) -> None:
    """A declared rule is for case-level packers and commands: a kernel answers only
    packcheck's own rule."""
    if rule is not None and any(subject.family == "kernel" for subject in subjects):
        raise SetupError(
            "--rule times case-level packers and commands; a kernel-level packer "
            "(pack_sizes) packs by packcheck's own rule only"
        )


def _subjects(args: argparse.Namespace, limit: Limit | None, rule: Rule | None) -> list[Subject]:
    """The packers given, Python ones first, then OLD if given, told apart under the
    declared ``rule``; a command is started on its first case."""
    subjects = [
        python_subject(spec, load(spec), args.kind, limit=limit, rule=rule) for spec in args.packer
    ]
    subjects += [CommandSubject(command, args.timeout) for command in args.packer_cmd]
    if args.against:
        old = load(args.against, "--against")
        subjects.append(python_subject(args.against, old, args.kind, "--against", limit, rule))
    if args.against_cmd:
        subjects.append(CommandSubject(args.against_cmd, args.timeout))
    return subjects


def _clock(args: argparse.Namespace) -> str:
    """The clock asked for; by default the thread's, or with a command packer the
    ``command`` clock where the system has it, else the wall clock."""
    command = bool(args.packer_cmd or args.against_cmd)
    if args.clock is None:
        return ("command" if COMMAND_CLOCK else "wall") if command else "thread"
    if command:
        try:
            commands_clock(args.clock)
        except ValueError as exc:
            raise SetupError(str(exc)) from None
    return str(args.clock)


def _matrix(
    args: argparse.Namespace, subjects: list[Subject], rule: Rule | None
) -> dict[str, Subject]:
    """What the matrix times besides the reference: the packers given, and packcheck's
    engines when asked (by default when none is given), case-level under a ``rule``."""
    families = {subject.family for subject in subjects} or ({"case"} if rule else set())
    if len(families) > 1:
        raise SetupError(
            "kernel-level and case-level packers are timed in separate runs (the reference "
            "each is timed against differs)"
        )
    packers = {subject.name: subject for subject in subjects}
    if args.engines or (args.engines is None and not subjects):
        kernels: dict[Engine, Kernel] = {"numpy": scan.pack_sizes}
        if importlib.util.find_spec("numba") is not None:
            kernels["numba"] = compiled.pack_sizes
        own: dict[str, Subject] = {
            name: CaseSubject(name, partial(pack, engine=name, rule=rule))
            if families == {"case"}
            else KernelSubject(name, kernel)
            for name, kernel in kernels.items()
        }
        packers = {**own, **packers}
    if not packers:
        raise SetupError("--no-engines leaves nothing to time: give --packer or --packer-cmd")
    return packers


def _run_matrix(
    args: argparse.Namespace,
    packers: dict[str, Subject],
    baseline: Report | None,
    plot: Any,
    clock: str,
) -> int:
    repeat = args.repeat or (QUICK_REPEAT if args.quick else FULL_REPEAT)
    report, steps = _measure(args, packers, repeat, clock)
    report.notes[:0] = args.read_notes
    text = table(report, repeat)
    data: Callable[[], Any] = report.to_json
    if steps is not None:
        text += f"\n\n{table_steps(steps, repeat)}"
        data = lambda: {**report.to_json(), "steps": steps.to_json()}  # noqa: E731
    out = published(text, data, args.format == "json")
    if _plotted(partial(draw, report), plot, args.plot):
        return 2
    return 0 if baseline is None else _gate(args, baseline, report, out)


def _plotted(drawing: Any, plot: Any, path: str) -> bool:
    """Whether the plot could not be drawn to ``path`` (said in one line)."""
    if plot is not None:
        try:
            drawing(plot, path)
        except OSError as exc:
            error("bench", f"{exc.filename}: cannot write: {exc.strerror}")
            return True
    return False


def _measure(
    args: argparse.Namespace, packers: dict[str, Subject], repeat: int, clock: str
) -> tuple[Report, StepsReport | None]:
    """The matrix, and the steps where asked (by default when nothing narrows it)."""
    least = min_time(args, clock, 0.02)
    cases = any(packer.family == "case" for packer in packers.values())
    narrowed = args.sizes is not None or args.workload is not None
    asked = args.packer or args.packer_cmd
    with measuring(args.quiet) as shown:
        report = run(
            packers=packers,
            sizes=args.sizes or (CASE_SIZES if cases else DEFAULT_SIZES),
            workloads=args.workload or (CASE_WORKLOADS if cases else None),
            repeat=repeat,
            seed=args.seed,
            reference_limit=args.reference_limit,
            min_time=least,
            clock=clock,
            progress=shown,
            recorded=args.recorded,
            rule=args.declared,
        )
        if not (args.steps or (args.steps is None and not narrowed and not asked)):
            return report, None
        steps = run_steps(
            workloads=args.workload,
            repeat=repeat,
            seed=args.seed,
            min_time=least,
            clock=clock,
            progress=shown,
        )
    return report, steps


def _gate(args: argparse.Namespace, baseline: Report, report: Report, out: TextIO) -> int:
    """The comparison with ``--compare``'s baseline, said on ``out``; its exit status."""
    say = partial(print, file=out)
    machines, versions = differences(baseline, report)
    if machines:
        say(f"note: this comparison is across machines ({'; '.join(machines)})")
    if versions:
        say(f"note: this comparison is across versions ({'; '.join(versions)})")
    if baseline.clock != report.clock:
        say(f"note: the baseline was timed on the {baseline.clock} clock, this run on the "
            f"{report.clock} clock")  # fmt: skip
    if machines or versions:
        say("note: speedups cancel only part of such differences; to gate a change, time "
            "it against the old code in one run (--against)")  # fmt: skip
    compared = cells_compared(baseline, report)
    if not compared:
        raise SetupError(
            f"--compare {args.compare}: this run and the baseline share no workload and "
            "size with a speedup: nothing to compare"
        )
    say(f"compared with {args.compare}: {_what(compared)}")
    regressions = compare(baseline, report, args.max_regression)
    limit = f"{args.max_regression:.0%}"
    for regression in regressions:
        say(f"REGRESSION {regression}")
    beyond = "beyond the noise of both runs"
    if regressions:
        say(f"{len(regressions)} speedup(s) fell by more than {limit} {beyond}, "
            f"against {args.compare}")  # fmt: skip
        return 1
    say(f"no speedup fell by more than {limit} {beyond}, against {args.compare}")
    return 0


def _what(compared: list[tuple[str, str, int]]) -> str:
    parts = []
    for engine in dict.fromkeys(e for e, _, _ in compared):
        cells = [(w, n) for e, w, n in compared if e == engine]
        sizes = ", ".join(f"{n:,}" for n in sorted({n for _, n in cells}))
        parts.append(f"{engine} on {len(cells)} workload(s) at n={sizes}")
    return "; ".join(parts)


def _stored_bytes(path: Path, others: bool) -> bytes | None:
    """The bytes at ``path``, read no further than the line limit; with ``others``,
    ``None`` for a FIFO, device or socket (never read).  A pipe given as the path
    (``<(git show main:base.json)``) is read as it is written."""
    # Opened without waiting for a FIFO's writer: one that no one writes to reads empty.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if others and not stat.S_ISREG(mode):
            return None
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(MAX_LINE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_LINE_BYTES:
        raise SetupError(f"{path}: longer than {MAX_LINE_BYTES:,} bytes: not a bench report")
    return data


def _report(path: Path, others: bool = False) -> Report | None:
    """The matrix report stored at ``path``; with ``others``, ``None`` for another
    kind of JSON (which is otherwise an error) and for a FIFO, device or socket."""
    try:
        raw = _stored_bytes(path, others)
        if raw is None:
            return None
        # packcheck's own reader: no NaN, no recursion past its depth, one-line errors.
        data = loads(raw.decode("utf-8"))
        if others and not (isinstance(data, dict) and data.get("kind") == KIND):
            return None
        return Report.from_json(data)
    except OSError as exc:
        raise SetupError(f"{path}: cannot read: {exc.strerror}") from None
    except ValueError as exc:  # JSONError and UnicodeDecodeError are ones
        raise SetupError(f"{path}: {exc}") from None


def _baseline(path: str, engines: list[str]) -> Report:
    """The stored report, holding a baseline for every one of ``engines``."""
    baseline = _report(Path(path))
    assert baseline is not None  # or it raised
    held = [engine for engine in baseline.engines() if engine != REFERENCE]
    missing = [engine for engine in engines if engine not in held]
    if missing:
        raise SetupError(
            f"--compare {path} holds no baseline for {', '.join(missing)}; it holds "
            f"{', '.join(held) or 'no packer'}"
        )
    return baseline


def _history(directory: str) -> list[tuple[str, Report]]:
    """Every matrix report in ``directory``, oldest first; other JSON files are skipped."""
    if not Path(directory).is_dir():
        raise SetupError(f"{directory}: not a directory")
    stored = [(path.stem, _report(path, True)) for path in sorted(Path(directory).glob("*.json"))]
    reports = [(name, report) for name, report in stored if report is not None]
    if not reports:
        raise SetupError(f"{directory}: no packcheck bench --json results in it")
    reports.sort(key=lambda item: str(item[1].context.get("created") or ""))
    return reports


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SetupError("--plot needs matplotlib: pip install 'packcheck[plot]'") from None
    return plt


#: ``register(commands, name)`` adds ``bench`` to the ``packcheck`` subcommands.
register = Subcommand(
    "time packers side by side; gate a change on speed",
    """With --against OLD: time NEW (--packer, default the installed NumPy packer)
    against OLD in one process, in pairs on the same inputs, and judge each workload
    slower, faster, same or inconclusive; exit 1 on a confident slowdown beyond
    --max-regression or on differing answers. Without it: time the NumPy packer (and
    any --packer) against the reference on seeded typical and adversarial workloads
    at 10 to 10**6 blocks; a speedup is the reference's time over the packer's, from
    the same run; then (--steps) the engines at the sizes agents pack, whole-case
    calls and a batch of steps, each pair timed in turn; exit 1 on a wrong answer, a
    packer past --timeout or, with --compare, on a speedup regression of the matrix.
    --history DIR shows the speedups of stored --json results. Exit 2 on a usage
    error.""",
    run_bench,
    "bench",
)
