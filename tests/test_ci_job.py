"""verify and diff as a CI job lives them, each run as a subprocess (issue 28).

A cancelled job (SIGTERM) ends with exit 143 and one line, an interrupted one (SIGINT)
with exit 130, the seed that repeats it and the failure found so far saved; neither
leaves a process running.  A packer module that hangs at import fails within the
timeout; an answer with 100,001 digits is reported, shortened, without a traceback.

The packers (tests/packers/ci_job.py) mark each call in a file, so each signal is sent
once the run has reached the phase it is meant for.  Every test ends whatever it
started, whatever happens.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

CI_JOB = Path(__file__).parent / "packers" / "ci_job.py"
#: A run of a test reaches its phase within this long, or something is wrong.
_PATIENCE = 120.0
_PROGRESS = re.compile(r"packcheck (verify|diff): [a-z ]+: \d+(/\d+)? (cases?|tries|try), \d+ s$")


def _marks(path: Path) -> list[tuple[str, int]]:
    if not path.exists():
        return []
    lines = path.read_text().split("\n")[:-1]  # whole lines: a packer may be writing one
    return [(what, int(pid)) for what, pid in map(str.split, lines)]


def _running(pids: set[int], group: int) -> list[int]:
    """The processes still running (zombies excepted) among ``pids`` or in ``group``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            # pid (comm) state ppid pgrp ...: comm may hold spaces, so split after it.
            pid, rest = stat.read_text().split(" (", 1)
            state, _, pgrp = rest.rsplit(") ", 1)[1].split()[:3]
            if state != "Z" and (int(pid) in pids or int(pgrp) == group):
                found.append(int(pid))
    return found


@contextlib.contextmanager
def _job(args: list[str], marks: Path) -> Iterator[subprocess.Popen[str]]:
    """``packcheck ARGS`` in a session of its own; whatever it leaves is killed after."""
    env = {**os.environ, "PACKCHECK_TEST_MARKS": str(marks)}
    job = subprocess.Popen(
        [sys.executable, "-m", "packcheck", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        yield job
    finally:
        for pid in {job.pid, *(pid for _, pid in _marks(marks))}:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)  # each worker leads its own group
        job.wait()


def _stop(
    args: list[str], tmp_path: Path, signum: int, at: float, reached: Callable[[list[str]], bool]
) -> tuple[int, list[str], str]:
    """Run ``args``; send ``signum`` once ``reached(marks)`` and ``at`` seconds have
    passed; return the exit status and stderr's lines, stdout, after checking that
    the run stopped at once and that nothing it started is still running."""
    marks = tmp_path / "marks"
    with _job(args, marks) as job:
        started = time.monotonic()
        while not reached([what for what, _ in _marks(marks)]) or time.monotonic() < started + at:
            assert job.poll() is None, job.communicate()
            assert time.monotonic() < started + _PATIENCE, "the run never reached its phase"
            time.sleep(0.05)
        job.send_signal(signum)
        sent = len(_marks(marks))
        out, err = job.communicate(timeout=_PATIENCE)
        # At once: no packer call starts after the signal, but one a worker (one per
        # side for diff) may have been handed as it came.
        assert len(_marks(marks)) <= sent + 2, _marks(marks)[sent:]
        workers = {pid for _, pid in _marks(marks)}
        assert _running(workers, job.pid) == []
    return job.returncode, err.splitlines(), out


def _said_once(lines: list[str], command: str, signame: str) -> str:
    """The one line the stopped run said (besides its progress lines)."""
    *progress, last = lines
    assert all(_PROGRESS.match(line) for line in progress), lines
    assert last.startswith(f"packcheck {command}: stopped by {signame}; to repeat it: "), last
    assert re.search(r" --seed \d+", last), last
    return last


def _generated(marks: list[str]) -> bool:
    return marks.count("case") > 10  # past the 3 seed fixtures


def _long(marks: list[str]) -> bool:
    return "long" in marks


# A timeout past the test's patience: a run that waits out a hanging long list instead
# of stopping at once fails the test.
_TIMEOUT = ["--timeout", "3600"]


@pytest.mark.parametrize("command", ["verify", "diff"])
@pytest.mark.parametrize(
    ("at", "packer", "extra", "reached"),
    # The generated cases (1,000 at slow's 20 ms) last 20 s: the signal goes a second
    # into them, past the fixtures. The long lists are reached through every phase before
    # them: a packer quick on the short cases gets there in seconds (slow's 20 ms a case
    # took 18 s for diff's two sides); the signal goes as a long list hangs, which is the
    # phase under test.
    [(1.0, "slow", [], _generated), (0.0, "hangs_on_long", ["--max-examples", "5"], _long)],
    ids=["1s-generated", "long-lists"],
)
def test_sigterm_ends_the_run_with_143_and_one_line(
    command: str,
    at: float,
    packer: str,
    extra: list[str],
    reached: Callable[[list[str]], bool],
    tmp_path: Path,
) -> None:
    against = ["--against", f"{CI_JOB}:{packer}"] if command == "diff" else []
    args = [command, "--packer", f"{CI_JOB}:{packer}", *_TIMEOUT, *against, *extra]
    status, lines, out = _stop(args, tmp_path, signal.SIGTERM, at, reached)
    assert status == 143
    assert out == ""
    _said_once(lines, command, "SIGTERM")


def test_sigint_while_shrinking_says_the_seed_and_saves_the_failure(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    saved.mkdir()
    args = ["verify", "--packer", f"{CI_JOB}:fails_slowly", "--save-failures", str(saved)]
    # The first wrong answer is found generating; the next ones are shrinking tries.
    status, lines, out = _stop(
        args, tmp_path, signal.SIGINT, 0.0, lambda marks: marks.count("fail") >= 3
    )
    assert status == 130
    line = _said_once(lines, "verify", "SIGINT")
    assert out == ""
    (fixture,) = saved.glob("*.json")
    assert line.endswith(f"; the failure found so far saved to {fixture}")
    (saved_case,) = json.loads(fixture.read_text())
    case = saved_case["input"]
    assert len(case["blocks"]) >= 4  # a case that fails: fails_slowly is right below 4


@pytest.mark.parametrize("command", ["verify", "diff"])
def test_a_module_that_hangs_at_import_fails_within_the_timeout(
    command: str, tmp_path: Path
) -> None:
    module = tmp_path / "hangs_at_import.py"
    module.write_text(
        "import os, time\n"
        "with open(os.environ['PACKCHECK_TEST_MARKS'], 'a') as marks:\n"
        "    marks.write(f'import {os.getpid()}\\n')\n"
        "time.sleep(3600)\n"
        "def pack(case):\n"
        "    return None\n"
    )
    marks = tmp_path / "marks"
    against = ["--against", f"{CI_JOB}:slow"] if command == "diff" else []
    # 2 s: the clock waited on; it starts once the worker runs (its start-up is timed
    # apart), and the module hangs for good, so no load makes the outcome differ.
    args = [command, "--packer", f"{module}:pack", *against, "--timeout", "2"]
    with _job(args, marks) as job:
        # The bound is a guard against a hang, not a measurement.
        out, err = job.communicate(timeout=_PATIENCE)
        assert _running({pid for _, pid in _marks(marks)}, job.pid) == []
    assert job.returncode == 2
    assert out == ""
    assert err == (
        f"packcheck {command}: error: --packer '{module}:pack': importing it took longer than "
        "2 s (the timeout); worker stopped\n"
    )
    assert [what for what, _ in _marks(marks)] == ["import"]  # imported once, in the worker


@pytest.mark.parametrize("command", ["verify", "diff"])
def test_an_answer_of_100001_digits_is_shown_shortened(command: str, tmp_path: Path) -> None:
    against = ["--against", f"{CI_JOB}:slow"] if command == "diff" else []
    args = [command, "--packer", f"{CI_JOB}:huge_remaining", *against, "--seed", "1", "-q"]
    with _job(args, tmp_path / "marks") as job:
        out, err = job.communicate(timeout=_PATIENCE)
    assert job.returncode == 1
    assert err == ""
    assert '"remaining":100000000000...000000 (100,001 digits)' in out
    assert max(map(len, out.splitlines())) < 1000
