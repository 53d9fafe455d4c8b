"""``packcheck bench`` as a CI job runs it: a subprocess, stderr a pipe.

A packer that hangs ends the run (exit 1, one line, nothing left running); progress
is written as lines; a packer's own prints stay out of the report.  Tiny workloads:
each run is the start-up and a few cases.  No assertion reads a time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

TINY = ["bench", "--workload", "pareto", "--min-time", "0", "--repeat", "1"]
# A case-level packer answering packcheck's answer; it hangs on cases of more than
# ten blocks, and prints on every call.
PACKERS = """
import sys, time
from packcheck import pack

def hangs(case):
    while len(case["blocks"]) > 10:
        time.sleep(0.01)
    return pack(case)

def prints(case):
    print("a packer's own line")
    sys.stdout.flush()
    return pack(case)
"""
# A JSON Lines command that says its process ID (in the file it is given), answers
# cases of up to ten blocks and hangs on a longer one.
COMMAND = """
import json, os, sys, time
from packcheck import pack
open(sys.argv[1], "w").write(str(os.getpid()))
for line in sys.stdin:
    case = json.loads(line)
    while len(case["blocks"]) > 10:
        time.sleep(0.01)
    print(json.dumps(pack(case)), flush=True)
"""


def _bench(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "packcheck", *TINY, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def packers(tmp_path: Path) -> Path:
    path = tmp_path / "packers.py"
    path.write_text(PACKERS)
    return path


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_hanging_python_packer_ends_the_run_and_stops_the_commands(
    packers: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    (tmp_path / "command.py").write_text(COMMAND)
    command = f"{sys.executable} {tmp_path / 'command.py'} {pid_file}"
    # Both answer at 10 blocks (the command is running), the Python one hangs at 100.
    done = _bench(
        "--sizes", "10,100", "--packer", f"{packers}:hangs", "--packer-cmd", command,
        "--timeout", "1", "--quiet",
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        f"packcheck bench: {packers}:hangs failed on pareto at n=100: no answer within 1 s a case "
        "(timeout); run stopped\n"
    )
    assert _gone(int(pid_file.read_text()))


def test_a_hanging_command_ends_the_run_and_is_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    (tmp_path / "command.py").write_text(COMMAND)
    command = f"{sys.executable} {tmp_path / 'command.py'} {pid_file}"
    done = _bench("--sizes", "100", "--packer-cmd", command, "--timeout", "1", "--quiet")
    assert done.returncode == 1
    assert done.stderr == (
        f"packcheck bench: {command} failed on pareto at n=100: no answer within 1 s (timeout); "
        "packer stopped\n"
    )
    assert _gone(int(pid_file.read_text()))


def test_progress_is_written_as_lines_when_stderr_is_a_pipe(packers: Path) -> None:
    done = _bench("--sizes", "9,10", "--packer", f"{packers}:hangs")
    assert done.returncode == 0
    lines = done.stderr.splitlines()
    assert len(lines) == 2
    for count, (line, n) in enumerate(zip(lines, (9, 10), strict=True), 1):
        assert re.fullmatch(rf"packcheck bench: pareto n={n}: {count}/2 cells, \d+ s", line)


def test_a_printing_packer_stays_out_of_the_report(packers: Path) -> None:
    done = _bench("--sizes", "10", "--packer", f"{packers}:prints", "--quiet")
    assert done.returncode == 0
    assert "own line" not in done.stdout + done.stderr
    assert done.stdout.startswith("median seconds per call")
    done = _bench("--sizes", "10", "--packer", f"{packers}:prints", "--quiet", "--json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["kind"] == "packcheck bench"
