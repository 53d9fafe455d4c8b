"""Auditing a recorded run: did every model step capture the partition the rule gives?

A run is JSON Lines, one model step per line (docs/rule.md, "A recorded run"): the step's
case (``budget``, ``blocks``, ``required``), the ``partition`` captured at pack time
and, when recorded, ``result``, the declared output.  Other keys (``step``,
``attempt``, timestamps) belong to the recording system: kept, and ignored.

Each step is checked for: a partition present and not ``null``; the partition facts
of :func:`packcheck._partition.facts.check_partition` for that step's case; a recorded
result that is the declared output; and a record that survives a round trip (read,
written back by packcheck, read again: the same JSON text).  A line that is not a
step at all (not UTF-8, not JSON, not an object, not a well-formed case) is
malformed: named, counted, and the other lines are still checked.  Under a declared
rule (``rule=``) the partition and the result are that rule's, and a step whose ``rule``
key names another rule stops the audit (:class:`RuleMismatch`).

:class:`Audit` takes one line at a time and keeps only counters, so a run of any
length is audited in flat memory; it also tallies what the run *lost*: each required
ID missing in some step, how often and why (evicted, oversized, not retrieved).
:func:`check_runs` audits many files (``.gz``, globs, fsspec URLs) as one run, in this
process or on a Dask cluster (the ``dask`` extra, imported only then), and
:func:`audited` yields their violations as it finds them (``packcheck audit``), reading each
file a chunk of lines at a time: the steps of a chunk that ``packcheck pack --record``
wrote under the default rule are checked together, in bulk (``_batch``, ``_bulk``), and
every other line, and every step that differs, by :meth:`Audit.check_line`, whose
report is the same.
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

    ``paths`` are files, globs (matches sorted), ``-`` for standard input, ``.gz``
    files and fsspec URLs (``s3://...``, where fsspec and its backend are installed).
    With several files each violation and lost step names its ``file``.  With
    ``client``, a ``distributed.Client``, the files are cut at line ends into pieces
    of about ``piece_bytes`` (a ``.gz`` file is one piece) and audited on its cluster,
    whose workers must reach the files; the report is the one this process gives.
    ``rule`` (``None``: the seed's rule) is the declared rule the steps are checked
    against, on the cluster too.  Raises :class:`ReadError` for a file that cannot be
    read or a glob that matches nothing (:class:`RuleMismatch`, one of them, for a step
    recorded under another rule), and :class:`ClusterError` if the cluster fails a task.
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
