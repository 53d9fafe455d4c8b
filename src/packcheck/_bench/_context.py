"""Where a timing came from: the machine, the versions, the commit and the time, so
that a comparison can say when two are not alike."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__

#: What identifies the hardware and system, and what identifies the software.
MACHINE_KEYS = ("system", "machine", "cpu", "cpus")
VERSION_KEYS = ("python", "numpy")
_CPUINFO = Path("/proc/cpuinfo")


def machine() -> dict[str, str]:
    return {
        "system": platform.system(),
        "machine": platform.machine(),
        "cpu": _cpu_model() or platform.processor() or "unknown",
        "cpus": str(os.cpu_count()),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "packcheck": __version__,
    }


def context() -> dict[str, Any]:
    """``machine()`` plus when (UTC, to the second) and the git commit of the current
    directory (``None`` outside a checkout; ``-dirty`` when tracked files changed)."""
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "machine": machine(),
    }


def mismatches(before: dict[str, str], now: dict[str, str], keys: tuple[str, ...]) -> list[str]:
    """``key before -> now`` for each of ``keys`` that differs (absent reads ``?``)."""
    return [
        f"{key} {before.get(key, '?')} -> {now.get(key, '?')}"
        for key in keys
        if before.get(key) != now.get(key)
    ]


def _cpu_model() -> str | None:
    try:
        text = _CPUINFO.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware"):
            return value.strip()
    return None


def _commit() -> str | None:
    def git(*argv: str) -> str:
        done = subprocess.run(
            ["git", *argv], capture_output=True, text=True, timeout=10, check=True
        )
        return done.stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("-dirty" if dirty else "")
