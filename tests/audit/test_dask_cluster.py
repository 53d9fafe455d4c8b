"""``audit`` and ``pack`` on a real Dask cluster: a ``dask scheduler`` and two ``dask
worker`` processes on localhost (random ports: tests/conftest.py's ``scheduler``), shared
by the module and stopped after it; and ``--workers 2``, a local cluster.  Each output
is compared with the one-process run's, byte for byte.  Skipped where the ``dask``
extra is not installed."""

from __future__ import annotations

import contextlib
import gzip
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from runs import clean_run, planted_run, text
from signalled import stopped

distributed = pytest.importorskip(
    "distributed", reason="the dask extra is not installed: pip install 'packcheck[dask]'"
)
psutil = pytest.importorskip("psutil", reason="comes with distributed")

from packcheck import Rule  # noqa: E402
from packcheck._cli import main  # noqa: E402
from packcheck._cluster import _QUIET, cluster, dask_runner  # noqa: E402
from packcheck._inputs import count_lines, whole  # noqa: E402
from packcheck.audit import ClusterError, ReadError, check_runs, record_step  # noqa: E402

SHARDS = 8


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A planted run (violations, malformed lines, losses) as 8 gzip shards."""
    where = tmp_path_factory.mktemp("shards")
    lines = text(planted_run()[0]).splitlines(keepends=True)
    lines[5] = "not json\n"
    names = []
    for index in range(SHARDS):
        name = where / f"run-{index}.jsonl.gz"
        with gzip.open(name, "wt", encoding="utf-8") as stream:
            stream.writelines(lines[index::SHARDS])
        names.append(str(name))
    return names


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("shown", [[], ["--json"]])
def test_audit_of_gzip_shards_on_the_cluster_is_the_one_process_audit(
    scheduler: str, shards: list[str], shown: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    alone = _run(capsys, "audit", *shown, *shards)
    assert alone[0] == 2  # the planted violations, and a malformed line
    assert "run-0.jsonl.gz" in alone[1]
    assert _run(capsys, "audit", *shown, "--scheduler", scheduler, *shards) == alone


def test_pieces_of_plain_files_on_the_cluster(scheduler: str, tmp_path: Path) -> None:
    run = tmp_path / "run.jsonl"
    run.write_text(text(planted_run()[0]) * 3)
    names = [str(run), str(run)]
    with distributed.Client(scheduler, set_as_default=False) as client:
        assert check_runs(names, client=client, piece_bytes=5_000) == check_runs(names)
        with pytest.raises(ReadError, match="<stdin>: a cluster reads files"):
            check_runs(["-"], client=client)


def test_a_rule_is_carried_to_the_cluster(scheduler: str, tmp_path: Path) -> None:
    """Each piece is audited under the rule on a worker; a step recorded under another
    rule in a later piece is named by its line in its file."""
    rule = Rule(order="reversed", on_misfit="stop", per_item=2, pin="first")
    steps = [{**step, **record_step(step, rule=rule)} for step in clean_run()]
    steps[7]["partition"] = None
    run = tmp_path / "run.jsonl"
    run.write_text(text(steps))
    names = [str(run)]
    with distributed.Client(scheduler, set_as_default=False) as client:
        alone = check_runs(names, rule=rule)
        assert [v.line for v in alone.violations] == [8]
        assert alone.summary.rule == rule.describe()
        assert check_runs(names, client=client, piece_bytes=5_000, rule=rule) == alone
        steps[250] = {**steps[250], **record_step(steps[250], rule=Rule(fit="lt"))}
        run.write_text(text(steps))
        with pytest.raises(
            ReadError, match=re.escape('run.jsonl: line 251: recorded under the rule fit = "lt"')
        ):
            check_runs(names, client=client, piece_bytes=5_000, rule=rule)


def test_pack_on_the_cluster_is_byte_identical(
    scheduler: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    cases = tmp_path / "cases.jsonl"
    lines = text(planted_run()[0]).splitlines(keepends=True)
    cases.write_text("".join(lines[:40]) + "{bad\n" + "".join(lines[40:]))
    monkeypatch.setattr("packcheck._cli.pack.PIECE_BYTES", 4_000)  # several pieces
    for shown in ([], ["--record"], ["--explain"]):
        alone = _run(capsys, "pack", *shown, str(cases), str(cases))
        assert alone[0] == 2
        assert "line 41: invalid JSON" in alone[2]
        assert _run(capsys, "pack", *shown, "--scheduler", scheduler, str(cases), str(cases)) == (
            alone
        )


def test_a_worker_killed_mid_audit_is_survived(scheduler: str, tmp_path: Path) -> None:
    run = tmp_path / "run.jsonl"
    run.write_text(text(planted_run()[0]) * 40)  # 12,000 steps in 300 pieces
    names = [str(run)]
    expected = check_runs(names)
    with distributed.Client(scheduler, set_as_default=False) as client:
        pids = client.run(os.getpid)
        victim, pid = sorted(pids.items())[0]
        got: list[Any] = []
        audit = threading.Thread(
            target=lambda: got.append(check_runs(names, client=client, piece_bytes=12_000))
        )
        audit.start()
        while not any("audit_task" in str(key) for key in client.processing().get(victim, ())):
            assert audit.is_alive()
            time.sleep(0.01)
        os.kill(pid, signal.SIGKILL)
        killed_mid_run = audit.is_alive()
        audit.join()
        client.wait_for_workers(2, timeout=60)  # its nanny starts it again
    assert killed_mid_run
    assert got == [expected]


def test_a_failed_task_is_a_cluster_error(scheduler: str, tmp_path: Path) -> None:
    with distributed.Client(scheduler, set_as_default=False) as client:
        run = dask_runner(client)
        assert list(run(count_lines, [whole(str(tmp_path))])) == ["cannot read: Is a directory"]
        with pytest.raises(ClusterError, match="the cluster failed a task: ZeroDivisionError"):
            list(run(lambda n: 1 // n, [1, 0, 2]))


def _worker_signals(_: int) -> tuple[object, object]:
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)


def _worker_quiet(_: int) -> tuple[bool, int]:
    import logging

    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return blocked, logging.getLogger("distributed.worker").getEffectiveLevel()


def _worker_settings(_: int) -> list[object]:
    import dask

    return [dask.config.get(key) for key in _QUIET]


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_a_local_clusters_workers_ignore_ctrl_c_and_end_on_sigterm() -> None:
    """A terminal's Ctrl-C reaches every process of the job: the client stops the
    cluster, and the workers print no ``KeyboardInterrupt`` of their own.  Their
    housekeeping runs seldom."""
    with cluster(workers=2) as run:
        assert set(run(_worker_signals, range(4))) == {(signal.SIG_IGN, signal.SIG_DFL)}
        assert list(run(_worker_settings, [0])) == [list(_QUIET.values())]
    assert _QUIET["distributed.admin.tick.interval"] == "1s"


def _where(_: int) -> tuple[int, bool]:
    return os.getpid(), threading.current_thread() is threading.main_thread()


@pytest.mark.parametrize(("workers", "fork", "here"), [(1, True, True), (1, False, False)])
def test_one_worker_is_a_thread_of_this_process_unless_kept_apart(
    workers: int, fork: bool, here: bool
) -> None:
    """``--workers 1`` runs its tasks on a thread of this process, with Ctrl-C blocked
    there (it reaches the main thread, which stops the cluster); tasks kept from this
    process's state (``--seeds``) still have a process, spawned."""
    with cluster(workers=workers, fork=fork) as run:
        ((pid, main_thread),) = run(_where, [0])
        ((blocked, level),) = run(_worker_quiet, [0])
    assert (pid == os.getpid(), main_thread) == (here, False)
    assert (blocked, level) == (True, logging.CRITICAL)


@pytest.mark.parametrize("fork", [True, False])
def test_a_local_clusters_workers_never_see_ctrl_c_and_log_only_what_is_critical(
    fork: bool,
) -> None:
    """Forked or spawned (as ``--seeds`` spawns them), a worker has Ctrl-C blocked from
    its start, and its Dask logs nothing below critical: a heartbeat that outlives the
    scheduler when the cluster stops prints nothing."""
    with cluster(workers=2, fork=fork) as run:
        assert set(run(_worker_quiet, range(4))) == {(True, logging.CRITICAL)}
        scheduler = logging.getLogger("distributed.scheduler")  # in this process
        assert scheduler.getEffectiveLevel() == logging.CRITICAL
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_a_local_cluster_of_two_workers(
    shards: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    alone = _run(capsys, "audit", "--json", *shards)
    assert _run(capsys, "audit", "--json", "--workers", "2", *shards) == alone


def test_an_unreachable_scheduler_is_one_line(
    shards: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _run(
        capsys, "audit", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1", *shards
    )
    assert (status, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith(
        "packcheck audit: error: --scheduler tcp://127.0.0.1:9: cannot connect: "
    )
    status, _, err = _run(capsys, "pack", "--scheduler", "nowhere:1", "--connect-timeout", "1")
    assert status == 2
    assert err.startswith("packcheck pack: error: --scheduler reads FILEs, not standard input")


@pytest.mark.parametrize(
    ("sig", "status", "group", "workers"),
    [
        (signal.SIGINT, 130, False, 2),
        (signal.SIGTERM, 143, False, 2),
        (signal.SIGINT, 130, True, 2),
        (signal.SIGINT, 130, True, 1),
        (signal.SIGTERM, 143, False, 1),
    ],
)
def test_a_signal_stops_the_local_cluster_and_leaves_nothing_running(
    tmp_path: Path, sig: signal.Signals, status: int, group: bool, workers: int
) -> None:
    """``group``: sent to every process of the job, as a terminal's Ctrl-C is: the
    workers print nothing of it.  One worker is a thread: the process stops with it."""
    run = tmp_path / "run.jsonl"
    run.write_text(text(planted_run()[0]) * 400)  # 120,000 steps: minutes of work

    def started(parent: Any) -> bool:  # its workers: two processes, or (one) Dask's threads
        return bool(
            len(parent.children(recursive=True)) >= 2 if workers > 1 else parent.num_threads() >= 3
        )

    argv = [sys.executable, "-m", "packcheck", "audit", "--workers", str(workers), str(run)]
    returncode, err, alive = stopped(argv, sig, group, started)
    assert (returncode, alive) == (status, [])
    assert len(err.splitlines()) <= 1


def test_a_file_unreadable_midway_stops_the_run_there(
    scheduler: str, shards: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(Path(shards[1]).read_bytes()[:-30])
    names = [shards[0], str(cut), *shards[2:]]
    alone = _run(capsys, "audit", *names)
    assert alone[0] == 2
    assert alone[2].splitlines()[-1].startswith(f"packcheck audit: error: {cut}: cannot read: ")
    assert _run(capsys, "audit", "--scheduler", scheduler, *names) == alone


@pytest.mark.parametrize("shown", [[], ["--format", "json"]])
def test_an_unreadable_shard_among_six_ends_nothing_on_the_cluster(
    scheduler: str, tmp_path: Path, shown: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    lines = text(planted_run()[0]).splitlines(keepends=True)
    names = []
    for index in range(6):
        name = tmp_path / f"shard-{index}.jsonl.gz"
        data = gzip.compress("".join(lines[index * 50 : index * 50 + 50]).encode())
        name.write_bytes(data[: len(data) // 2] if index == 3 else data)
        names.append(str(name))
    alone = _run(capsys, "audit", *shown, *names)
    assert alone[0] == 2
    assert alone[2].splitlines() == [
        f"packcheck audit: error: {names[3]}: cannot read: Compressed file ended before the "
        "end-of-stream marker was reached"
    ]
    out = alone[1].splitlines()
    assert any(names[4] in line for line in out[:-1])  # shards after the cut one audited
    assert "unreadable" in out[-1]  # and the summary says which could not be read
    assert _run(capsys, "audit", *shown, "--scheduler", scheduler, *names) == alone


def test_a_scheduler_without_workers_is_one_line(
    shards: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as empty:
        status, out, err = _run(
            capsys,
            "audit",
            "--scheduler",
            empty.scheduler_address,
            "--connect-timeout",
            "0.5",
            *shards,
        )
    assert (status, out) == (2, "")
    assert (
        err == f"packcheck audit: error: --scheduler {empty.scheduler_address}: no worker "
        "within 0.5 s\n"
    )


@pytest.fixture
def peer() -> Iterator[Callable[[bytes], str]]:
    """A TCP server on a free port that is no Dask scheduler: it answers each
    connection with the bytes given (given none, it never answers)."""
    servers: list[socket.socket] = []

    def serve(reply: bytes) -> str:
        server = socket.create_server(("127.0.0.1", 0))
        servers.append(server)

        def accept() -> None:
            held = []
            with contextlib.suppress(OSError):
                while True:
                    connection, _ = server.accept()
                    held.append(connection)  # open until the test ends
                    connection.sendall(reply)

        threading.Thread(target=accept, daemon=True).start()
        return f"tcp://127.0.0.1:{server.getsockname()[1]}"

    yield serve
    for server in servers:
        server.close()


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (b"", "no answer within 1 s (is it a Dask scheduler?)"),
        (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4, "cannot connect: "),
    ],
)
@pytest.mark.parametrize("command", ["audit", "verify"])
def test_a_peer_that_is_no_scheduler_is_one_line_within_the_timeout(
    peer: Callable[[bytes], str], shards: list[str], reply: bytes, why: str, command: str
) -> None:
    """The dashboard's port, a web server: whatever answers there, or never does, the
    run ends in one line and exit 2 (it hung for ever, or ended in a traceback and 1)."""
    where = ["--scheduler", peer(reply), "--connect-timeout", "1"]
    argv = (
        [command, *where, *shards]
        if command == "audit"
        else [command, "--packer", "tests/packers/broken.py:correct", "--seeds", "1-2", *where]
    )
    done = subprocess.run(
        [sys.executable, "-m", "packcheck", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert (done.returncode, done.stdout) == (2, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"packcheck {command}: error: --scheduler {where[1]}: {why}")


@pytest.mark.parametrize("address", ["nonsense", "tcp://localhost"])
def test_an_address_without_a_port_is_one_line_and_nothing_after_it(
    shards: list[str], address: str
) -> None:
    """No client is made for it: a half-made one printed a traceback 20 s later."""
    done = subprocess.run(
        [sys.executable, "-m", "packcheck", "audit", "--scheduler", address, *shards],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"packcheck audit: error: --scheduler {address}: cannot connect: "
        f"missing port number in address '{address.removeprefix('tcp://')}'\n"
    )


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (b"", r"no answer within 0\.5 s \(is it a Dask scheduler\?\)$"),
        (b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4, r"cannot connect: \w+Error: "),
        (None, r"cannot connect: Timed out trying to connect to tcp://127\.0\.0\.1:\d+ after"),
        ("nonsense", r"cannot connect: missing port number in address 'nonsense'$"),
    ],
)
def test_what_no_scheduler_is_to_the_api(
    peer: Callable[[bytes], str], reply: bytes | str | None, why: str
) -> None:
    if isinstance(reply, bytes):
        address = peer(reply)
    elif reply is None:  # a port nothing listens on
        with socket.create_server(("127.0.0.1", 0)) as closed:
            address = f"tcp://127.0.0.1:{closed.getsockname()[1]}"
    else:
        address = reply
    match = f"^--scheduler {re.escape(address)}: {why}"
    with pytest.raises(ClusterError, match=match), cluster(scheduler=address, timeout=0.5):
        pass
