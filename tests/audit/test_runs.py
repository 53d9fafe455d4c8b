"""Many files as one run, read whole or in pieces, in this process (no Dask needed):
the pieces, merged, give the report of the files read whole; and what ``audit`` and
``pack`` say about files, globs, ``.gz``, URLs and the cluster options."""

from __future__ import annotations

import gc
import gzip
import json
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from runs import planted_run, text

from packcheck import _cluster
from packcheck._cli import main
from packcheck._cli.pack import _splittable
from packcheck._cluster import _Held, _own_signals, _quiet_spawned_logs
from packcheck._inputs import count_lines, expand, pieces, plan, reason, whole
from packcheck.audit import Audit, ReadError, RunReport, Violation, check_runs
from packcheck.audit._merge import audit_task, audited

RUN = text(planted_run()[0])
LINES = RUN.splitlines(keepends=True)


def in_process(fn: Any, items: Sequence[Any], /) -> Iterator[Any]:
    """A runner of one process: ``fn`` on each item in turn, when asked."""
    for item in items:
        yield fn(item)


def _in_pieces(names: Sequence[str], piece_bytes: int, run: Any = in_process) -> RunReport:
    audit = Audit()
    found = tuple(audited(names, audit, run, piece_bytes))
    return RunReport(found, audit.summary())


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    """The planted run in three files: plain, gzip, plain again with a malformed line."""
    (tmp_path / "a.jsonl").write_text("".join(LINES[:100]))
    with gzip.open(tmp_path / "b.jsonl.gz", "wt", encoding="utf-8") as stream:
        stream.writelines(LINES[100:200])
    (tmp_path / "c.jsonl").write_text("".join(LINES[200:250]) + "{bad\n" + "".join(LINES[250:]))
    return [str(tmp_path / name) for name in ("a.jsonl", "b.jsonl.gz", "c.jsonl")]


def test_files_audit_as_one_run_each_violation_naming_its_file(
    tmp_path: Path, files: list[str]
) -> None:
    report = check_runs(files)
    (tmp_path / "whole.jsonl").write_text(RUN)
    one = check_runs([tmp_path / "whole.jsonl"])
    assert [(v.check, v.step) for v in report.violations if v.check != "malformed"] == [
        (v.check, v.step) for v in one.violations
    ]
    order = [(files.index(str(v.file)), v.line) for v in report.violations]
    assert order == sorted(order)
    assert (report.summary.steps, report.summary.violations, report.summary.malformed) == (
        300,
        one.summary.violations,
        1,
    )
    assert [loss.count for loss in report.summary.lost] == [loss.count for loss in one.summary.lost]
    first = report.violations[0]
    assert str(first).startswith(f"{files[0]}: line 6 (step 5): no-partition")
    assert list(first.to_json())[:2] == ["file", "line"]
    assert first.to_json()["file"] == files[0]
    loss = report.summary.lost[0]
    assert all(len(at) == 3 for at in loss.steps)
    assert loss.to_json()["steps"][0]["file"] in files
    assert f"{files[0]} line" in str(loss)


@pytest.mark.parametrize("piece_bytes", [1, 700, 5_000, 40_000, 10**9])
def test_pieces_merged_give_the_report_of_whole_files(files: list[str], piece_bytes: int) -> None:
    expected = check_runs(files)
    assert _in_pieces(files, piece_bytes) == expected
    assert _in_pieces(files[2:], piece_bytes) == check_runs(files[2:])


def test_merging_keeps_the_limits_of_one_audit(
    files: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(Audit.__init__.__kwdefaults__, "max_tracked", 3)
    expected = check_runs(files)
    assert expected.summary.untracked > 0
    assert _in_pieces(files, 2_000) == expected


def test_pack_reads_a_piece_that_cannot_be_counted_to_the_end_of_its_file(
    files: list[str],
) -> None:
    def run(fn: Any, items: Sequence[Any]) -> Generator[Any, None, None]:
        for item in items:
            yield "cannot read: gone" if fn is count_lines and item.start else fn(item)

    planned = pieces(files, run, 2_000)
    assert [p.stop for p in planned if p.path == files[0]][-1] is None
    assert sum(p.path == files[0] for p in planned) == 2
    assert _in_pieces(files, 2_000, run) == check_runs(files)  # audit counts nothing


def test_an_audit_in_pieces_reads_each_piece_once(files: list[str]) -> None:
    ran: list[tuple[Any, Any]] = []

    def run(fn: Any, items: Sequence[Any]) -> Generator[Any, None, None]:
        for item in items:
            ran.append((fn, item))
            yield fn(item)

    assert _in_pieces(files, 2_000, run) == check_runs(files)
    planned = [piece for name in files for piece in plan(name, 2_000)]
    assert [item for _, item in ran] == planned
    assert len(planned) > len(files)
    assert {fn.func for fn, _ in ran} == {audit_task}


def test_only_a_file_s_first_line_may_start_with_a_bom(tmp_path: Path) -> None:
    bom = tmp_path / "bom.jsonl"
    bom.write_text("\ufeff" + "".join(LINES[:3]) + "\ufeff" + "".join(LINES[3:9]))
    expected = check_runs([bom])
    assert [(v.line, v.check) for v in expected.violations if v.check == "malformed"] == [
        (4, "malformed")
    ]
    for piece_bytes in (1, 500, 2_000):
        assert _in_pieces([str(bom)], piece_bytes) == expected


def test_a_piece_that_cannot_be_read_ends_the_audit_there(files: list[str]) -> None:
    def run(fn: Any, items: Sequence[Any]) -> Generator[Any, None, None]:
        for item in items:
            gone = item.start and item.path == files[2]
            yield fn(replace(item, path=item.path + ".gone") if gone else item)

    audit = Audit()
    found: list[Violation] = []
    with pytest.raises(ReadError, match=r"c\.jsonl: cannot read: No such file"):
        found += audited(files, audit, run, 2_000)
    start = plan(files[2], 2_000)[1].start
    first_line = Path(files[2]).read_bytes()[:start].count(b"\n") + 1
    whole_run = check_runs(files).violations
    assert found == [v for v in whole_run if v.file != files[2] or v.line < first_line]
    assert 200 < audit.steps < check_runs(files).summary.steps  # a and b, and part of c


def six_shards(where: Path, cut: int) -> list[str]:
    """The planted run as 6 gzip shards, shard ``cut`` truncated midway."""
    names = []
    for index in range(6):
        name = where / f"shard-{index}.jsonl.gz"
        data = gzip.compress("".join(LINES[index * 50 : index * 50 + 50]).encode())
        name.write_bytes(data[: len(data) // 2] if index == cut else data)
        names.append(str(name))
    return names


def test_an_unreadable_shard_among_six_ends_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = six_shards(tmp_path, cut=2)
    whole_shards = [name for index, name in enumerate(names) if index != 2]
    others = check_runs(whole_shards).violations
    told: list[ReadError] = []
    audit = Audit()
    found = list(audited(names, audit, None, unreadable=told.append))
    # Every other shard's violations, in file then line order; the cut one's up to its cut.
    assert [v for v in found if v.file != names[2]] == list(others)
    assert all(v.line <= 50 for v in found if v.file == names[2])
    (error,) = told
    assert str(error).startswith(f"{names[2]}: cannot read: Compressed file ended")
    assert 250 < audit.steps < 300
    for piece_bytes in (1, 2_000):  # in pieces, as on a cluster: the same
        again: list[ReadError] = []
        assert list(audited(names, Audit(), in_process, piece_bytes, unreadable=again.append)) == (
            found
        )
        assert [str(e) for e in again] == [str(error)]
    with pytest.raises(ReadError, match="cannot read: Compressed file ended"):
        list(audited(names, Audit(), None))  # unasked, it ends the audit as before
    status, out, err = run_cli(capsys, "audit", *names)
    assert status == 2
    assert err == [f"packcheck audit: error: {error}"]
    lines = out.splitlines()
    assert [line for line in lines if line.startswith(tuple(whole_shards))] == [
        str(v) for v in others
    ]
    assert lines[len(found)].startswith(
        f"packcheck audit: {audit.steps} steps, {audit.correct} with a correct partition, "
    )
    assert lines[len(found)].endswith(", 1 unreadable file (6 files)")
    assert lines[-1] == f"  unreadable: {error}"
    status, out, err = run_cli(capsys, "audit", "--format", "json", *names)
    assert status == 2
    summary = json.loads(out.splitlines()[-1])
    assert summary["unreadable"] == [str(error)]
    assert summary["steps"] == audit.steps


def test_a_run_of_unreadable_files_only_says_so_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = six_shards(tmp_path, cut=0)[0]
    status, out, err = run_cli(capsys, "audit", cut, str(tmp_path / "nope.jsonl"))
    assert status == 2
    assert (
        err[-1] == f"packcheck audit: error: {tmp_path / 'nope.jsonl'}: cannot read: No such "
        "file or directory"
    )
    assert (
        out.splitlines()[-1]
        == f"  unreadable: {tmp_path / 'nope.jsonl'}: cannot read: No such file or directory"
    )
    status, out, err = run_cli(capsys, "audit", str(tmp_path / "nope.jsonl"), str(tmp_path / "no"))
    assert (status, out, len(err)) == (2, "", 2)


def test_a_piece_that_cannot_be_read_skips_the_rest_of_its_file(files: list[str]) -> None:
    def run(fn: Any, items: Sequence[Any]) -> Generator[Any, None, None]:
        for item in items:
            gone = item.start and item.path == files[0]
            yield fn(replace(item, path=item.path + ".gone") if gone else item)

    told: list[ReadError] = []
    found = list(audited(files, Audit(), run, 2_000, unreadable=told.append))
    assert [str(error) for error in told] == [f"{files[0]}: cannot read: No such file or directory"]
    start = plan(files[0], 2_000)[1].start
    first_line = Path(files[0]).read_bytes()[:start].count(b"\n") + 1
    whole_run = check_runs(files).violations
    assert found == [v for v in whole_run if v.file != files[0] or v.line < first_line]


def test_plans(tmp_path: Path, files: list[str]) -> None:
    assert plan("-", 10) == [whole("-")]
    assert whole("-").name == "<stdin>"
    assert plan(files[1], 10) == [whole(files[1])]  # a .gz file is one piece
    assert plan(str(tmp_path / "nope"), 10) == [whole(str(tmp_path / "nope"))]
    assert plan("/dev/null", 1) == [whole("/dev/null")]
    long = tmp_path / "long.jsonl"
    long.write_bytes(b"x" * 100 + b"\n" + b"y\n" * 10 + b"z" * 50)
    assert [(p.start, p.stop) for p in plan(str(long), 10)] == [
        (0, 101),
        (101, 111),
        (111, 121),
        (121, None),
    ]
    assert plan(str(long), 10, lambda first: first.startswith(b"{")) == [whole(str(long))]
    assert count_lines(plan(str(long), 10)[1]) == 5
    assert count_lines(whole(str(tmp_path))) == "cannot read: Is a directory"


def test_globs(tmp_path: Path, files: list[str]) -> None:
    assert expand([str(tmp_path / "*.jsonl*")]) == sorted(files)
    literal = tmp_path / "[odd].jsonl"
    literal.write_text("")
    assert expand([str(literal), "-"]) == [str(literal), "-"]
    with pytest.raises(ReadError, match=r"nope\*: no file matches"):
        expand([str(tmp_path / "nope*")])


def test_read_errors(tmp_path: Path, files: list[str]) -> None:
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(RUN.encode())[:3000])
    with pytest.raises(ReadError, match=r"cut\.jsonl\.gz: cannot read: Compressed file ended"):
        check_runs([files[0], str(cut)])
    assert reason(FileNotFoundError(2, "No such file or directory")).endswith("directory")
    assert reason(EOFError("cut")) == "cannot read: cut"
    assert reason(ValueError("odd")) == "odd"


def test_urls(tmp_path: Path, files: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("fsspec", reason="fsspec comes with the dask extra")
    urls = [f"file://{name}" for name in files]
    report = check_runs(urls)
    assert [(v.check, v.line) for v in report.violations] == [
        (v.check, v.line) for v in check_runs(files).violations
    ]
    assert _in_pieces(urls, 3_000) == report
    assert expand([f"file://{tmp_path}/*.jsonl"]) == [urls[0], urls[2]]
    with pytest.raises(ReadError, match="nope://x: cannot read: Protocol not known: nope"):
        check_runs(["nope://x"])
    assert plan("nope://x", 10) == [whole("nope://x")]
    with pytest.raises(ReadError, match=r"nope://\*: cannot read: Protocol not known"):
        expand(["nope://*"])
    monkeypatch.setitem(sys.modules, "fsspec", None)
    with pytest.raises(ReadError, match=r"cannot read: a URL needs fsspec: pip install"):
        check_runs(urls)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, list[str]]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err.splitlines()


def test_audit_of_several_files(
    tmp_path: Path, files: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_cli(capsys, "audit", *files)
    assert status == 2
    assert out.startswith(f"{files[0]}: line 6 (step 5): no-partition")
    assert "packcheck audit: 300 steps, 289 with a correct partition, 12 violations, " in out
    assert "1 malformed line (3 files)" in out
    assert err == []  # the malformed line is reported on stdout, once, naming its file
    assert (
        f"{files[2]}: line 51: malformed: invalid JSON: Expecting property "
        "name enclosed in double quotes at column 2\n"
    ) in out
    status, out, _ = run_cli(capsys, "audit", "--json", *files)
    assert json.loads(out.splitlines()[0])["file"] == files[0]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    status, _, err = run_cli(capsys, "audit", str(empty), str(empty))
    assert (status, err) == (
        2,
        ["packcheck audit: error: 2 files: no steps in input (they are empty)"],
    )
    status, _, err = run_cli(capsys, "audit", str(tmp_path / "none*"))
    assert (status, err) == (2, [f"packcheck audit: error: {tmp_path / 'none*'}: no file matches"])


def test_pack_of_several_files(
    tmp_path: Path, files: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_cli(capsys, "pack", *files)
    assert status == 2
    assert len(out.splitlines()) == 301
    assert err[0].startswith(f"packcheck pack: error: {files[2]}: line 51: invalid JSON")
    # The input-error record names its file too: a record of several files is read
    # without knowing them (`pack --record a b > run`, then `audit run`).
    detail = json.loads(out.splitlines()[250])["detail"]
    assert detail.startswith(f"{files[2]}: line 51: invalid JSON")
    assert json.loads(run_cli(capsys, "pack", files[2])[1].splitlines()[50])["detail"].startswith(
        "line 51: invalid JSON"
    )
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(RUN.encode())[:3000])
    status, out, err = run_cli(capsys, "pack", files[0], str(cut))
    assert status == 2
    assert err[-1].startswith(f"packcheck pack: error: {cut}: cannot read: Compressed file ended")
    status, _, err = run_cli(capsys, "pack", str(tmp_path / "none*"))
    assert (status, err) == (2, [f"packcheck pack: error: {tmp_path / 'none*'}: no file matches"])


def test_the_cluster_options_without_the_extra(
    files: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    need = "--workers needs the dask extra: pip install 'packcheck[dask]'"
    assert run_cli(capsys, "audit", "--workers", "2", *files) == (
        2,
        "",
        [f"packcheck audit: error: {need}"],
    )
    assert run_cli(capsys, "pack", "--workers", "2", *files) == (
        2,
        "",
        [f"packcheck pack: error: {need}"],
    )
    status, _, err = run_cli(capsys, "pack", "--scheduler", "tcp://h:1", files[0])
    assert (status, err) == (
        2,
        ["packcheck pack: error: --scheduler needs the dask extra: pip install 'packcheck[dask]'"],
    )
    status, _, err = run_cli(capsys, "audit", "--workers", "2")
    assert (status, err) == (
        2,
        ["packcheck audit: error: --workers reads FILEs, not standard input"],
    )
    status, _, err = run_cli(capsys, "pack", "--record", "--packer-cmd", "cat", "--workers", "2")
    assert err == ["packcheck pack: error: --workers and --scheduler run packcheck's engines only"]
    assert status == 2


def test_a_file_is_split_for_pack_only_when_its_first_line_is_a_case() -> None:
    assert _splittable(b'\xef\xbb\xbf{"budget": 1}\n')
    assert not _splittable(b"[1, 2]\n")
    assert not _splittable(b"Case,Supplied input\n")
    assert not _splittable(b"\xff\n")


def test_signals_are_held_while_a_local_cluster_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    # An xdist worker ignores SIGINT: the default handler, as a command has it.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    monkeypatch.setattr("signal.SIGINT", signal.SIGINT)  # restored below either way
    try:
        _held_then_released()
    finally:
        signal.signal(signal.SIGINT, previous)


def _blocked() -> set[signal.Signals]:
    return signal.pthread_sigmask(signal.SIG_BLOCK, [])


def _left_by_an_error() -> None:
    with _Held():
        signal.raise_signal(signal.SIGINT)
        raise ValueError


def _held_then_released() -> None:
    seen: list[set[signal.Signals]] = []
    with _Held() as held:
        signal.raise_signal(signal.SIGINT)  # held: no KeyboardInterrupt here
        thread = threading.Thread(target=lambda: seen.append(_blocked()))
        thread.start()
        thread.join()
    assert signal.SIGINT in seen[0]  # what is started meanwhile never sees Ctrl-C
    assert signal.SIGINT in _blocked()  # still held: the cluster is not yet in hand
    with pytest.raises(KeyboardInterrupt):
        held.release()
    assert signal.SIGINT not in _blocked()
    with pytest.raises(KeyboardInterrupt):  # leaving by an error delivers it too
        _left_by_an_error()
    assert signal.SIGINT not in _blocked()
    got: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda sig, _: got.append(sig))
    try:
        with _Held() as held:
            signal.raise_signal(signal.SIGTERM)  # held, as the handler it came from
        assert got == []
        held.release()
        assert got == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, before)
    with _Held() as held:
        pass
    held.release()  # nothing held: nothing happens
    done: list[bool] = []

    def elsewhere() -> None:
        with _Held() as off_main:  # signals are the main thread's: nothing to hold
            off_main.release()
        done.append(True)

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert done == [True]


@pytest.mark.parametrize("before", [None, "info"])
def test_a_worker_spawned_while_a_cluster_starts_logs_what_is_critical_only(
    monkeypatch: pytest.MonkeyPatch, before: str | None
) -> None:
    name = "DASK_LOGGING__DISTRIBUTED"
    if before is None:
        monkeypatch.delenv(name, raising=False)
    else:
        monkeypatch.setenv(name, before)
    with _quiet_spawned_logs():
        assert os.environ[name] == "critical"
    assert os.environ.get(name) == before


def test_a_process_forked_while_signals_are_held_ignores_ctrl_c_and_ends_on_sigterm() -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    dask_logs = logging.getLogger("distributed")
    level = dask_logs.level
    _own_signals()  # not holding: nothing changes
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    with _Held() as held:
        _own_signals()  # what the at-fork hook runs in the child
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert dask_logs.level == logging.CRITICAL
        dask_logs.setLevel(level)
        _own_signals()  # once only
        assert not _Held._holding
    held.release()  # Ctrl-C unblocked
    assert signal.SIGINT not in _blocked()
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_a_process_is_made_ready_for_a_cluster_once_and_only_when_it_makes_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registered: list[Any] = []
    monkeypatch.setattr(_cluster, "_READY", [])
    monkeypatch.setattr(os, "register_at_fork", lambda **hooks: registered.append(hooks))
    _cluster._ready()
    _cluster._ready()
    try:
        assert registered == [{"after_in_child": _own_signals}]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    # Importing packcheck's audit and CLI registers nothing: only making a cluster does.
    script = (
        "import os; hooks = []; os.register_at_fork = lambda **k: hooks.extend(k.values()); "
        "import packcheck.audit, packcheck._cli.audit, packcheck._cli.pack; "
        "print(sorted({hook.__qualname__ for hook in hooks}))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() != "[]"  # the hooks are seen (the standard library's)
    assert "_own_signals" not in done.stdout


def test_a_violation_of_one_file_is_shown_as_before() -> None:
    violation = Violation(3, "shape", "odd", "s")
    assert (str(violation), violation.to_json()) == (
        "line 3 (step s): shape: odd",
        {"line": 3, "check": "shape", "message": "odd", "step": "s"},
    )


@pytest.fixture
def cluster_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--workers`` runs the pieces in this process (as a cluster would, in order)."""

    @contextmanager
    def here(args: Any, names: Sequence[str]) -> Iterator[Any]:
        yield in_process if args.workers else None

    monkeypatch.setattr("packcheck._cli.audit.cluster_runner", here)
    monkeypatch.setattr("packcheck._cli.pack.cluster_runner", here)
    monkeypatch.setattr("packcheck._cli.pack.PIECE_BYTES", 3_000)
    monkeypatch.setattr("packcheck.audit._merge.PIECE_BYTES", 3_000)


@pytest.mark.usefixtures("cluster_here")
@pytest.mark.parametrize("shown", [[], ["--record"], ["--explain"], ["--trace"]])
def test_pack_in_pieces_is_pack_whole(
    tmp_path: Path, files: list[str], shown: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(RUN.encode())[:3000])
    for names in (files, [files[0], str(cut), files[2]]):
        alone = run_cli(capsys, "pack", *shown, *names)
        assert alone[0] == 2
        assert run_cli(capsys, "pack", *shown, "--workers", "2", *names) == alone


@pytest.mark.usefixtures("cluster_here")
def test_audit_in_pieces_is_audit_whole(
    tmp_path: Path, files: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(RUN.encode())[:3000])
    for names in (files, [files[0], str(cut), files[2]], files[:1]):
        for shown in ([], ["--json"]):
            alone = run_cli(capsys, "audit", *shown, *names)
            assert run_cli(capsys, "audit", *shown, "--workers", "2", *names) == alone


def test_a_worker_count_is_a_positive_whole_number(capsys: pytest.CaptureFixture[str]) -> None:
    for bad, why in (("0", "0 must be greater than 0"), ("x", "'x' is not a whole number")):
        with pytest.raises(SystemExit):
            main(["audit", "--workers", bad])
        assert capsys.readouterr().err.endswith(f"--workers: {why}\n")


def _rule_run(where: Path, lines: Sequence[str], name: str = "run.jsonl") -> str:
    (where / name).write_text("".join(lines))
    return str(where / name)


def _audit_both(names: list[str], **options: Any) -> tuple[Any, Any]:
    """``names`` audited under the rule they record, whole here and in pieces."""
    reports = []
    for run in (None, in_process):
        audit = Audit(rule_from_run=True)
        try:
            found = tuple(audited(names, audit, run, 300, unreadable=lambda _: None, **options))
        except ReadError as exc:
            reports.append(str(exc))
        else:
            reports.append(RunReport(found, audit.summary()))
    return reports[0], reports[1]


def test_pieces_are_audited_under_the_rule_the_run_records(tmp_path: Path) -> None:
    from packcheck import Rule
    from packcheck.audit import record_step

    rule = Rule(name="stop", on_misfit="stop")
    case = {"budget": 3, "blocks": [{"id": "A", "size": 2}, {"id": "B", "size": 2}]}
    steps = [json.dumps(record_step({**case, "required": ["B"]}, rule=rule)) + "\n"] * 20
    too_long = "x" * (len(steps[0]) + 1) + "\n"
    named = _rule_run(tmp_path, ["\n", "{bad\n", "[]\n", too_long, *steps])
    whole_run, in_pieces = _audit_both([named], max_line_bytes=len(steps[0]))
    assert whole_run == in_pieces
    assert isinstance(whole_run, RunReport)
    assert whole_run.summary.rule == rule.describe()
    assert whole_run.summary.rule_recorded
    assert whole_run.summary.violations == 0
    assert [v.message.split(" ")[0] for v in whole_run.violations][-1] == "longer"
    # A file that cannot be read comes before: the next file's first record settles it.
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(b"\n" * 100_000)[:30])
    whole_run, in_pieces = _audit_both([str(cut), named])
    assert whole_run == in_pieces
    assert isinstance(whole_run, RunReport)
    assert (whole_run.summary.rule, whole_run.summary.steps) == (rule.describe(), 20)
    # A first record naming no rule: the audit says so as it would here.
    first = json.loads(steps[0])
    first["rule"]["x"] = 1
    bad = _rule_run(tmp_path, [json.dumps(first) + "\n", *steps], "bad")
    whole_run, in_pieces = _audit_both([bad])
    assert whole_run == in_pieces == f"{bad}: line 1: not a recorded rule: rule.x: unknown rule key"
    # No record at all: packcheck's own rule.
    empty = _rule_run(tmp_path, ["{bad\n"], "empty")
    whole_run, in_pieces = _audit_both([empty])
    assert whole_run == in_pieces
    assert isinstance(whole_run, RunReport)
    assert whole_run.summary.rule is None
