"""A packer built from what the user names: a Python ``MODULE:FUNCTION`` or
``PATH.py:FUNCTION`` spec, loaded in this process or run in a worker, or a command."""

from __future__ import annotations

import math
import os

from ._callable import CallablePacker
from ._command import CommandPacker
from ._load import importable, load
from ._worker import WorkerPacker

#: ``PYTHONHASHSEED`` of both sides' worker processes, unless the environment sets one.
HASH_SEED = "0"


def loaded(spec: str, cwd: str | None) -> CallablePacker:
    """The packer ``spec`` names, loaded in this process as if from ``cwd``."""
    if cwd is not None:
        importable(cwd)
        location, _, function = spec.rpartition(":")
        if location.endswith(".py"):
            spec = f"{os.path.join(cwd, location)}:{function}"
    return CallablePacker(load(spec))


def started(
    spec: str | None, command: str | None, timeout: float | None, cwd: str | None, diff: bool
) -> CommandPacker | WorkerPacker:
    """The process of ``command``, or of the Python ``spec`` in a worker, started in
    ``cwd``; ``diff``'s sides take any JSON answer and share one hash seed (a set of
    strings iterates alike on both)."""
    packer: CommandPacker | WorkerPacker
    if command is not None:
        packer = CommandPacker(command, timeout or math.inf, any_json=diff, cwd=cwd)
    else:
        assert spec is not None
        seed = HASH_SEED if diff else None
        packer = WorkerPacker(spec, timeout or math.inf, hash_seed=seed, cwd=cwd)
    packer.start()
    return packer
