"""The compiled engine: the reference's loop compiled by Numba, an optional extra
(``pip install 'packcheck[numba]'``).

:func:`pack_sizes` and :func:`pack_batch` take :mod:`packcheck.scan`'s arguments and
give its answers and errors.  The first call imports Numba and compiles the loop
(cached on disk); without Numba it raises ``ImportError`` naming the extra.
"""

from __future__ import annotations

from ._engines.compiled import MISSING, pack_batch, pack_sizes

__all__ = ["MISSING", "pack_batch", "pack_sizes"]
