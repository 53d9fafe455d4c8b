"""The compiled engine: the reference's loop compiled by Numba, an optional extra.

``pip install 'packcheck[numba]'``.  :func:`pack_sizes` and :func:`pack_batch` take
the arguments of :mod:`packcheck.scan`'s and give the same answers (and errors):
exactly :func:`packcheck.reference.pack_sizes`'s, at any magnitude.  The loop never
sums a prefix: the remaining only shrinks by sizes that fit, so int64 cannot overflow;
inputs outside that guarantee (a size below 1, a budget past int64) go to the
reference.  Importing this module does not import Numba; the first call does, and
compiles the loop (cached on disk for later processes).  Without Numba, a call raises
``ImportError`` whose message names the extra.
"""

from __future__ import annotations

from ._engines.compiled import MISSING, pack_batch, pack_sizes

__all__ = ["MISSING", "pack_batch", "pack_sizes"]
