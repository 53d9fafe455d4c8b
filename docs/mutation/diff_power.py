"""How much can ``packcheck diff`` be trusted on packers of other rules? (issue 27)

Usage (from the repository root)::

    .venv/bin/python docs/mutation/diff_power.py                 # the whole table
    .venv/bin/python docs/mutation/diff_power.py --jobs 2 --only message_overhead
    .venv/bin/python docs/mutation/diff_power.py --timeout 10 --max-examples 1000

For every packer of the corpus (ports of real chat-history trimmers in
``tests/packers``, each module with a ``REGRESSIONS`` table, and two of ``wild.py``'s):

* the packer against itself on seeds 1-3: it must agree (``ok``); a DIFFERENT verdict
  is a false divergence (``FALSE``);
* each one-line regression (NEW) against its packer (OLD) on seeds 1-3, and on seeds
  1-10 for the per-item-cost ``>``-to-``>=`` change (``message_overhead:pack_ge``):
  ``found`` when ``diff`` exits 1 on a case both sides answer or raise on, ``fault``
  when it exits 1 on a case a side gave no answer to, ``missed`` when it exits 0.

Each run is ``python -m packcheck diff --packer FILE:REG --against FILE:ORIG --seed S
--format json`` (plus ``--timeout``, ``--max-examples``, ``--no-long-lists`` when
given), from ``tests/``.  The table gives per run: the verdict, the counterexample's
block count, the exit status and the seconds.  The figures depend on the load: say it
(``uptime``) when quoting them.

Exit status: 0 when every self-run agrees and every regression is found on every seed,
1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
#: The port modules with a ``REGRESSIONS`` table (``tests/packers/<name>.py``).
PORTS = (
    "autogen_context",
    "llama_memory",
    "langchain_trim",
    "message_overhead",
    "langchain_token_buffer",
)
#: Packers of ``wild.py`` and their one-line changes (that file has no table).
WILD = {
    "keep_newest": {
        "keep_newest_lt": "total + size < budget (for <=)",
        "keep_newest_past_3000": "< for <= past 3,000 blocks",
    },
    "dedup_by_id": {"dedup_by_id_order": "the last block of an ID stays (for the first)"},
}
#: Regressions diffed on seeds 1-10 rather than 1-3.
TEN_SEEDS = {("message_overhead", "pack_ge")}


class Run(NamedTuple):
    module: str
    old: str
    new: str  # == old for a self-run
    seed: int


class Result(NamedTuple):
    run: Run
    verdict: str  # ok, FALSE, found, fault, missed, ERROR
    blocks: int | None
    status: int
    seconds: float
    phase: str | None


def corpus() -> dict[tuple[str, str], dict[str, str]]:
    """(module, packer) -> {regression: the line changed}."""
    sys.path.insert(0, str(TESTS))
    table: dict[tuple[str, str], dict[str, str]] = {}
    for name in PORTS:
        module = importlib.import_module(f"packers.{name}")
        for base, regressions in module.REGRESSIONS.items():
            table[(name, base)] = dict(regressions)
    for base, regressions in WILD.items():
        table[("wild", base)] = regressions
    return table


def runs(table: dict[tuple[str, str], dict[str, str]], only: str | None) -> list[Run]:
    planned = []
    for (module, base), regressions in table.items():
        for seed in (1, 2, 3):
            planned.append(Run(module, base, base, seed))
        for regression in regressions:
            seeds = range(1, 11) if (module, regression) in TEN_SEEDS else range(1, 4)
            planned += [Run(module, base, regression, seed) for seed in seeds]
    return [r for r in planned if only is None or only in f"{r.module}:{r.new}"]


def execute(run: Run, extra: list[str], limit: float) -> Result:
    spec = f"packers/{run.module}.py:"
    argv = [sys.executable, "-m", "packcheck", "diff", "--packer", spec + run.new]
    argv += ["--against", spec + run.old, "--seed", str(run.seed), "--format", "json", *extra]
    began = time.monotonic()
    try:
        done = subprocess.run(argv, cwd=TESTS, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return Result(run, "ERROR", None, -1, time.monotonic() - began, None)
    seconds = time.monotonic() - began
    try:
        report = json.loads(done.stdout.splitlines()[0])
    except (IndexError, json.JSONDecodeError):
        return Result(run, "ERROR", None, done.returncode, seconds, None)
    divergence = report.get("divergence")
    if divergence is None:
        verdict = "ok" if run.new == run.old else "missed"
        return Result(run, verdict, None, done.returncode, seconds, None)
    blocks = divergence["case"].get("blocks") if isinstance(divergence["case"], dict) else None
    count = len(blocks) if isinstance(blocks, list) else None
    if run.new == run.old:
        verdict = "FALSE"
    else:
        verdict = "fault" if report["verdict"] == "error" else "found"
    return Result(run, verdict, count, done.returncode, seconds, divergence["phase"])


def table_lines(results: list[Result]) -> list[str]:
    lines = [f"{'NEW':44} {'OLD':30} seed {'verdict':7} blocks exit seconds phase"]
    for r in results:
        new = f"{r.run.module}:{r.run.new}"
        old = "(itself)" if r.run.new == r.run.old else f"{r.run.module}:{r.run.old}"
        blocks = "-" if r.blocks is None else f"{r.blocks:,}"
        lines.append(
            f"{new:44} {old:30} {r.run.seed:4} {r.verdict:7} {blocks:>6} {r.status:4} "
            f"{r.seconds:7.1f} {r.phase or '-'}"
        )
    return lines


def summary_lines(results: list[Result]) -> list[str]:
    selves = [r for r in results if r.run.new == r.run.old]
    regressions = [r for r in results if r.run.new != r.run.old]
    found = [r for r in regressions if r.verdict == "found"]
    small = [r for r in found if r.blocks is not None and r.blocks <= 8]
    return [
        f"self-runs agreeing: {sum(r.verdict == 'ok' for r in selves)} of {len(selves)}",
        f"regression runs found: {len(found)} of {len(regressions)} "
        f"({len(small)} with at most 8 blocks; "
        f"{sum(r.verdict == 'fault' for r in regressions)} on a fault)",
        f"seconds, all runs: {sum(r.seconds for r in results):.0f}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time (default 1)")
    parser.add_argument("--only", help="only runs whose MODULE:NEW contains this")
    parser.add_argument("--timeout", help="diff's --timeout (default: diff's own)")
    parser.add_argument("--max-examples", help="diff's --max-examples (default: its own)")
    parser.add_argument("--no-long-lists", action="store_true", help="diff's --no-long-lists")
    parser.add_argument("--limit", type=float, default=900.0, help="seconds per run at most")
    args = parser.parse_args(argv)
    extra = [] if args.timeout is None else ["--timeout", args.timeout]
    extra += [] if args.max_examples is None else ["--max-examples", args.max_examples]
    extra += ["--no-long-lists"] if args.no_long_lists else []
    planned = runs(corpus(), args.only)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda run: execute(run, extra, args.limit), planned))
    print("\n".join(table_lines(results)))
    print("\n".join(summary_lines(results)))
    bad = [r for r in results if r.verdict not in ("ok", "found")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
