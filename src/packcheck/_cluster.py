"""Running on a Dask cluster: a local one of N processes, or one at a scheduler's address.

Dask is imported only here, when a cluster is asked for.  Tasks are submitted a window
at a time and their results taken in order; a lost worker's tasks run again elsewhere,
and leaving early cancels the tasks still pending.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from itertools import islice
from typing import Any, TypeVar

from ._inputs import Runner

__all__ = ["CONNECT_TIMEOUT", "ClusterError", "cluster", "dask_runner"]

#: Seconds to reach a scheduler (and for it to have a worker) before giving up.
CONNECT_TIMEOUT = 10.0
#: How a local cluster's processes start: forked on Linux, so a worker starts with
#: packcheck, NumPy and Dask imported (docs/performance.md, "What Dask costs"); from
#: Python 3.12, which warns that forking a process with threads may deadlock the child,
#: from a forkserver (Dask preloads it); spawned elsewhere.
_START = (
    "spawn" if sys.platform != "linux" else "fork" if sys.version_info < (3, 12) else "forkserver"
)
#: A local cluster's housekeeping, made rare: each wakes a process's event loop, whose
#: thread then takes the GIL from the task's.  The profiler is off; the event loops'
#: health checks and the system and memory monitors run seldom.
_QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}
#: Tasks in flight at least (else twice the cluster's threads): results wait in order.
_WINDOW = 8
_T = TypeVar("_T")
_R = TypeVar("_R")
# Whether this process is ready for a cluster: see :func:`_distributed`.
_READY: list[bool] = []


class ClusterError(Exception):
    """The cluster cannot be had or reached, or it failed a task: one line."""


def _distributed(flag: str) -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"{flag} needs the dask extra: pip install 'packcheck[dask]'") from None
    return distributed


def _ready() -> None:
    """This process made ready for a cluster: the at-fork hook of :class:`_Held`
    registered (once), and what is alive frozen."""
    if not _READY:
        _READY.append(True)
        if hasattr(os, "register_at_fork"):  # pragma: no branch (POSIX)
            os.register_at_fork(after_in_child=_own_signals)
    # What is alive now, Dask's modules above all, is left out of the collector from
    # here on (a forked worker inherits it so), or CPython's last collections at exit
    # would walk it all (docs/performance.md, "What Dask costs").
    gc.freeze()


@contextmanager
def cluster(
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float = CONNECT_TIMEOUT,
    *,
    fork: bool = True,
) -> Iterator[Runner]:
    """A :class:`Runner` on a local cluster of ``workers`` processes (one thread each),
    or on the cluster at ``scheduler``; closed (the local one stopped) on leaving.

    ``fork=False`` spawns a local cluster's workers, for tasks that must not inherit this
    process's state (a gate run's Hypothesis).  Logging is kept to what is critical, so
    a run prints only its own lines; a task's failure comes back as an exception.
    """
    distributed = _distributed("--workers" if scheduler is None else "--scheduler")
    _ready()
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    if scheduler is None:
        import dask

        start = _START if fork else "spawn"
        local_settings = {"distributed.worker.multiprocessing-method": start, **_QUIET}
        # One worker is a thread of this process (Dask's ``processes=False``): a process
        # of its own would run nothing beside it, and cost its start and a pickling of
        # each result, a tenth of a 100,000-step audit.  Not for tasks kept from this
        # process's state (``fork`` False): those have processes, spawned.
        threaded = fork and workers == 1
        if start != "fork" and not threaded:
            from multiprocessing import resource_tracker

            # Started later, from Dask's thread, it would unblock that thread's Ctrl-C
            # (see _Held), and the workers that thread starts would inherit it.
            resource_tracker.ensure_running()
        # Signals held: half started, a local cluster cannot be stopped cleanly.
        with _Held() as held, dask.config.set(local_settings), _quiet_spawned_logs():
            local = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=not threaded,
                dashboard_address=":0",  # its HTTP server on a free port, never 8787
                silence_logs=logging.CRITICAL,
            )
            client = distributed.Client(local, set_as_default=False)
        with local, client:
            held.release()
            yield dask_runner(client)
        return
    with _connect(distributed, scheduler, timeout) as client:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            raise ClusterError(f"--scheduler {scheduler}: no worker within {timeout:g} s") from None
        yield dask_runner(client)


def _connect(distributed: Any, scheduler: str, timeout: float) -> Any:
    """A client of the scheduler at ``scheduler``, or a one-line :class:`ClusterError`
    within about ``timeout`` seconds, whatever answers there.

    Dask's ``timeout`` bounds reaching the address, not the handshake, so the client is
    made on a thread of its own and left there if it never comes; a peer that answers
    something else fails it in any way, each the one line.
    """
    where = f"--scheduler {scheduler}"
    try:
        distributed.comm.resolve_address(scheduler)  # no client for an address without a port
    except (OSError, ValueError) as exc:
        raise ClusterError(f"{where}: cannot connect: {exc}") from None
    made: list[Any] = []

    def connect() -> None:
        client = distributed.Client.__new__(distributed.Client)
        try:
            client.__init__(scheduler, timeout=timeout, set_as_default=False)
        except Exception as exc:
            # Half made, it would wait for the peer to let it close when collected (20 s),
            # and print that it waited in vain.
            client.status = "closed"
            made.append(exc)
        else:
            made.append(client)

    thread = threading.Thread(target=connect, name="packcheck-connect", daemon=True)
    thread.start()
    thread.join(timeout + 1)
    if not made:
        raise ClusterError(f"{where}: no answer within {timeout:g} s (is it a Dask scheduler?)")
    if isinstance(made[0], Exception):
        failed = made[0]
        why = f"{type(failed).__name__}: {failed}"
        if isinstance(failed, (OSError, ValueError)):
            why = str(failed)
        raise ClusterError(f"{where}: cannot connect: {why}") from None
    return made[0]


class _Held:
    """Ctrl-C and SIGTERM held while in it, and delivered by :meth:`release`.

    Ctrl-C is blocked in the thread's signal mask, which every process and thread
    started meanwhile inherits, so the client alone stops the cluster, without workers'
    tracebacks; a process forked meanwhile ignores Ctrl-C and ends on SIGTERM.  Dask's
    logging is kept to what is critical.
    """

    _holding = False

    def __enter__(self) -> _Held:
        self._got: list[int] = []
        self._before: dict[int, Any] = {}
        self._mask: set[int | signal.Signals] | None = None
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._before[sig] = signal.signal(sig, lambda sig, _: self._got.append(sig))
            if hasattr(signal, "pthread_sigmask"):  # pragma: no branch (POSIX)
                self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            _Held._holding = True
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        _Held._holding = False
        for sig, handler in self._before.items():
            signal.signal(sig, handler)
        if kind is not None:
            self.release()

    def release(self) -> None:
        """The signal held, if any, delivered now (to the handlers it was held from)."""
        if self._mask is not None:
            mask, self._mask = self._mask, None
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a Ctrl-C pending raises here
        if self._got:
            signal.raise_signal(self._got[0])


@contextmanager
def _quiet_spawned_logs() -> Iterator[None]:
    """A worker spawned in it logs what is critical only, as a forked one does (see
    :class:`_Held`): Dask reads its logging levels from the environment at import."""
    name = "DASK_LOGGING__DISTRIBUTED"
    before = os.environ.get(name)
    os.environ[name] = "critical"
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


def _own_signals() -> None:
    """In a child forked while signals are held: Ctrl-C ignored, SIGTERM's default."""
    if _Held._holding:
        _Held._holding = False
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        logging.getLogger("distributed").setLevel(logging.CRITICAL)


def dask_runner(client: Any) -> Runner:
    """The :class:`Runner` of a ``distributed.Client``: each item a task on its cluster."""
    return partial(_ordered, client)


def _ordered(client: Any, fn: Callable[[_T], _R], items: Sequence[_T]) -> Generator[_R, None, None]:
    window = max(_WINDOW, 2 * sum(client.nthreads().values()))
    todo = iter(items)
    pending: deque[Any] = deque()
    try:
        pending.extend(client.submit(fn, item, pure=False) for item in islice(todo, window))
        while pending:
            future = pending.popleft()
            try:
                result = future.result()
            except Exception as exc:
                why = f"{type(exc).__name__}: {exc}"
                raise ClusterError(f"the cluster failed a task: {why}") from exc
            future.release()
            pending.extend(client.submit(fn, item, pure=False) for item in islice(todo, 1))
            yield result
    finally:
        if pending:
            client.cancel(list(pending))
