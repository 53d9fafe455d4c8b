"""packcheck: which required evidence did this exact pack evict, and why?

The declared packer scans an ordered list of indivisible blocks once, keeping every
block that fits the remaining budget and skipping the rest without stopping.
:func:`pack` gives its declared output (:func:`pack_many` for many cases at once),
:func:`trace` the partition and the reason each missing required ID is missing.
Engines (``"reference"``, ``"numpy"``) change speed, never the answer.
"""

from __future__ import annotations

from ._engines.choice import ENGINES, Engine
from ._engines.pack import SIZE_ERROR, pack, pack_many
from ._partition.trace import Bucket, Partition, Reason, Step, Trace, trace
from ._rule.declared import Rule, RuleError
from ._rule.model import Case, MalformedCase, SizeError, read_case
from ._rule.order import sorted_utf16, utf16_key
from ._rule.units import MAX_DIGITS

__all__ = [
    "ENGINES",
    "MAX_DIGITS",
    "SIZE_ERROR",
    "Bucket",
    "Case",
    "Engine",
    "MalformedCase",
    "Partition",
    "Reason",
    "Rule",
    "RuleError",
    "SizeError",
    "Step",
    "Trace",
    "__version__",
    "pack",
    "pack_many",
    "read_case",
    "sorted_utf16",
    "trace",
    "utf16_key",
]

__version__ = "0.1.0"
