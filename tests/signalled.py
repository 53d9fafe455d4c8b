"""A command on a local Dask cluster stopped by a signal, as CI or a terminal stops it:
its status, what it said, and what it left running."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest


def stopped(
    argv: Sequence[str],
    sig: signal.Signals,
    group: bool,
    started: Callable[[Any], bool],
    cwd: Path | None = None,
) -> tuple[int, str, list[Any]]:
    """Run ``argv`` until ``started(its psutil.Process)``, then a second more; send it
    ``sig`` (``group``: to every process of the job, as a terminal's Ctrl-C is).  Its
    exit status, its stderr, and those of its processes still alive 10 s after."""
    psutil = pytest.importorskip("psutil", reason="comes with distributed")
    process = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=cwd,
        start_new_session=group,
    )
    try:
        parent = psutil.Process(process.pid)
        while not started(parent):
            assert process.poll() is None
            time.sleep(0.05)
        time.sleep(1)  # the workers at work
        children = parent.children(recursive=True)
        if group:
            os.killpg(process.pid, sig)
        else:
            process.send_signal(sig)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    _, alive = psutil.wait_procs(children, timeout=10)
    return process.returncode, err.decode(), alive
