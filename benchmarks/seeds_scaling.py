"""`packcheck verify --seeds` one after another against `--workers 2`, side by side.

Usage::

    python benchmarks/seeds_scaling.py [--seeds 1-8] [--pairs 2] [-- VERIFY OPTIONS...]

Times, in alternating pairs of whole processes, ``packcheck verify --seeds SEEDS``
(every seed in one process, one after another) against the same with ``--workers 2``
(a local Dask cluster of two processes), and checks that the two reports agree
(timings aside).  Prints wall time and CPU (user + system of the process and all it
started) per run, the speedup per pair, and the load average before and after: the
machine is shared, so quote the load with the figures.  Options after ``--`` go to
both runs (for example ``--packer broken:correct`` from tests/packers).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time

PACKCHECK = [sys.executable, "-m", "packcheck", "verify", "--quiet"]


def timed(argv: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (it and its children) and the report, timings masked."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        sys.exit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stderr}")
    return wall, cpu, re.sub(r"\d+\.\d s \(", "T s (", done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-8")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("rest", nargs="*", help="options for both runs, after --")
    args = parser.parse_args()
    sequential = [*PACKCHECK, "--seeds", args.seeds, *args.rest]
    cluster = [*sequential, "--workers", "2"]
    load = os.getloadavg()
    measured = []
    for index in range(args.pairs):
        order = (sequential, cluster) if index % 2 == 0 else (cluster, sequential)
        results = {id(argv): timed(argv) for argv in order}
        one, two = results[id(sequential)], results[id(cluster)]
        if one[2] != two[2]:
            sys.exit(f"reports differ:\n{one[2]}\n{two[2]}")
        measured.append((one, two))
        print(f"pair {index + 1}: one process {one[0]:.1f} s (CPU {one[1]:.1f} s), "
              f"--workers 2 {two[0]:.1f} s (CPU {two[1]:.1f} s), {one[0] / two[0]:.2f}x",
              flush=True)  # fmt: skip
    speedups = [one[0] / two[0] for one, two in measured]
    print(f"verify --seeds {args.seeds} {' '.join(args.rest)}, {args.pairs} alternating pairs")
    print(f"load average before: {load[0]:.1f}, after: {os.getloadavg()[0]:.1f}")
    print(
        f"one process {statistics.median(o[0] for o, _ in measured):.1f} s, --workers 2 "
        f"{statistics.median(t[0] for _, t in measured):.1f} s: speedup median "
        f"{statistics.median(speedups):.2f}x ({min(speedups):.2f}-{max(speedups):.2f}x)"
    )


if __name__ == "__main__":
    main()
