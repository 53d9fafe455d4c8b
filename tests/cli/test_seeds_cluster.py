"""``verify --seeds`` and ``diff --seeds`` on a real Dask cluster: a ``dask scheduler``
and two ``dask worker`` processes (tests/conftest.py's ``scheduler``, whose workers run
in another directory than the packers'), and ``--workers 2``.  Each report is the one
the run of the lowest failing seed gives alone, byte for byte (timings aside).  Skipped
where the ``dask`` extra is not installed.

``rare:rare`` fails at seed 6 alone of seeds 1-8 (tests/packers/rare.py): its run of
``--seeds 4-7``, which has passing seeds on either side of 6 (two seeds per worker), is
made once on the cluster, its report checked in every form and its failure saved; the
conformant packer's run takes ``1-4`` and the other runs ``4-7`` too."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from itertools import groupby
from typing import Any

import pytest
from signalled import stopped
from test_cli_seeds import (
    PACKERS,
    QUICK,
    RARE,
    RARE_SEED,
    assert_reported_alike,
    masked,
    rare_alone,
    rare_run,
    run,
    shared,
)

distributed = pytest.importorskip(
    "distributed", reason="the dask extra is not installed: pip install 'packcheck[dask]'"
)
psutil = pytest.importorskip("psutil", reason="comes with distributed")


@pytest.fixture(autouse=True)
def _in_packers_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PACKERS)


def test_a_wrong_packer_on_the_cluster_is_its_lowest_failing_seeds_run(
    scheduler: str, capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = shared(tmp_path_factory)
    alone = rare_alone(capsys, folder)  # shared with test_cli_seeds
    seeds = rare_run(capsys, folder, "cluster", "--seeds", "4-7", "--scheduler", scheduler)
    assert_reported_alike(seeds, folder / "cluster", alone, folder / "one")


def test_a_conformant_packer_on_the_cluster(
    scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--packer", "broken:correct", "--seeds", "1-4", *QUICK[:-1]]  # progress shown
    alone = run(capsys, "verify", *args)
    assert alone[0] == 0
    assert alone[1].startswith("packcheck verify: conformant: 4 seeds passed (seeds 1-4), ")
    status, out, err = run(capsys, "verify", *args, "--scheduler", scheduler)
    assert (status, masked(out)) == (0, masked(alone[1]))
    # In a log, a slow seed has its count written again every 10 s: said once here.
    said = [line.split(",")[0] for line in err.splitlines()]
    assert [line for line, _ in groupby(said)] == [
        f"packcheck verify: {n} of 4 seeds done" for n in range(1, 5)
    ]


def test_a_new_failure_found_on_the_cluster_is_saved_once_here(
    scheduler: str, capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = shared(tmp_path_factory)
    one, every = folder / "one", folder / "cluster"
    alone = rare_alone(capsys, folder)
    seeds = rare_run(capsys, folder, "cluster", "--seeds", "4-7", "--scheduler", scheduler)
    assert masked(seeds.out).replace(str(every), str(one)) == masked(alone.out)
    (saved,) = every.glob("*.json")
    assert saved.read_text() == next(one.glob("*.json")).read_text()
    on_cluster = ["--seeds", "4-7", "--scheduler", scheduler, "--save-failures", str(every)]
    again = run(capsys, *RARE, *on_cluster)  # replayed first on the workers, at every seed
    assert again[0] == 1
    assert f"FAIL fixture {saved}" in again[1]
    assert list(every.glob("*.json")) == [saved]


def test_diff_on_the_cluster(scheduler: str, capsys: pytest.CaptureFixture[str]) -> None:
    both = ["diff", "--packer", "rare:rare", "--against-cmd", f"{sys.executable} lines_packer.py"]
    alone = run(capsys, *both, *QUICK, "--seed", RARE_SEED)
    assert alone[0] == 1
    seeds = run(capsys, *both, *QUICK, "--seeds", "4-7", "--scheduler", scheduler)
    assert (seeds[0], masked(seeds[1])) == (alone[0], masked(alone[1]))


def test_a_packer_the_workers_cannot_load_is_the_one_seed_runs_error(
    scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    alone = run(capsys, "verify", "--packer", "broken:nope", "--seed", "1")
    assert alone[0] == 2
    assert run(capsys, "verify", "--packer", "broken:nope", "--seeds", "1-3", "--scheduler",
               scheduler) == alone  # fmt: skip


#: ``rare.py:rare`` (the ``PATH.py`` form) at ``--seed RARE_SEED`` alone, run once a process.
_PATH_FORM_ALONE: list[tuple[int, str, str]] = []


def path_form_alone(capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``verify --packer rare.py:rare --seed RARE_SEED`` (:data:`QUICK`), as :func:`run`
    gives it: made once a process, it shrinks a failure."""
    if not _PATH_FORM_ALONE:
        args = ["verify", "--packer", "rare.py:rare", "--seed", RARE_SEED, *QUICK]
        _PATH_FORM_ALONE.append(run(capsys, *args))
    (alone,) = _PATH_FORM_ALONE
    assert alone[0] == 1
    return alone


def test_one_seed_may_run_on_the_cluster_too(
    scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    alone = path_form_alone(capsys)
    args = ["verify", "--packer", "rare.py:rare", "--seed", RARE_SEED, *QUICK]
    assert masked(run(capsys, *args, "--scheduler", scheduler)[1]) == masked(alone[1])
    status, out, _ = run(capsys, "verify", *QUICK, "--scheduler", scheduler)
    assert status == 0
    assert ", seed " in out


def test_a_local_cluster_of_two_workers(capsys: pytest.CaptureFixture[str]) -> None:
    alone = path_form_alone(capsys)
    both = ["verify", "--packer", "rare.py:rare", *QUICK]
    seeds = run(capsys, *both, "--seeds", "4-7", "--workers", "2")
    assert (seeds[0], masked(seeds[1])) == (alone[0], masked(alone[1])), seeds[2]


def test_an_unreachable_scheduler_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    where = ["--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1"]
    status, out, err = run(capsys, "verify", "--seeds", "1-2", *where)
    assert (status, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith(
        "packcheck verify: error: --scheduler tcp://127.0.0.1:9: cannot connect: "
    )


@pytest.mark.parametrize(
    ("sig", "status", "group"),
    [(signal.SIGINT, 130, False), (signal.SIGTERM, 143, False), (signal.SIGINT, 130, True)],
)
def test_a_signal_stops_the_cluster_and_leaves_nothing_running(
    sig: signal.Signals, status: int, group: bool
) -> None:
    """``group``: sent to every process of the job, as a terminal's Ctrl-C is: the
    spawned workers print nothing of it, the run one line."""
    argv = [
        *(sys.executable, "-m", "packcheck", "verify", "--packer", "broken:hangs"),
        *("--seeds", "1-8", "--workers", "2", "--timeout", "600"),
    ]

    def started(parent: Any) -> bool:  # two workers, each with its packer
        return len(parent.children(recursive=True)) >= 4

    returncode, err, alive = stopped(argv, sig, group, started, cwd=PACKERS)
    assert (returncode, alive) == (status, [])
    lines = err.splitlines()
    if group:
        assert len(lines) == 1, lines
    assert lines[-1].startswith(f"packcheck verify: stopped by {sig.name}; to repeat it: ")
    assert lines[-1].endswith("packcheck verify --packer broken:hangs --seeds 1-8 --timeout 600")


def _packers_running(client: object) -> int:
    """The processes the cluster's workers have started (their packers)."""

    def children() -> int:
        import psutil

        return len(psutil.Process().children(recursive=True))

    return sum(client.run(children).values())  # type: ignore[attr-defined]


def test_a_stopped_run_leaves_nothing_running_on_the_scheduler_s_workers(scheduler: str) -> None:
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "packcheck", "verify", "--packer", "broken:hangs"),
            *("--seeds", "1-8", "--scheduler", scheduler, "--timeout", "600"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=PACKERS,
    )
    with distributed.Client(scheduler, set_as_default=False) as client:
        try:
            while _packers_running(client) < 2:  # a hanging packer on each worker
                assert process.poll() is None
                time.sleep(0.1)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=60)
        finally:
            process.kill()
        assert process.returncode == 130
        assert err.decode().startswith("packcheck verify: stopped by SIGINT; to repeat it: ")
        for _ in range(300):
            if _packers_running(client) == 0 and not any(client.processing().values()):
                break
            time.sleep(0.1)
        assert _packers_running(client) == 0
        assert not any(client.processing().values())


def test_of_several_failing_seeds_the_lowest_is_the_verdict(
    scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    both = ["verify", "--packer", "broken:missing_dedup", *QUICK]
    alone = run(capsys, *both, "--seed", "2")
    assert alone[0] == 1
    third = run(capsys, *both, "--seed", "3")
    assert third[0] == 1  # every seed fails, seed 3 with a counterexample of its own
    assert masked(third[1]).replace("seed 3", "seed 2") != masked(alone[1])
    for where in ([], ["--scheduler", scheduler]):
        seeds = run(capsys, *both, "--seeds", "4,2,3", *where)  # every one fails
        assert (seeds[0], masked(seeds[1])) == (alone[0], masked(alone[1]))
