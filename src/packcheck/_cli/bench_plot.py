"""The plots of ``packcheck bench``: time per block against n, and speedup per commit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._bench import REFERENCE, Report
from .bench_show import history_point, history_size


def draw(report: Report, plt: Any, path: str) -> None:
    """Plot time per block against n, one panel per workload, one line per engine."""
    names = report.workloads()
    figure, axes = _panels(plt, len(names))
    for name, ax in zip(names, _flat(axes), strict=False):
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
    for ax in axes[-1]:
        ax.set_xlabel("n (blocks)", fontsize=8)
    _finish(plt, figure, axes, len(names), "ns per block", "time per block (lower is faster)", path)


def draw_history(reports: Sequence[tuple[str, Report]], plt: Any, path: str) -> None:
    """Plot each engine's speedup (and its interval) per report, oldest first, one
    panel per workload."""
    names = list(dict.fromkeys(w for _, r in reports for w in r.workloads()))
    labels = [str(r.context.get("commit") or label)[:8] for label, r in reports]
    engines = list(dict.fromkeys(e for _, r in reports for e in r.engines()))
    figure, axes = _panels(plt, len(names))
    for name, ax in zip(names, _flat(axes), strict=False):
        size = history_size(reports, name)
        for engine in engines:
            points = [
                (x, point)
                for x, (_, report) in enumerate(reports)
                if (point := history_point(report, engine, name, size)) is not None
            ]
            if engine == REFERENCE or not points:
                continue
            xs = [x for x, _ in points]
            ys = [p[0] for _, p in points]
            below = [p[0] - p[1] for _, p in points]
            above = [p[2] - p[0] for _, p in points]
            ax.errorbar(xs, ys, yerr=[below, above], marker="o", capsize=2, label=engine)
        at = "largest n of each" if size is None else f"n={size:,}"
        ax.set_title(f"{name} ({at})", fontsize=9)
        ax.tick_params(labelsize=7)
        ax.set_ylim(bottom=0)
        ax.grid(True, linewidth=0.3)
    for ax in axes[-1]:
        ax.set_xticks(range(len(labels)), labels, rotation=60, fontsize=6)
    title = "speedup over the reference per commit"
    _finish(plt, figure, axes, len(names), "speedup (x)", title, path)


def _panels(plt: Any, count: int) -> tuple[Any, Any]:
    columns = min(4, count)
    rows = -(-count // columns)
    figure, axes = plt.subplots(
        rows, columns, figsize=(3.2 * columns, 2.6 * rows), squeeze=False, sharex=True
    )
    return figure, axes


def _flat(axes: Any) -> list[Any]:
    return [ax for row in axes for ax in row]


def _finish(
    plt: Any, figure: Any, axes: Any, used: int, ylabel: str, title: str, path: str
) -> None:
    for ax in _flat(axes)[used:]:
        ax.axis("off")
    for row in axes:
        row[0].set_ylabel(ylabel, fontsize=8)
    axes[0][0].legend(fontsize=7)
    figure.suptitle(f"packcheck bench: {title}", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)
