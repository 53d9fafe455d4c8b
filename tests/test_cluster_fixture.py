"""The session's Dask test cluster (conftest.py's ``scheduler``) dies with the pytest
that started it, even a pytest killed outright (SIGKILL: no finalizer runs), so an
interrupted run of the suite leaves no ``dask scheduler`` or ``dask worker`` behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the dask extra is not installed")
psutil = pytest.importorskip("psutil")  # comes with distributed

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="a child's death signal (PR_SET_PDEATHSIG) is Linux's"
)

#: A pytest that holds the cluster until it is killed (or, left alone, 10 minutes).
HOLDER = """
import os
import time
from pathlib import Path


def test_holds_the_cluster(scheduler: str) -> None:
    Path(os.environ["PACKCHECK_TEST_READY"]).write_text(scheduler)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        time.sleep(0.1)
"""
#: The cluster is up within this long, and gone within the second after its pytest is
#: killed, or something is wrong (bounds on polling, not timings).
_PATIENCE, _DYING = 180.0, 60.0


def _running(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those of ``processes`` still running (a zombie is dead, awaiting its reaper)."""
    found = []
    for process in processes:
        try:
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.NoSuchProcess:
            pass
    return found


def _command(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.NoSuchProcess:
        return f"(process {process.pid}, gone)"


def test_the_cluster_dies_with_a_pytest_killed_outright(tmp_path: Path) -> None:
    shutil.copy(Path(__file__).with_name("conftest.py"), tmp_path / "conftest.py")
    (tmp_path / "test_holder.py").write_text(HOLDER)
    ready = tmp_path / "ready"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    holder = subprocess.Popen(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
            *("-p", "no:packcheck", "--basetemp", str(tmp_path / "tmp"), "test_holder.py"),
        ],
        cwd=tmp_path,
        env={**env, "PACKCHECK_TEST_READY": str(ready)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    started: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + _PATIENCE
        while not ready.exists():
            if holder.poll() is not None:
                pytest.fail(f"the holding pytest ended: {holder.communicate()[0].decode()}")
            if time.monotonic() > deadline:
                pytest.fail("the cluster did not start")
            time.sleep(0.1)
        started = psutil.Process(holder.pid).children(recursive=True)
        commands = [_command(p) for p in started]
        assert sum("dask_scheduler" in c for c in commands) == 1, commands
        assert sum("dask_worker" in c for c in commands) == 2, commands
        os.kill(holder.pid, signal.SIGKILL)  # as an OOM killer or `kill -9` would
        holder.wait()
        deadline = time.monotonic() + _DYING
        while _running(started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [_command(p) for p in _running(started)] == []
    finally:
        holder.kill()
        holder.wait()
        assert holder.stdout is not None
        holder.stdout.close()
        for process in _running(started):  # what a failure left: not for the next test
            process.kill()
