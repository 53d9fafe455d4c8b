"""``packcheck bench``: time packers side by side, gate on speed, track it over time.

Three modes: ``--against OLD`` (the gate: NEW against OLD in one process, see
:mod:`.bench_ab`), the matrix (every packer against the reference at every size,
optionally checked against a stored baseline with ``--compare``; with ``--steps``
the engines at the sizes agents pack after it), and ``--history
DIR`` (the speedups of stored ``--json`` results, per commit).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, cast

from .._engines import compiled
from .._engines import levels as scan
from .._load import SetupError, load
from ..bench import _run as bench
from ..bench._workloads import WORKLOADS
from .bench_ab import QUICK_BUDGET, run_ab
from .bench_plot import draw, draw_history
from .bench_show import progress, progress_done, table, table_history, table_steps, write_json

__all__ = ["register"]

_QUICK_REPEAT = 3
_FULL_REPEAT = 9
_NEW = "packcheck.scan:pack_sizes"


def register(commands: Any) -> None:
    """Add ``bench`` to the ``packcheck`` subcommands."""
    p = commands.add_parser(
        "bench",
        help="time packers side by side; gate a change on speed",
        description=(
            "With --against OLD: time NEW (--packer, default the installed NumPy packer) "
            "against OLD in one process, in pairs on the same inputs, and judge each "
            "workload slower, faster, same or inconclusive; exit 1 on a confident "
            "slowdown beyond --max-regression or on differing answers. Without it: time "
            "the NumPy packer (and any --packer) against the reference on seeded typical "
            "and adversarial workloads at 10 to 10**6 blocks; a speedup is the "
            "reference's time over the packer's, from the same run; then (--steps) the "
            "engines at the sizes agents pack, whole-case calls and a batch of steps, each "
            "pair timed in turn; exit 1 on a wrong answer or, with --compare, on a "
            "speedup regression of the matrix. --history DIR shows the "
            "speedups of stored --json results. Exit 2 on a usage error."
        ),
    )
    p.add_argument(
        "--packer",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help="a pack_sizes(budget, int64 sizes) function, or PATH.py:FUNCTION (a file of "
        "another checkout, loaded as part of its package); with --against, NEW",
    )
    p.add_argument(
        "--against",
        metavar="MODULE:FUNCTION",
        help="OLD: time --packer against it, in pairs, and gate on the verdicts",
    )
    p.add_argument(
        "--max-regression",
        default="10%",
        type=_fraction,
        metavar="PERCENT",
        help="largest allowed slowdown, against OLD or of a speedup (default: 10%%)",
    )
    p.add_argument(
        "--time-budget",
        type=_seconds,
        metavar="SECONDS",
        help=f"--against: wall seconds for sampling (default: {QUICK_BUDGET:g} with --quick, "
        "else 120); sampling stops early where every verdict is clear",
    )
    p.add_argument(
        "--strict", action="store_true", help="--against: an inconclusive verdict exits 1"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help=f"{_QUICK_REPEAT} repeats, not {_FULL_REPEAT}; with --against, n=100000 only",
    )
    p.add_argument("--json", metavar="FILE", help="write the results as JSON (a baseline)")
    p.add_argument(
        "--plot",
        metavar="FILE.png",
        help="plot time per block against n, or with --history speedup per commit",
    )
    p.add_argument("--compare", metavar="BASELINE.json", help="exit 1 if a speedup fell")
    p.add_argument("--history", metavar="DIR", help="show the speedups of the --json files in DIR")
    p.add_argument("--sizes", type=_sizes, metavar="N,N,...", help="block counts")
    p.add_argument(
        "--workload",
        action="append",
        choices=list(WORKLOADS),
        metavar="NAME",
        # argparse expands %-formats in help: the names hold % signs.
        help=f"only this workload (repeatable): {', '.join(WORKLOADS).replace('%', '%%')}",
    )
    p.add_argument("--repeat", type=_positive, metavar="N", help="repeats (overrides --quick)")
    p.add_argument(
        "--reference-limit",
        type=_positive,
        default=10**6,
        metavar="N",
        help="run the reference only up to N blocks (default: 1000000)",
    )
    p.add_argument(
        "--min-time",
        type=_seconds,
        metavar="SECONDS",
        help="time each sample over calls lasting at least this long "
        "(default: 0.02, with --against 0.005)",
    )
    p.add_argument(
        "--clock",
        choices=list(bench.CLOCKS),
        default="thread",
        help="thread CPU time (default: waiting for a busy core is not counted), process "
        "CPU time (all threads), or wall time (for a kernel that waits or uses other "
        "processes)",
    )
    p.add_argument(
        "--steps",
        action=argparse.BooleanOptionalAction,
        help="after the matrix, the engines at the sizes agents pack: pack(case) with "
        "either engine at 10, 100 and 1,000 blocks (on the --workload ones, else "
        f"{', '.join(bench.STEP_WORKLOADS).replace('%', '%%')}), and {bench.STEPS:,} "
        "steps of 10-200 blocks: scan.pack_batch against the reference once per step, "
        'pack_many(engine="numpy") against pack case by case (default: on when neither '
        "--sizes nor --workload narrows the matrix)",
    )
    p.add_argument("--seed", type=int, default=0, help="data seed (default: 0)")
    p.set_defaults(run=run_bench)


def _fraction(text: str) -> float:
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage like 10%") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0% and 100%")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number >= 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds >= 0")
    return value


def _sizes(text: str) -> tuple[int, ...]:
    return tuple(_positive(part) for part in text.split(","))


class _Usage(Exception):
    """A usage or setup error: one line, exit status 2."""


def run_bench(args: argparse.Namespace) -> int:
    """Dispatch to the mode asked for; 2 on a usage or setup error."""
    try:
        _check_modes(args)
        plot = _pyplot() if args.plot else None
        if args.history:
            return _run_history(args, _history(args.history), plot)
        kernels = {spec: _load(spec) for spec in args.packer}
        if args.against:
            new = kernels[args.packer[0]] if args.packer else scan.pack_sizes
            return run_ab(args, new, _load(args.against))
        baseline = _baseline(args.compare) if args.compare else None
    except _Usage as exc:
        print(f"packcheck: {exc}", file=sys.stderr)
        return 2
    return _run_matrix(args, {"numpy": scan.pack_sizes, **_compiled(), **kernels}, baseline, plot)


def _compiled() -> dict[str, bench.Kernel]:
    """The compiled engine as a column, the limit the NumPy one is measured against,
    where the ``numba`` extra is installed (its first call, untimed, compiles it)."""
    if importlib.util.find_spec("numba") is None:
        return {}
    return {"numba": compiled.pack_sizes}


def _check_modes(args: argparse.Namespace) -> None:
    if args.history and (args.against or args.compare or args.packer or args.json or args.steps):
        raise _Usage("--history reads stored results: it takes only --plot")
    if args.against and args.steps:
        raise _Usage("--steps adds the engines at agent sizes to the matrix; not with --against")
    if args.against and (args.compare or args.plot or len(args.packer) > 1):
        raise _Usage("--against compares one --packer (NEW) with OLD; no --compare or --plot")
    if not args.against and (args.strict or args.time_budget is not None):
        raise _Usage("--strict and --time-budget apply to --against only")


def _run_matrix(
    args: argparse.Namespace,
    packers: dict[str, bench.Kernel],
    baseline: bench.Report | None,
    plot: Any,
) -> int:
    repeat = args.repeat or (_QUICK_REPEAT if args.quick else _FULL_REPEAT)
    min_time = 0.02 if args.min_time is None else args.min_time
    shown = progress()
    narrowed = args.sizes is not None or args.workload is not None
    steps = None
    try:
        report = bench.run(
            packers=packers,
            sizes=args.sizes or bench.DEFAULT_SIZES,
            workloads=args.workload,
            repeat=repeat,
            seed=args.seed,
            reference_limit=args.reference_limit,
            min_time=min_time,
            clock=args.clock,
            progress=shown,
        )
        if args.steps or (args.steps is None and not narrowed):
            steps = bench.run_steps(
                workloads=args.workload,
                repeat=repeat,
                seed=args.seed,
                min_time=min_time,
                clock=args.clock,
                progress=shown,
            )
    except bench.BenchError as exc:
        print(f"packcheck: {exc}", file=sys.stderr)
        return 1
    finally:
        progress_done()
    print(table(report, repeat))
    if steps is not None:
        print(f"\n{table_steps(steps, repeat)}")
    try:
        if args.json:
            data = report.to_json()
            write_json(args.json, data if steps is None else {**data, "steps": steps.to_json()})
        if plot is not None:
            draw(report, plot, args.plot)
    except OSError as exc:
        print(f"packcheck: {exc.filename}: cannot write: {exc.strerror}", file=sys.stderr)
        return 2
    return 0 if baseline is None else _gate(args, baseline, report)


def _gate(args: argparse.Namespace, baseline: bench.Report, report: bench.Report) -> int:
    machines, versions = bench.differences(baseline, report)
    if machines:
        print(f"note: this comparison is across machines ({'; '.join(machines)})")
    if versions:
        print(f"note: this comparison is across versions ({'; '.join(versions)})")
    if baseline.clock != report.clock:
        print(f"note: the baseline was timed on the {baseline.clock} clock, this run on the "
              f"{report.clock} clock")  # fmt: skip
    if machines or versions:
        print("note: speedups cancel only part of such differences; to gate a change, time "
              "it against the old code in one run (--against)")  # fmt: skip
    regressions = bench.compare(baseline, report, args.max_regression)
    limit = f"{args.max_regression:.0%}"
    for regression in regressions:
        print(f"REGRESSION {regression}")
    beyond = "beyond the noise of both runs"
    if regressions:
        print(f"{len(regressions)} speedup(s) fell by more than {limit} {beyond}, "
              f"against {args.compare}")  # fmt: skip
        return 1
    print(f"no speedup fell by more than {limit} {beyond}, against {args.compare}")
    return 0


def _run_history(
    args: argparse.Namespace, reports: list[tuple[str, bench.Report]], plot: Any
) -> int:
    print(table_history(reports))
    if plot is not None:
        try:
            draw_history(reports, plot, args.plot)
        except OSError as exc:
            print(f"packcheck: {exc.filename}: cannot write: {exc.strerror}", file=sys.stderr)
            return 2
    return 0


def _load(spec: str) -> bench.Kernel:
    try:
        return cast(bench.Kernel, load(spec))
    except SetupError as exc:
        raise _Usage(str(exc)) from None


def _read_report(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as stream:
            return json.load(stream)
    except OSError as exc:
        raise _Usage(f"{path}: cannot read: {exc.strerror}") from None
    except ValueError as exc:  # JSONDecodeError is one
        raise _Usage(f"{path}: {exc}") from None


def _baseline(path: str) -> bench.Report:
    try:
        return bench.Report.from_json(_read_report(Path(path)))
    except ValueError as exc:
        raise _Usage(f"{path}: {exc}") from None


def _history(directory: str) -> list[tuple[str, bench.Report]]:
    """Every matrix report in ``directory``, oldest first; other JSON files are skipped."""
    if not Path(directory).is_dir():
        raise _Usage(f"{directory}: not a directory")
    paths = sorted(Path(directory).glob("*.json"))
    reports = []
    for path in paths:
        data = _read_report(path)
        if isinstance(data, dict) and data.get("kind") == bench.KIND:
            try:
                reports.append((path.stem, bench.Report.from_json(data)))
            except ValueError as exc:
                raise _Usage(f"{path}: {exc}") from None
    if not reports:
        raise _Usage(f"{directory}: no packcheck bench --json results in it")
    reports.sort(key=lambda item: str(item[1].context.get("created") or ""))
    return reports


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise _Usage("--plot needs matplotlib: pip install 'packcheck[plot]'") from None
    return plt
