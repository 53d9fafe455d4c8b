"""Benchmarks of the packers, measured side by side: the library behind ``packcheck bench``.

:func:`ab` is the gate to use: NEW against OLD, timed in pairs in one process, a
verdict per workload in an :class:`ABReport`; either side is a kernel or a case-level
subject (:func:`python_subject`, :class:`CommandSubject`).  A subject that cannot be
measured raises :class:`BenchError`.
"""

from __future__ import annotations

from .._bench import ABReport, BenchError, CommandSubject, ab, python_subject

__all__ = ["ABReport", "BenchError", "CommandSubject", "ab", "python_subject"]
