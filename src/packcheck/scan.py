"""The NumPy packer: the reference's answers, computed in vectorised levels.

The public face of the kernel (:mod:`packcheck._engines.levels` holds it, and
:mod:`packcheck._engines.numpy_entry` its entry points): :func:`pack_sizes` packs one
list of sizes, :func:`pack_batch` many at once.  Each gives exactly
:func:`packcheck.reference.pack_sizes`'s answer at any magnitude.
"""

from __future__ import annotations

from ._engines.numpy_entry import pack_batch, pack_sizes
from ._engines.rounds import KernelError
from ._engines.rule_batch import RuleBatch

__all__ = ["KernelError", "RuleBatch", "pack_batch", "pack_sizes"]
