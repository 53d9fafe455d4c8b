"""The plots of ``packcheck bench``: time per block against n, and speedup per commit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import bench
from .bench_show import history_point, history_size

__all__ = ["draw", "draw_history"]


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


def draw_history(reports: Sequence[tuple[str, bench.Report]], plt: Any, path: str) -> None:
    """Plot each engine's speedup per report (oldest first), one panel per workload.

    The x axis is the reports in order, labelled by commit (or file name); the bars
    are each speedup's interval.
    """
    names = list(dict.fromkeys(w for _, r in reports for w in r.workloads()))
    labels = [str(r.context.get("commit") or label)[:8] for label, r in reports]
    engines = list(dict.fromkeys(e for _, r in reports for e in r.engines()))
    columns = min(4, len(names))
    rows = -(-len(names) // columns)
    figure, axes = plt.subplots(
        rows, columns, figsize=(3.2 * columns, 2.6 * rows), squeeze=False, sharex=True
    )
    for index, name in enumerate(names):
        ax = axes[index // columns][index % columns]
        size = history_size(reports, name)
        for engine in engines:
            points = [
                (x, point)
                for x, (_, report) in enumerate(reports)
                if (point := history_point(report, engine, name, size)) is not None
            ]
            if engine == bench.REFERENCE or not points:
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
    for index in range(len(names), rows * columns):
        axes[index // columns][index % columns].axis("off")
    for ax in axes[-1]:
        ax.set_xticks(range(len(labels)), labels, rotation=60, fontsize=6)
    for row in axes:
        row[0].set_ylabel("speedup (x)", fontsize=8)
    axes[0][0].legend(fontsize=7)
    figure.suptitle("packcheck bench: speedup over the reference per commit", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)
