"""`packcheck audit` on Dask against one process, side by side (issue 29's figures).

Usage::

    python benchmarks/dask_scaling.py [--steps 100000] [--big-steps 1000000] [--pairs 3]
        [--dir DIR]

Makes (once, kept in DIR) a recorded run of STEPS steps of 5-40 blocks with
``make_big_inputs.py`` and ``packcheck pack --record``, as one plain file and as 8 gzip
shards, then times, in alternating pairs of whole ``packcheck audit`` processes:

- one plain process against ``--workers 1`` on the one file (the overhead of Dask);
- one plain process against ``--workers 2`` on the 8 shards (the speedup);
- one plain process against two plain processes at once, 4 of the shards each: the
  speedup the machine allows at the moment, with no Dask (the ceiling);
- with ``--big-steps``, the last two on 8 gzip shards of a run of BIG_STEPS steps
  (1,000,000: shards of about 15 MB compressed, 105 MB of JSON Lines, 125,000 steps,
  each about 4 s to audit: a cluster's start-up is then a few percent of the run, as
  on a fleet's runs, where it is less).

Each pair's outputs are compared byte for byte.  Prints wall time and CPU (user +
system of the process and everything it started) per run, the ratio per pair (median
and range), and the load average before and after each row: the machine is shared, so
quote the load with the figures.  On Linux with autogroup (``cat
/proc/sys/kernel/sched_autogroup_enabled``), a session shares the cores with the other
busy sessions as one: while two other sessions are busy, this one gets one core, and
``--workers 2`` cannot be faster than one process; its speedup shows only at a load
average of about 1 or less from elsewhere.
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import statistics
import subprocess
import sys
import time
from itertools import islice
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from make_big_inputs import case_lines  # noqa: E402

PACKCHECK = [sys.executable, "-m", "packcheck"]
SHARDS = 8


def make_inputs(where: Path, steps: int) -> tuple[Path, list[Path]]:
    """The run as one file and as 8 gzip shards of consecutive lines (made once)."""
    where.mkdir(parents=True, exist_ok=True)
    run = where / f"run-{steps}.jsonl"
    shards = [where / f"shard-{steps}-{i}.jsonl.gz" for i in range(SHARDS)]
    if not run.exists():
        partial = run.with_suffix(".partial")
        with partial.open("wb") as out:
            record = subprocess.Popen(
                [*PACKCHECK, "pack", "--record"], stdin=subprocess.PIPE, stdout=out
            )
            assert record.stdin is not None
            for line in case_lines(steps, blocks=5, most=40):
                record.stdin.write(line.encode())
            record.stdin.close()
            if record.wait():
                sys.exit("packcheck pack --record failed")
        partial.rename(run)
    if not all(shard.exists() for shard in shards):
        size = -(-steps // SHARDS)
        with run.open("rb") as lines:
            for shard in shards:
                with gzip.open(shard, "wb", compresslevel=1) as out:
                    out.writelines(islice(lines, size))
    return run, shards


def timed(*argvs: list[str]) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (they and their children) and stdout of ``argvs`` run
    at once, the wall time until the last ends."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    running = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for argv in argvs
    ]
    done = [(process, *process.communicate()) for process in running]
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    for argv, (process, _, err) in zip(argvs, done, strict=True):
        if process.returncode not in (0, 1):
            sys.exit(f"failed ({process.returncode}): {' '.join(argv)}\n{err.decode()}")
    return wall, cpu, b"".join(out for _, out, _ in done)


def pairs(
    plain: list[list[str]], other: list[list[str]], count: int, same: bool = True
) -> list[tuple[tuple[float, float], ...]]:
    """``count`` pairs of (plain, other) runs, alternating which goes first; each run's
    commands at once.  ``same``: their outputs must be the same."""
    out = []
    for index in range(count):
        if index % 2 == 0:
            first, second = timed(*plain), timed(*other)
        else:
            second, first = timed(*other), timed(*plain)
        if same and first[2] != second[2]:
            sys.exit(f"outputs differ: {' '.join(other[0])}")
        out.append(((first[0], first[1]), (second[0], second[1])))
    return out


def row(
    name: str, load: str, measured: list[tuple[tuple[float, float], ...]], speedup: bool
) -> str:
    plain = [p for p, _ in measured]
    other = [o for _, o in measured]
    ratios = [(p[0] / o[0]) if speedup else (o[0] / p[0]) for p, o in measured]
    return (
        f"| {name} | {load} | {statistics.median(w for w, _ in plain):.2f} s "
        f"({statistics.median(c for _, c in plain):.2f} s) | "
        f"{statistics.median(w for w, _ in other):.2f} s "
        f"({statistics.median(c for _, c in other):.2f} s) | "
        f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}x) |"
    )


def loaded(
    plain: list[list[str]], other: list[list[str]], count: int, same: bool = True
) -> tuple[Any, str]:
    """:func:`pairs`, and the load average (1 minute) before and after them."""
    before = os.getloadavg()[0]
    measured = pairs(plain, other, count, same)
    return measured, f"{before:.1f}-{os.getloadavg()[0]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--big-steps", type=int, default=0, metavar="STEPS")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/packcheck-dask-bench"))
    args = parser.parse_args()
    audit = [*PACKCHECK, "audit", "--json"]
    run, shards = make_inputs(args.dir, args.steps)
    plain, one = [*audit, str(run)], [*audit, "--workers", "1", str(run)]
    rows = [
        (
            f"{args.steps:,} steps, one file, `--workers 1` (Dask's time over one process's)",
            loaded([plain], [one], args.pairs),
            False,
        ),
    ]
    runs = [(args.steps, shards)]
    if args.big_steps:
        runs.append((args.big_steps, make_inputs(args.dir, args.big_steps)[1]))
    for steps, files in runs:
        names = list(map(str, files))
        plain = [*audit, *names]
        two = [*audit, "--workers", "2", *names]
        halves = [[*audit, *names[: SHARDS // 2]], [*audit, *names[SHARDS // 2 :]]]
        name = f"{steps:,} steps, {SHARDS} gzip shards"
        rows.append((f"{name}, `--workers 2` (speedup)", loaded([plain], [two], args.pairs), True))
        ceiling = loaded([plain], halves, args.pairs, same=False)
        rows.append((f"{name}, two plain processes at once, 4 each (the ceiling)", ceiling, True))
    print(f"steps of 5-40 blocks, {args.pairs} alternating pairs a row, {sys.version.split()[0]}")
    print("\n| runs | load | one process: wall (CPU) | other: wall (CPU) | ratio, median (range) |")
    print("|---|---|---|---|---|")
    for row_name, (measured, load), speedup in rows:
        print(row(row_name, load, measured, speedup))


if __name__ == "__main__":
    main()
