"""The NumPy packer: the reference's answers, computed in vectorised levels.

The public face of the kernel (:mod:`packcheck._engines.levels` holds it):
:func:`pack_sizes` packs one list of sizes, :func:`pack_batch` many at once, and
:func:`pack_input` takes sizes already checked into the kernel's int64 boundary.
Each gives exactly :func:`packcheck.reference.pack_sizes`'s answer at any magnitude.
"""

from __future__ import annotations

from ._engines.levels import KernelError, pack_batch, pack_sizes
from ._engines.rule_batch import RuleBatch

__all__ = ["KernelError", "RuleBatch", "pack_batch", "pack_sizes"]
