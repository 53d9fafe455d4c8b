"""Fixtures shared by the test packages: a real Dask cluster on localhost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Run first in a cluster's process on Linux: ask the kernel to SIGKILL it when the
#: process that started it (the pytest of the session) dies, however it dies, and only
#: then become ``python -m ARGV`` (the request outlives the exec).  Strictly, when the
#: thread that started it ends: pytest sets fixtures up in its main thread.  A parent already
#: gone before the request was made is seen by the check after it.  Done here, not in
#: a ``preexec_fn``, which is unsafe in a process with threads (xdist's, Dask's).
#: A nanny's worker process ends by itself when its nanny dies (Dask watches a pipe).
_DIE_WITH_PARENT = """\
import ctypes, os, signal, sys
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    os._exit(1)
os.execv(sys.executable, [sys.executable, "-m", *sys.argv[2:]])
"""


def _start(argv: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """``python -m ARGV`` in a session (and process group) of its own, stopped with
    its group by :func:`_stop`; on Linux it dies with this process too."""
    if sys.platform == "linux":
        command = [sys.executable, "-c", _DIE_WITH_PARENT, str(os.getpid()), *argv]
    else:
        command = [sys.executable, "-m", *argv]
    with log.open("wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=out, start_new_session=True, env=env)


def _quiet_env() -> dict[str, str]:
    """This environment with a local cluster's housekeeping made rare, as packcheck
    makes it for its own (``packcheck._cluster._QUIET``), in Dask's ``DASK_*``
    variables.  Left at Dask's defaults, the idle scheduler and two workers (and their
    nannies) took 5.8 s of CPU a minute, 0.6 s so: the cluster lives as long as the
    session of a test process, and the other tests ran beside it."""
    from packcheck._cluster import _QUIET

    env = dict(os.environ)
    for key, value in _QUIET.items():
        env["DASK_" + key.upper().replace(".", "__").replace("-", "_")] = str(value)
    return env


def _stop(process: subprocess.Popen[bytes]) -> None:
    """The process and its group (a worker's nanny and the worker) stopped, waited for."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=10)
            os.killpg(process.pid, signal.SIGKILL)  # anything the nanny left behind
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return


@pytest.fixture(scope="session")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a real ``dask scheduler`` with two one-thread ``dask worker``
    processes (random ports, this directory), shared by every test of the session (of
    one xdist worker) and stopped after it; skipped where the ``dask`` extra is not
    installed."""
    distributed = pytest.importorskip(
        "distributed", reason="the dask extra is not installed: pip install 'packcheck[dask]'"
    )
    where = tmp_path_factory.mktemp("cluster")
    file = where / "scheduler.json"
    env = _quiet_env()
    started = [
        _start(
            [
                *("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0"),
                *("--no-dashboard", "--scheduler-file", str(file)),
            ],
            where / "scheduler.log",
            env,
        )
    ]
    try:
        for name in ("one", "two"):
            started.append(
                _start(
                    [
                        *("distributed.cli.dask_worker", "--scheduler-file", str(file)),
                        *("--nthreads", "1", "--no-dashboard", "--name", name),
                    ],
                    where / f"{name}.log",
                    env,
                )
            )
        with distributed.Client(scheduler_file=str(file), timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
            yield client.scheduler.address
    finally:
        for process in reversed(started):
            _stop(process)
