"""Compare ``packcheck verify`` and ``diff`` reports of two versions of packcheck's code.

    python tests/tools/compare_reports.py BASE_SRC [--jobs N] [--max-examples N]

runs every gate run below (each ``module:function`` packer of tests/packers that takes
a case, a command packer, and diff pairs) with the code of this checkout (``src``) and
with ``BASE_SRC`` (e.g. ``git archive ae6786d src | tar -x -C /tmp/base`` then
``/tmp/base/src``), in the text, JSON, GitHub and JUnit forms, masks the timings, and
prints each difference.  Exit 0 when the reports are byte-identical but for timings.
Runs are short (``--max-examples``, long lists only for a few packers) to keep it quick.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import inspect
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKERS = ROOT / "tests" / "packers"
MODULES = ("broken", "capture", "faults", "public", "wild", "long")
#: Packers whose long lists are run too (the rest run --no-long-lists).
LONG = {
    "broken:int64_wrap",
    "broken:correct",
    "wild:keep_newest",
    "long:int32_sums",
    "long:skips_chunk_boundary_4096",
}
#: Packers left out: they wait out their timeout on every case.
SLOW = {"broken:hangs", "broken:hangs_past_two_blocks"}
_MASKS = (
    (re.compile(r"\d+\.\d s \("), "X s ("),
    (re.compile(r'"seconds":[0-9.e+-]+'), '"seconds":X'),
    (re.compile(r'time="[0-9.]+"'), 'time="X"'),
    (re.compile(r"(within|after) [0-9.]+ s"), r"\1 X s"),
)


def packers() -> list[str]:
    """``module:function`` of every packer of tests/packers that takes one case."""
    sys.path.insert(0, str(ROOT))
    found = []
    for name in MODULES:
        module = importlib.import_module(f"tests.packers.{name}")
        for attr, value in vars(module).items():
            if attr.startswith("_") or not inspect.isfunction(value):
                continue
            if value.__module__ != module.__name__ and not value.__qualname__.startswith(
                ("make.", "chunked.", "fast_path.", "_numpy_scan.", "_packer.", "_capturing.")
            ):
                continue
            try:
                parameters = list(inspect.signature(value).parameters)
            except (TypeError, ValueError):
                continue
            if len(parameters) == 1 and f"{name}:{attr}" not in SLOW:
                found.append(f"{name}:{attr}")
    return found


def runs(max_examples: int) -> list[list[str]]:
    """The command lines (without ``packcheck``) whose reports are compared."""
    common = ["--seed", "1", "--max-examples", str(max_examples), "--timeout", "2"]
    lines = []
    for spec in packers():
        module, function = spec.split(":")
        short = [] if spec in LONG else ["--no-long-lists"]
        lines.append(
            ["verify", "--packer", f"tests/packers/{module}.py:{function}", *common, *short]
        )
    node = "node tests/packers/wild.js"
    lines += [
        [
            "verify",
            "--packer-cmd",
            f"{sys.executable} tests/packers/lines_packer.py correct",
            *common,
        ],
        ["verify", "--packer-cmd", f"{node} keep_newest", *common, "--no-long-lists"],
        ["verify", "--seed", "1", "--max-examples", str(max_examples), "--no-long-lists"],
        [
            "verify",
            "--seed",
            "1",
            "--max-examples",
            str(max_examples),
            "--partition",
            "--packer",
            "tests/packers/capture.py:correct",
            "--no-long-lists",
        ],
    ]
    pairs = [
        ("wild.py:keep_newest_lt", "wild.py:keep_newest"),
        ("wild.py:keep_newest", "wild.py:keep_newest"),
        ("wild.py:strict_budget", "wild.py:keep_newest"),
        ("broken.py:raises", "broken.py:correct"),
        ("broken.py:exits", "broken.py:correct"),
        ("wild.py:dedup_by_id_order", "wild.py:dedup_by_id"),
    ]
    for new, old in pairs:
        sides = ["--packer", f"tests/packers/{new}", "--against", f"tests/packers/{old}"]
        lines.append(["diff", *sides, *common, "--no-long-lists"])
        lines.append(["diff", *sides, *common, "--no-long-lists", "--count"])
    lines.append(
        [
            "diff",
            "--packer-cmd",
            f"{node} keep_newest_lt",
            "--against-cmd",
            f"{node} keep_newest",
            *common,
            "--no-long-lists",
        ]
    )
    lines.append(
        [
            "diff",
            "--packer",
            "tests/packers/wild.py:keep_newest",
            "--against",
            "tests/packers/wild.py:keep_newest",
            *common,
        ]
    )
    return lines


def masked(text: str) -> str:
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text


def reports(src: Path, line: list[str]) -> dict[str, str]:
    """The run's report in each form (and its exit status), from the code in ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    found = {}
    with tempfile.TemporaryDirectory() as folder:
        for form in ("text", "json", "github"):
            junit = Path(folder) / f"{form}.xml"
            command = [sys.executable, "-m", "packcheck", *line, "-q", "--format", form]
            if form == "json":
                command += ["--junit-xml", str(junit)]
            done = subprocess.run(
                command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
            )
            found[form] = masked(f"exit {done.returncode}\n{done.stdout}{done.stderr}")
            if form == "json":
                found["junit"] = masked(junit.read_text()) if junit.exists() else "(none)"
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="the src folder of the code to compare with")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-examples", type=int, default=30)
    parser.add_argument("--every", type=int, default=1, help="only every Nth run (quicker)")
    args = parser.parse_args()
    lines = runs(args.max_examples)[:: args.every]

    def compare(line: list[str]) -> list[str]:
        old, new = reports(args.base, line), reports(ROOT / "src", line)
        out = []
        for form in old:
            if old[form] != new[form]:
                diff = difflib.unified_diff(
                    old[form].splitlines(), new[form].splitlines(), "base", "branch", lineterm=""
                )
                out.append(f"DIFFERENT {form}: packcheck {' '.join(line)}\n" + "\n".join(diff))
        return out

    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(compare, lines))
    differences = [d for result in results for d in result]
    print("\n".join(differences))
    print(f"{len(lines)} runs x 4 forms compared: {len(differences)} differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
