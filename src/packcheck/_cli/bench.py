"""``packcheck bench``: time the packers side by side, plot them, gate on speedups."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any, cast

from .. import bench, scan
from .._packers import SetupError, load_function
from .._workloads import WORKLOADS

__all__ = ["register"]

_QUICK_REPEAT = 3
_FULL_REPEAT = 9


def register(commands: Any) -> None:
    """Add ``bench`` to the ``packcheck`` subcommands."""
    p = commands.add_parser(
        "bench",
        help="time the packers against the reference, side by side",
        description=(
            "Time the NumPy packer (and any --packer) against the reference on seeded "
            "typical and adversarial workloads at 10 to 10**6 blocks. Every timing is "
            "the median over repeats that run all packers in turn; a speedup is the "
            "reference's time over the packer's, from the same run. Exit 1 on a wrong "
            "answer or, with --compare, on a speedup regression; 2 on a usage error."
        ),
    )
    p.add_argument(
        "--quick", action="store_true", help=f"{_QUICK_REPEAT} repeats, not {_FULL_REPEAT}"
    )
    p.add_argument("--json", metavar="FILE", help="write the timings as JSON (a baseline)")
    p.add_argument("--plot", metavar="FILE.png", help="plot time per block against n (matplotlib)")
    p.add_argument(
        "--packer",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help="also time this pack_sizes(budget, int64 sizes) function (repeatable)",
    )
    p.add_argument("--compare", metavar="BASELINE.json", help="exit 1 if a speedup fell")
    p.add_argument(
        "--max-regression",
        default="10%",
        type=_fraction,
        metavar="PERCENT",
        help="largest allowed fall of a speedup against the baseline (default: 10%%)",
    )
    p.add_argument(
        "--sizes", type=_sizes, default=bench.DEFAULT_SIZES, metavar="N,N,...", help="block counts"
    )
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
        type=float,
        default=0.02,
        metavar="SECONDS",
        help="time each sample over calls lasting at least this long (default: 0.02)",
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


def _sizes(text: str) -> tuple[int, ...]:
    return tuple(_positive(part) for part in text.split(","))


class _Usage(Exception):
    """A usage or setup error: one line, exit status 2."""


def run_bench(args: argparse.Namespace) -> int:
    """Run the matrix, print the table; 1 on a wrong answer or a regression, 2 on usage."""
    try:
        packers: dict[str, bench.Kernel] = {"numpy": scan.pack_sizes}
        packers.update((spec, _load(spec)) for spec in args.packer)
        baseline = _baseline(args.compare) if args.compare else None
        plot = _pyplot() if args.plot else None
    except _Usage as exc:
        print(f"packcheck: {exc}", file=sys.stderr)
        return 2
    repeat = args.repeat or (_QUICK_REPEAT if args.quick else _FULL_REPEAT)
    try:
        report = bench.run(
            packers=packers,
            sizes=args.sizes,
            workloads=args.workload,
            repeat=repeat,
            seed=args.seed,
            reference_limit=args.reference_limit,
            min_time=args.min_time,
            progress=_progress if sys.stderr.isatty() else None,
        )
    except bench.BenchError as exc:
        print(f"packcheck: {exc}", file=sys.stderr)
        return 1
    finally:
        if sys.stderr.isatty():
            print("\r\033[K", end="", file=sys.stderr)
    print(table(report, repeat))
    try:
        if args.json:
            with open(args.json, "w", encoding="utf-8") as stream:
                json.dump(report.to_json(), stream, indent=1)
                stream.write("\n")
        if plot is not None:
            draw(report, plot, args.plot)
    except OSError as exc:
        print(f"packcheck: {exc.filename}: cannot write: {exc.strerror}", file=sys.stderr)
        return 2
    if baseline is None:
        return 0
    regressions = bench.compare(baseline, report, args.max_regression)
    limit = f"{args.max_regression:.0%}"
    for regression in regressions:
        print(f"REGRESSION {regression}")
    if regressions:
        print(f"{len(regressions)} speedup(s) fell by more than {limit} against {args.compare}")
        return 1
    print(f"no speedup fell by more than {limit} against {args.compare}")
    return 0


def _load(spec: str) -> bench.Kernel:
    try:
        return cast(bench.Kernel, load_function(spec))
    except SetupError as exc:
        raise _Usage(str(exc)) from None


def _baseline(path: str) -> bench.Report:
    try:
        with open(path, encoding="utf-8") as stream:
            return bench.Report.from_json(json.load(stream))
    except OSError as exc:
        raise _Usage(f"{path}: cannot read: {exc.strerror}") from None
    except ValueError as exc:  # JSONDecodeError is one
        raise _Usage(f"{path}: {exc}") from None


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise _Usage("--plot needs matplotlib: pip install 'packcheck[plot]'") from None
    return plt


def _progress(message: str) -> None:
    print(f"\r\033[K{message}", end="", file=sys.stderr, flush=True)


def _time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _ratio(speedup: float) -> str:
    return f"{speedup:.1f}x" if speedup < 10_000 else f"{speedup:.2g}x"


def table(report: bench.Report, repeat: int) -> str:
    """The timings, speedups, scaling exponents and a summary, as aligned text."""
    engines = report.engines()
    others = [e for e in engines if e != bench.REFERENCE]
    m = report.machine
    lines = [
        f"median seconds per call over {repeat} repeat(s); speedup = reference / engine, "
        f"same run (Python {m.get('python', '?')}, NumPy {m.get('numpy', '?')})",
        "",
        f"{'workload':<16}{'family':<13}{'n':>10}" + "".join(f"{e:>22}" for e in engines),
    ]
    for name in report.workloads():
        for n in report.sizes():
            cells = []
            for engine in engines:
                text = _time(report.seconds(engine, name, n))
                speedup = report.speedup(engine, name, n)
                if engine != bench.REFERENCE and speedup is not None:
                    text += f" {_ratio(speedup):>7}"
                cells.append(f"{text:>22}")
            lines.append(f"{name:<16}{report.family(name):<13}{n:>10,}" + "".join(cells))
    lines += ["", "scaling exponent (slope of log time against log n)"]
    lines.append(f"{'workload':<29}" + "".join(f"{e:>22}" for e in engines))
    for name in report.workloads():
        slopes = [report.slope(e, name) for e in engines]
        lines.append(
            f"{name:<29}" + "".join(f"{'-' if s is None else f'{s:.2f}':>22}" for s in slopes)
        )
    lines += [""] + [_summary(report, engine) for engine in others]
    return "\n".join(lines).rstrip("\n")


def _summary(report: bench.Report, engine: str) -> str:
    sizes = [
        n for n in report.sizes() if any(report.speedup(engine, w, n) for w in report.workloads())
    ]
    if not sizes:
        return f"{engine}: no speedup measured (the reference did not run)"
    n = sizes[-1]
    parts = []
    for family in ("typical", "adversarial"):
        speedups = {
            w: s
            for w in report.workloads()
            if report.family(w) == family and (s := report.speedup(engine, w, n)) is not None
        }
        if speedups:
            low = min(speedups, key=speedups.__getitem__)
            parts.append(
                f"{family} median {_ratio(statistics.median(speedups.values()))}, "
                f"min {_ratio(speedups[low])} ({low})"
            )
    return f"{engine} at n={n:,}: " + "; ".join(parts)


def draw(report: bench.Report, plt: Any, path: str) -> None:
    """Plot time per block against n, one panel per workload, one line per engine."""
    names = report.workloads()
    columns = min(4, len(names))
    rows = -(-len(names) // columns)
    figure, axes = plt.subplots(
        rows, columns, figsize=(3.2 * columns, 2.6 * rows), squeeze=False, sharex=True
    )
    for index, name in enumerate(names):
        ax = axes[index // columns][index % columns]
        for engine in report.engines():
            points = [
                (n, seconds / n * 1e9)
                for n in report.sizes()
                if (seconds := report.seconds(engine, name, n)) is not None
            ]
            ax.loglog([x for x, _ in points], [y for _, y in points], marker="o", label=engine)
        ax.set_title(f"{name} ({report.family(name)})", fontsize=9)
        ax.tick_params(labelsize=7)
        ax.yaxis.set_minor_formatter(plt.NullFormatter())
        ax.grid(True, which="major", linewidth=0.3)
    for index in range(len(names), rows * columns):
        axes[index // columns][index % columns].axis("off")
    for ax in axes[-1]:
        ax.set_xlabel("n (blocks)", fontsize=8)
    for row in axes:
        row[0].set_ylabel("ns per block", fontsize=8)
    axes[0][0].legend(fontsize=7)
    figure.suptitle("packcheck bench: time per block (lower is faster)", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)
