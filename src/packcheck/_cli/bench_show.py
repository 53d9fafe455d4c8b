"""What ``packcheck bench`` prints and writes: the matrix, A/B and history tables,
progress on stderr, JSON."""

from __future__ import annotations

import contextlib
import json
import math
import os
import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

from .._bench import CALLS, REFERENCE, TIE, VERDICTS, ABReport, Report, StepsReport
from .._rule.jsonio import one_line

_KIND_NAMES = {"kernel": "kernel-level", "case": "case-level", "command": "JSON Lines command"}


@contextlib.contextmanager
def measuring(quiet: bool) -> Iterator[Any]:
    """Progress on stderr as ``verify`` shows it (none when ``quiet``), and a Python
    packer's own prints kept out of the report."""
    from ._progress import showing  # it loads the gate (Hypothesis): only to measure

    with (
        showing("bench", quiet) as shown,
        open(os.devnull, "w") as null,
        contextlib.redirect_stdout(null),
    ):
        yield shown


def published(text: str, data: Callable[[], Any], as_json: bool) -> TextIO:
    """Print ``text``; ``as_json``: on stderr, and ``data()`` on stdout as JSON.  The
    stream the rest of the report goes to."""
    out = sys.stderr if as_json else sys.stdout
    print(text, file=out)
    if as_json:
        print(json.dumps(data(), indent=1))
    return out


def format_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 999.5:  # three figures would need an exponent
        return f"{seconds:,.0f} s"
    # The unit is chosen after rounding: 0.9996 ms is "1 ms", never "1e+03 µs".
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        shown = f"{seconds / scale:.3g}"
        if float(shown) >= 1:
            return f"{shown} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_ratio(speedup: float) -> str:
    return f"{speedup:.1f}x" if speedup < 10_000 else f"{speedup:.2g}x"


def table(report: Report, repeat: int) -> str:
    engines = report.engines()
    others = [e for e in engines if e != REFERENCE]
    width = max([22, *(len(e) + 2 for e in engines)])
    m = report.machine
    lines = [
        f"median seconds per call over {repeat} repeat(s) of each packer; speedup = "
        "reference / packer, the median of the repeats' ratios (each repeat times both "
        f"back to back), same run (Python {m.get('python', '?')}, NumPy {m.get('numpy', '?')})",
        "",
        f"{'workload':<16}{'family':<13}{'n':>10}" + "".join(f"{e:>{width}}" for e in engines),
    ]
    for name in report.workloads():
        for n in report.sizes():
            if all(report.seconds(engine, name, n) is None for engine in engines):
                continue  # a size of other workloads only (the recorded cases' count)
            cells = []
            for engine in engines:
                text = format_time(report.seconds(engine, name, n))
                speedup = report.speedup(engine, name, n)
                if engine != REFERENCE and speedup is not None:
                    text += f" {format_ratio(speedup):>7}"
                cells.append(f"{text:>{width}}")
            lines.append(f"{name:<16}{report.family(name):<13}{n:>10,}" + "".join(cells))
    lines += ["", "scaling exponent (slope of log time against log n)"]
    lines.append(f"{'workload':<29}" + "".join(f"{e:>{width}}" for e in engines))
    for name in report.workloads():
        slopes = [report.slope(e, name) for e in engines]
        lines.append(
            f"{name:<29}" + "".join(f"{'-' if s is None else f'{s:.2f}':>{width}}" for s in slopes)
        )
    lines += ["", "crossover: the smallest n from which the engine is faster than the reference "
              "at every larger n measured"]  # fmt: skip
    lines.append(f"{'workload':<29}" + "".join(f"{e:>{width}}" for e in others))
    for name in report.workloads():
        points = [crossover(report, e, name) for e in others]
        lines.append(
            f"{name:<29}" + "".join(f"{'-' if n is None else f'{n:,}':>{width}}" for n in points)
        )
    lines += [""] + [_summary(report, engine) for engine in others]
    return "\n".join([*lines, *_notes(report.notes)]).rstrip("\n")


def crossover(report: Report, engine: str, name: str) -> int | None:
    """The smallest n from which ``engine``'s speedup on ``name`` is above 1 at every
    larger n with a speedup; ``None`` if it is not at the largest (or there is none)."""
    speedups = [
        (n, s) for n in report.sizes() if (s := report.speedup(engine, name, n)) is not None
    ]
    found = None
    for n, speedup in reversed(speedups):
        if speedup <= 1:
            break
        found = n
    return found


def _summary(report: Report, engine: str) -> str:
    built_in = [w for w in report.workloads() if report.family(w) != "recorded"]
    recorded = [
        f"{w} (n={n:,}) {format_ratio(s)}"
        for w in report.workloads()
        for n in report.sizes()
        if report.family(w) == "recorded" and (s := report.speedup(engine, w, n)) is not None
    ]
    sizes = [n for n in report.sizes() if any(report.speedup(engine, w, n) for w in built_in)]
    if not sizes:
        if recorded:
            return f"{engine}: " + "; ".join(recorded)
        return f"{engine}: no speedup measured (the reference did not run)"
    n = sizes[-1]
    parts = list(recorded)
    for family in ("typical", "adversarial"):
        speedups = {
            w: s
            for w in report.workloads()
            if report.family(w) == family and (s := report.speedup(engine, w, n)) is not None
        }
        if speedups:
            low = min(speedups, key=speedups.__getitem__)
            parts.append(
                f"{family} median {format_ratio(statistics.median(speedups.values()))}, "
                f"min {format_ratio(speedups[low])} ({low})"
            )
    return f"{engine} at n={n:,}: " + "; ".join(parts)


def table_steps(report: StepsReport, repeat: int) -> str:
    lines = [
        f"engines at the sizes agents pack: median seconds per call over {repeat} repeat(s); "
        "speedup = reference side / numpy side, each repeat's pair timed back to back; "
        f"faster: the side ahead by more than {TIE:.0%} across the speedup's interval",
        "",
        f"{'call':<12}{'workload':<16}{'blocks':>16}{'reference':>12}{'numpy':>12}"
        f"{'speedup':>9}{'interval':>18}  faster",
    ]
    for t in report.timings:
        blocks = f"{t.blocks:,}" if t.cases == 1 else f"{t.cases:,} x {t.fewest}-{t.most}"
        middle, low, high = (
            f"{r:.2f}x" if r < 10 else format_ratio(r) for r in t.speedup_interval()
        )
        interval = f"[{low}, {high}]"
        lines.append(
            f"{t.call:<12}{t.workload:<16}{blocks:>16}"
            f"{format_time(statistics.median(t.reference_samples)):>12}"
            f"{format_time(statistics.median(t.numpy_samples)):>12}"
            f"{middle:>9} {interval:>17}  {t.faster()}"
        )
    lines.append("")
    for call in dict.fromkeys(t.call for t in report.timings):
        theirs, ours = CALLS[call]
        lines.append(f"{call}: reference side {theirs}; numpy side {ours}")
    if any(t.call in ("pack(case)", "pack_many") for t in report.timings):
        lines.append(
            "pack(case) and pack_many read and pack plain cases such as these in one loop "
            "with either engine (packcheck.pack says why): their two sides differ only by noise"
        )
    return "\n".join(lines).rstrip("\n")


def table_ab(report: ABReport, new_spec: str, old_spec: str) -> str:
    level = f"{report.confidence:.0%}"
    new_kind, old_kind = (_KIND_NAMES[kind] for kind in report.kinds)
    lines = [
        f"NEW {new_spec} ({new_kind})",
        f"OLD {old_spec} ({old_kind})",
        f"seconds per call on the {report.clock} clock in the median pair of NEW and OLD, "
        f"timed back to back in random order; NEW/OLD is their ratio, the median of the "
        f"pairs' ratios, with its {level} sign-test interval; threshold {report.threshold:.0%}",
        "",
        f"{'workload':<16}{'family':<13}{'n':>10}{'NEW':>11}{'OLD':>11}{'NEW/OLD':>9}"
        f"{level + ' interval':>18}{'pairs':>7}  verdict",
    ]
    for c in report.comparisons:
        e = c.estimate
        if e.pairs:
            times = f"{format_time(c.new_seconds):>11}{format_time(c.old_seconds):>11}"
            # Fewer pairs than the confidence needs (cut short by the budget): no interval.
            interval = f"[{e.low:.2f}x, {e.high:.2f}x]" if math.isfinite(e.high) else "-"
            ratio = f"{e.ratio:>8.2f}x {interval:>17}"
        else:  # the time budget left this cell no pair
            times, ratio = f"{'-':>11}{'-':>11}", f"{'-':>9}{'-':>18}"
        lines.append(
            f"{c.workload:<16}{c.family:<13}{c.n:>10,}{times}{ratio}{e.pairs:>7}  {e.verdict}"
        )
    tally = ", ".join(f"{report.counts[v]} {v}" for v in VERDICTS)
    lines += ["", f"{tally} in {report.seconds:.1f} s", *_notes(report.notes)]
    return "\n".join(lines)


def _notes(notes: Sequence[str]) -> list[str]:
    return [one_line(f"note: {note}") for note in notes]


def table_history(reports: Sequence[tuple[str, Report]]) -> str:
    """Each engine's speedup per workload, one line per report, oldest first, at the
    largest size every report has (:func:`history_size`), else each one's largest."""
    names = list(dict.fromkeys(w for _, r in reports for w in r.workloads()))
    sizes = [history_size(reports, w) for w in names]
    lines = [
        "speedup over the reference per report (oldest first), per workload at the n shown",
        "",
        f"{'created':<27}{'commit':<14}{'engine':<12}" + "".join(f"{w:>17}" for w in names),
        f"{'':<53}" + "".join(f"{'*' if n is None else f'n={n:,}':>17}" for n in sizes),
    ]
    for _, report in reports:
        commit = str(report.context.get("commit") or "-")[:12]
        created = str(report.context.get("created") or "-")
        for engine in [e for e in report.engines() if e != REFERENCE]:
            cells = [history_point(report, engine, w, n) for w, n in zip(names, sizes, strict=True)]
            lines.append(
                f"{created:<27}{commit:<14}{engine:<12}"
                + "".join(f"{'-' if c is None else format_ratio(c[0]):>17}" for c in cells)
            )
    if None in sizes:
        lines += ["", "* the reports share no size for this workload: each at its largest"]
    return "\n".join(lines)


def history_size(reports: Sequence[tuple[str, Report]], name: str) -> int | None:
    """The largest n at which every report measuring ``name`` has a speedup, if any."""
    measured = [
        {n for n in r.sizes() for e in r.engines() if r.speedup(e, name, n) is not None}
        for _, r in reports
        if name in r.workloads()
    ]
    common = set.intersection(*measured)  # every workload is in at least one report
    return max(common) if common else None


def history_point(
    report: Report, engine: str, name: str, n: int | None
) -> tuple[float, float, float] | None:
    """``(speedup, low, high)`` of ``engine`` on ``name`` at ``n``, or with ``n`` None
    at the largest size that has one."""
    if n is not None:
        return report.speedup_interval(engine, name, n)
    for size in reversed(report.sizes()):
        point = report.speedup_interval(engine, name, size)
        if point is not None:
            return point
    return None
