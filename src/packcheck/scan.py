"""The NumPy packer: :func:`packcheck.reference.pack_sizes`'s answers at any magnitude,
computed in vectorised levels, for one list of sizes (:func:`pack_sizes`) or many at
once (:func:`pack_batch`)."""

from __future__ import annotations

from ._engines.numpy_entry import pack_batch, pack_sizes
from ._engines.rounds import KernelError
from ._engines.rule_batch import RuleBatch

__all__ = ["KernelError", "RuleBatch", "pack_batch", "pack_sizes"]
