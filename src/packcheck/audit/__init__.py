"""Auditing a recorded run: did every model step capture the partition the rule gives?

A run is JSON Lines, one model step per line (docs/rule.md, "A recorded run").  Each
step is checked for a partition, the partition facts, a recorded result that is the
declared output, and a record that survives a round trip; a line that is not a step is
malformed, counted, and the rest still checked.  :class:`Audit` keeps only counters, so
any run is audited in flat memory, and tallies what the run lost.  :func:`check_runs`
audits many files as one run, here or on a Dask cluster (docs/partition.md), and
:func:`audited` yields their violations as it finds them (``packcheck audit``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from .._cluster import ClusterError
from .._inputs import PIECE_BYTES, ReadError, expand
from .._partition.facts import PartitionError, check_partition
from .._rule.declared import Rule
from ._check import CHECKS, MAX_TRACKED_IDS, Audit, check_run
from ._merge import audited
from ._record import RuleMismatch, record_step
from ._report import Loss, RunReport, RunSummary, Violation

__all__ = [
    "CHECKS",
    "MAX_TRACKED_IDS",
    "PIECE_BYTES",
    "Audit",
    "ClusterError",
    "Loss",
    "PartitionError",
    "ReadError",
    "RuleMismatch",
    "RunReport",
    "RunSummary",
    "Violation",
    "audited",
    "check_partition",
    "check_run",
    "check_runs",
    "record_step",
]


def check_runs(
    paths: Sequence[str | os.PathLike[str]],
    client: Any = None,
    *,
    piece_bytes: int = PIECE_BYTES,
    rule: Rule | None = None,
) -> RunReport:
    """Audit the recorded runs in ``paths`` as one run, every violation kept.

    ``paths``: files, globs, ``-`` (standard input), ``.gz`` files, fsspec URLs; with
    several, each violation names its ``file``.  With ``client`` (a
    ``distributed.Client``) the files are cut into pieces of about ``piece_bytes`` and
    audited on its cluster; the report is the same.  ``rule`` (``None``: the seed's) is
    the declared rule.  Raises :class:`ReadError` for an unreadable file or an empty
    glob (:class:`RuleMismatch` for a step of another rule), :class:`ClusterError` if
    the cluster fails a task.
    """
    names = expand([os.fspath(path) for path in paths])
    run = None
    if client is not None:
        from .._cluster import dask_runner

        if "-" in names:
            raise ReadError("<stdin>", "a cluster reads files, not standard input")
        run = dask_runner(client)
    audit = Audit(rule=rule)
    found = tuple(audited(names, audit, run, piece_bytes))
    return RunReport(found, audit.summary())
