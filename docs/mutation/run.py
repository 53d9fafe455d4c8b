"""Mutation-test the NumPy kernel with Cosmic Ray; fail unless every real mutant is killed.

Usage (from the repository root, with the `mutation` extra installed)::

    .venv/bin/python docs/mutation/run.py [--jobs 2] [--json report.json] [--config FILE]

The tree (src, tests, properties, pyproject.toml) is copied once per worker into a
temporary directory, so the working tree is never mutated and a run can go on while
you edit.  With ``--jobs 1`` Cosmic Ray's local distributor runs the mutants one by
one; with more, its http distributor sends them to one ``cosmic-ray http-worker`` per
copy (on 127.0.0.1).  Configuration: ``docs/mutation/cosmic-ray.toml``.

Each mutant ends as one of:

* ``killed``: a test failed;
* ``equivalent``: it survived and is listed, with its reason, in
  ``docs/mutation/EQUIVALENT.md``;
* ``SURVIVED``: it survived and is not listed: the tests miss a fact of the kernel;
* ``TIMEOUT``: only the per-mutant timeout stopped it: a loop that never ends must
  fail a test by an explicit bound on its rounds instead;
* ``ERROR``: Cosmic Ray could not run it.

Exit status: 0 when every mutant is killed or a listed equivalent, 1 otherwise, 2 when
the tests fail before any mutation (then every mutant would look killed).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CONFIG = HERE / "cosmic-ray.toml"
EQUIVALENT = HERE / "EQUIVALENT.md"
COPIED = ("src", "tests", "properties", "pyproject.toml")
# One line of EQUIVALENT.md: - `function`: `old line` → `new line`: reason
LISTED = re.compile(r"^- `(?P<where>[^`]+)`: `(?P<old>[^`]+)` → `(?P<new>[^`]+)`: (?P<why>.+)$")
# A heading of EQUIVALENT.md that names a module: its mutants follow, up to the next one.
MODULE = re.compile(r"^#+ .*`(?P<path>src/[^`]+\.py)`")


def equivalents(module: str, path: Path = EQUIVALENT) -> dict[tuple[str, str, str], str]:
    """The listed equivalent mutants of ``module`` (its path, as the config's
    ``module-path``): (function, old line, new line) -> reason.  Each module's list is
    its own: two modules may share a function name and a line."""
    listed = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        heading = MODULE.match(line)
        if heading:
            current = heading["path"]
        match = LISTED.match(line)
        if match and current == module:
            key = (match["where"], match["old"].strip(), match["new"].strip())
            listed[key] = match["why"]
    return listed


def changed_line(diff: str) -> tuple[str, str]:
    """The one source line a mutant changes, before and after (stripped)."""
    removed = [line[1:] for line in diff.splitlines() if line[:1] == "-" and line[:3] != "---"]
    added = [line[1:] for line in diff.splitlines() if line[:1] == "+" and line[:3] != "+++"]

    def joined(lines: list[str]) -> str:
        return " ".join(line.strip() for line in lines if line.strip())

    return joined(removed), joined(added)


def classify(item: dict, result: dict | None, listed: dict) -> tuple[str, str, str, str] | None:
    """(outcome, function, old line, new line) of one dumped work item; None if skipped."""
    if result is None:
        return "ERROR", "?", "not run", ""
    if result["worker_outcome"] in ("skipped", "no-test"):
        return None
    mutation = item["mutations"][0]
    where = mutation["definition_name"] or "<module>"
    old, new = changed_line(result.get("diff") or "")
    if result["worker_outcome"] != "normal":
        return "ERROR", where, old, new
    if result["test_outcome"] == "killed":
        return ("TIMEOUT" if result["output"] == "timeout" else "killed"), where, old, new
    if result["test_outcome"] == "survived":
        return _survivor(where, old, new, listed), where, old, new
    return "ERROR", where, old, new


def _survivor(where: str, old: str, new: str, listed: dict) -> str:
    return "equivalent" if (where, old, new) in listed else "SURVIVED"


def _key(row: dict) -> tuple[str, str, str]:
    return row["function"], row["old"], row["new"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for(port: int, worker: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            sys.exit(f"run.py: cosmic-ray http-worker on port {port} exited ({worker.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"run.py: cosmic-ray http-worker on port {port} did not start in {seconds:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--json", type=Path, help="write every mutant's outcome here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument(
        "--recheck", type=Path, help="re-check a --json report against EQUIVALENT.md; no run"
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=CONFIG,
        help="the Cosmic Ray configuration (default: the level kernel's, cosmic-ray.toml;"
        " cosmic-ray-rules.toml: a declared rule's kernels)",
    )
    args = parser.parse_args(argv)
    config = tomllib.loads(args.config.read_text(encoding="utf-8"))
    module = config["cosmic-ray"]["module-path"]
    listed = equivalents(module)
    if args.recheck is not None:
        rows = json.loads(args.recheck.read_text(encoding="utf-8"))
        outcomes = [
            (_survivor(row["function"], row["old"], row["new"], listed), *_key(row))
            if row["outcome"] in ("SURVIVED", "equivalent")
            else (row["outcome"], *_key(row))
            for row in rows
        ]
        return summarise(outcomes, listed, module, 0.0, None)
    # SIGTERM unwinds like Ctrl-C, so the workers are stopped and the copies removed.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    bin_dir = Path(sys.executable).parent
    tool = bin_dir / "cosmic-ray"
    if not tool.exists():
        sys.exit("run.py: cosmic-ray not found beside this python: pip install -e '.[mutation]'")
    work = Path(tempfile.mkdtemp(prefix="packcheck-mutation-"))
    copies = []
    for index in range(max(1, args.jobs)):
        copy = work / f"tree{index}"
        for name in COPIED:
            source = ROOT / name
            if source.is_dir():
                ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".hypothesis")
                shutil.copytree(source, copy / name, ignore=ignore)
            else:
                copy.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, copy / name)
        copies.append(copy)
    env = dict(os.environ, HYPOTHESIS_PROFILE="mutation", PYTHONPATH="src")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    workers: list[subprocess.Popen[bytes]] = []
    started = time.monotonic()
    try:
        command = config["cosmic-ray"]["test-command"]
        print(f"baseline: {command}", flush=True)
        baseline = subprocess.run(
            shlex.split(command),
            cwd=copies[0],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if baseline.returncode != 0:
            print(baseline.stdout[-3000:], file=sys.stderr)
            print("run.py: the tests fail without any mutation", file=sys.stderr)
            return 2
        print(f"baseline passed in {time.monotonic() - started:.1f} s", flush=True)
        if len(copies) > 1:
            ports = [free_port() for _ in copies]
            for copy, port in zip(copies, ports, strict=True):
                workers.append(
                    subprocess.Popen(
                        [str(tool), "http-worker", "--port", str(port)],
                        cwd=copy,
                        env=env,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        start_new_session=True,
                    )
                )
            for port, worker in zip(ports, workers, strict=True):
                wait_for(port, worker)
            config["cosmic-ray"]["distributor"] = {
                "name": "http",
                "http": {"worker-urls": [f"http://127.0.0.1:{port}" for port in ports]},
            }
        session = work / "session.sqlite"
        derived = work / "cosmic-ray.toml"
        derived.write_text(_toml(config), encoding="utf-8")
        run = [str(derived), str(session)]
        steps = [
            [str(tool), "init", *run],
            [str(bin_dir / "cr-filter-operators"), str(session), str(derived)],
        ]
        if "line-filter" in config["cosmic-ray"].get("filters", {}):
            # Only the lines the config names (one function of a larger module).
            steps.append([str(bin_dir / "cr-filter-lines"), str(session), "--config", str(derived)])
        steps.append([str(tool), "exec", *run])
        for step in steps:
            subprocess.run(step, cwd=copies[0], env=env, check=True)
        dump = subprocess.run(
            [str(tool), "dump", str(session)], capture_output=True, text=True, check=True
        ).stdout
    finally:
        # Each worker leads its own process group; a test run it started is in a
        # group of its own and ends within the per-mutant timeout.
        for worker in workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
        for worker in workers:
            worker.wait()
        if args.keep:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return report(dump, listed, module, time.monotonic() - started, args.json)


def report(dump: str, listed: dict, module: str, seconds: float, json_path: Path | None) -> int:
    outcomes = []
    for line in dump.splitlines():
        item, result = json.loads(line)
        outcome = classify(item, result, listed)
        if outcome is not None:
            outcomes.append(outcome)
    return summarise(outcomes, listed, module, seconds, json_path)


def summarise(
    outcomes: list, listed: dict, module: str, seconds: float, json_path: Path | None
) -> int:
    """Print every mutant not killed, the stale listed equivalents and the totals."""
    counts = Counter(outcome for outcome, *_ in outcomes)
    seen = {(where, old, new) for _, where, old, new in outcomes}
    for outcome, where, old, new in sorted(outcomes, key=lambda o: (o[0], o[1])):
        if outcome != "killed":
            print(f"{outcome:10} {where}: {old}  ->  {new}")
    for where, old, new in sorted(set(listed) - seen):
        print(f"stale      {where}: {old}  ->  {new} (listed equivalent, not generated)")
    total = len(outcomes)
    summary = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
    print(f"{total} mutants of {module} in {seconds / 60:.1f} min: {summary}")
    if json_path is not None:
        rows = [dict(zip(("outcome", "function", "old", "new"), o, strict=True)) for o in outcomes]
        json_path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    failed = counts["SURVIVED"] + counts["TIMEOUT"] + counts["ERROR"]
    return 1 if failed else 0


def _toml(config: dict) -> str:
    """The few TOML shapes the config uses (tables, strings, numbers, string lists)."""
    lines: list[str] = []

    def table(prefix: str, values: dict) -> None:
        scalars = {k: v for k, v in values.items() if not isinstance(v, dict)}
        if prefix:
            lines.append(f"[{prefix}]")
        for key, value in scalars.items():
            lines.append(f"{json.dumps(key)} = {json.dumps(value)}")
        for key, value in values.items():
            if isinstance(value, dict):
                table(f"{prefix}.{json.dumps(key)}" if prefix else json.dumps(key), value)

    table("", config)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("run.py: interrupted; workers stopped")
