"""One run of a :class:`~._spec.Spec` (:func:`run`): of its seed in this process, or,
with ``--seeds``, of each seed, one after another or across the workers of a Dask
cluster (``--workers N``, ``--scheduler ADDRESS``).

The verdict of several seeds is the lowest failing seed's run, whole, else one report
that counts them all.  On a cluster each seed is a task (:func:`run_task`) whose packers
start in this process's directory (where a worker has no such directory, in its own),
taken in seed order; once one fails, those still pending are cancelled, and a task no
longer wanted stops within :data:`WATCH_SECONDS`.  Saved failures are read here and sent
with each task; a new one is saved here, once.  Dask is imported only for a cluster.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis.errors import HypothesisDeprecationWarning

from .._gate import CHECKED, PHASES, Fixture, Outcome, Progress, replayed, save_new
from .._gate.outcome import NEAR, tallies
from .._packers import SetupError
from .._rule.sources import SourceError
from .._stop import Stopped, cancellable, end_all
from ._progress import SEEDS
from ._spec import Spec
from ._subjects import run_seed

__all__ = ["WATCH_SECONDS", "run", "run_task"]

#: Seconds between two looks, on a worker, at whether its task is still wanted.
WATCH_SECONDS = 0.2
#: Worker states of a task still wanted.
_RUNNING = ("executing", "long-running")
# Whether this process is ready to run tasks (a worker's): see :func:`_ready`.
_READY: list[bool] = []


def run(spec: Spec, progress: Progress | None = None) -> Outcome:
    """The verdict of ``spec``'s run: of its seed in this process, or with ``seeds``,
    ``workers`` or ``scheduler`` of each seed (:func:`_verdict`).  Raises
    :class:`OSError`, :class:`SourceError` or :class:`SetupError` when it cannot run at
    all (a command that ended before answering any case never ran as a packer, a
    cluster that cannot be had)."""
    if spec.junit_xml is not None:
        _writable_file(spec.junit_xml)
    if spec.seeds is not None or spec.workers is not None or spec.scheduler is not None:
        return _flagged(_verdict(spec, progress))
    return _flagged(run_seed(spec, progress))


def _writable_file(path: Path) -> None:
    """Raise :class:`OSError` unless a report can be written at ``path``."""
    if path.is_dir():
        raise OSError(f"--junit-xml {path}: is a directory")
    folder = path.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise OSError(f"--junit-xml {path}: {folder} is not a writable directory")


def _flagged(outcome: Outcome) -> Outcome:
    """``outcome`` in the command's words: the settings its report names, as flags."""
    notes = tuple(
        n.replace("; a longer timeout raises", "; --timeout raises") for n in outcome.notes
    )
    if outcome.finding is None:
        return replace(outcome, notes=notes)
    saved = outcome.saved
    if outcome.saved_to is not None:
        saved = f"{saved} (replayed first by the next run with --save-failures)"
    finding = replace(outcome.finding, saving="--save-failures DIR")
    return replace(outcome, finding=finding, saved=saved, notes=notes)


def run_task(job: Spec) -> Outcome | str:
    """A cluster's task: the run of ``job``'s seed, or the one line that says why it
    cannot run (a packer that cannot be loaded or started, fixtures that cannot be
    read), as the command would say it; ``"cancelled"`` when it was stopped."""
    if job.cwd is not None and not os.path.isdir(job.cwd):
        job = replace(job, cwd=None)
    _ready()
    try:
        with cancellable() as cancel, _watching(cancel, _wanted()):
            return run_seed(job, None)
    except Stopped:
        return "cancelled"  # nobody waits for it
    except (OSError, SourceError, SetupError) as exc:
        return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _ready() -> None:
    """This process made ready for tasks, once: a worker that closes leaves no packer
    running, and Hypothesis's warning that the ``random`` module's state changed while
    it drew a case is not shown.  On a Dask worker Hypothesis gives that warning at every
    run (distributed 2026.8.0), though the gate uses its own ``random.Random`` alone, and
    every report is the one-process run's (tests/cli/test_seeds_cluster.py)."""
    if _READY:
        return
    _READY.append(True)
    atexit.register(end_all)
    warnings.filterwarnings(
        "ignore", "Do not use the `random` module inside strategies", HypothesisDeprecationWarning
    )


def _wanted() -> Callable[[], bool] | None:
    """On a Dask worker, whether the task running in this thread is still wanted
    (``None`` elsewhere)."""
    distributed = sys.modules.get("distributed")
    if distributed is None:
        return None
    try:
        worker = distributed.get_worker()
    except ValueError:  # not in a worker's task
        return None
    key = worker.get_current_task()

    def wanted() -> bool:
        task = worker.state.tasks.get(key)
        running = worker.status.name in ("running", "paused")
        return running and task is not None and task.state in _RUNNING

    return wanted


@contextmanager
def _watching(cancel: Callable[[], None], wanted: Callable[[], bool] | None) -> Iterator[None]:
    """Within: ``cancel()`` called once ``wanted()`` is false, looked at every
    :data:`WATCH_SECONDS` by a thread of its own (``wanted`` ``None``: never)."""
    if wanted is None:
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while not done.wait(WATCH_SECONDS):
            if not wanted():
                cancel()
                return

    watcher = threading.Thread(target=watch, name="packcheck-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def _answered(result: Outcome | str) -> Outcome:
    if isinstance(result, str):
        raise SetupError(result)
    return result


@contextmanager
def _outcomes(
    s: Spec, jobs: Sequence[Spec], progress: Progress | None
) -> Iterator[Iterator[Outcome]]:
    """The runs of ``jobs``, in order: here, one after another, or on the cluster
    ``s`` asks for (stopped, its tasks still pending cancelled, on leaving)."""
    if s.workers is None and s.scheduler is None:
        yield (run_seed(job, progress) for job in jobs)
        return
    from .._cluster import CONNECT_TIMEOUT, ClusterError, cluster

    timeout = CONNECT_TIMEOUT if s.connect_timeout is None else s.connect_timeout
    sent = [replace(job, cwd=os.getcwd()) for job in jobs]
    try:
        with (
            cluster(s.workers, s.scheduler, timeout, fork=False) as run,
            closing(run(run_task, sent)) as results,
        ):
            yield (_answered(result) for result in results)
    except ClusterError as exc:
        raise SetupError(str(exc)) from None


def _all_passed(outcomes: Sequence[Outcome], seconds: float) -> Outcome:
    """One outcome for runs that all passed: their seeds, cases and phases summed."""

    def total(field: str, phases: Sequence[str]) -> dict[str, Any]:
        return {p: sum(getattr(o, field).get(p, 0) for o in outcomes) for p in phases}

    ran = [p for p in CHECKED if any(p in o.phase_seconds for o in outcomes)]
    return replace(
        outcomes[0],
        seconds=seconds,
        checked=total("checked", (*PHASES, NEAR)),
        failing=total("failing", (*PHASES, NEAR)),
        phase_seconds=total("phase_seconds", ran),
        seeds=tuple(o.seed for o in outcomes),
        **tallies(outcomes),
    )


def _verdict(s: Spec, progress: Progress | None) -> Outcome:
    """The verdict of the runs of ``s.seeds`` (or of its one seed, on a cluster): the
    lowest failing seed's run, saved if new, else one outcome for them all."""
    save = s.settings.save_failures
    fixtures: tuple[Fixture, ...] | None = None
    skipped: tuple[str, ...] = ()  # notes on the saved folder's entries left out
    if save is not None:
        replay, notes = replayed(s.settings)
        fixtures, skipped = tuple(replay), tuple(notes)
    jobs = [
        replace(
            s,
            settings=replace(s.settings, seed=seed, save_failures=None, fixtures=fixtures),
            seeds=None,
        )
        for seed in s.seeds or (s.settings.seed or 0,)
    ]
    started = time.monotonic()
    outcomes: list[Outcome] = []
    with _outcomes(s, jobs, progress) as ran:
        for outcome in ran:
            outcomes.append(outcome)
            if progress is not None:
                progress(SEEDS, len(outcomes), len(jobs))
            if outcome.finding is not None:  # the lowest failing seed: the rest cancelled
                return save_new(_noted(outcomes[-1], skipped), save)
    if s.seeds is None:  # one seed, run on a cluster: its own report
        return _noted(outcomes[0], skipped)
    all_passed = _all_passed(outcomes, time.monotonic() - started)
    return _noted(replace(all_passed, rerun=s.rerun(None)), skipped)


def _noted(outcome: Outcome, skipped: tuple[str, ...]) -> Outcome:
    """``outcome`` with the notes on the saved folder's entries skipped first."""
    return replace(outcome, notes=(*skipped, *outcome.notes))
