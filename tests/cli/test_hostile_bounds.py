"""Hostile input, bounded: every input line has a length limit, big traces stream, and
running out of memory is one line.

The memory tests run the command as a child of a small Python process that caps its
address space (``RLIMIT_AS``, inherited by the command) and reports the command's peak
resident memory: a regression fails here, with a timeout, instead of eating the machine.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from command_line import packer_command, run

from packcheck._cli import main
from packcheck._rule.jsonio import loads, write_json
from packcheck._rule.lines import SKIP_LIMITS
from packcheck.audit import record_step

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /dev/zero")

CASE = b'{"budget":7,"blocks":[{"id":"A","size":4},{"id":"C","size":2}],"required":["C"]}'
ANSWER = '{"kept":["A","C"],"remaining":1,"missing":[]}'
GB = 1 << 30

#: Caps the address space, runs the command, writes its peak RSS (KiB) to argv[2].
_CAPPED = """\
import resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
status = subprocess.call(sys.argv[3:])
with open(sys.argv[2], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(status)
"""


def capped(
    tmp_path: Path, *argv: str, cap: int = 3 * GB, stdin: Any = None
) -> tuple[int, str, list[str], int]:
    """``packcheck ARGV`` under an address-space cap of ``cap`` bytes: its status,
    stdout, stderr lines and peak resident memory (bytes)."""
    rss = tmp_path / "rss"
    command = [sys.executable, "-c", _CAPPED, str(cap), str(rss)]
    command += [sys.executable, "-m", "packcheck", *argv]
    # One thread for OpenBLAS: its buffers per thread are address space too.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen(
        command,
        stdin=stdin if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=env,
    )
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"packcheck {' '.join(argv)} ran past 60 s")
    return process.returncode, out.decode(), err.decode().splitlines(), int(rss.read_text()) << 10


# Check the bound on every line: an endless one ends within the time, in bounded memory.


@pytest.mark.parametrize("command", ["pack", "audit", "fixtures"])
def test_dev_zero_is_one_line_and_exit_2_in_bounded_memory(tmp_path: Path, command: str) -> None:
    status, out, err, rss = capped(tmp_path, command, "/dev/zero")
    why = (
        "line 1: longer than 67,108,864 bytes, the limit (--max-line-bytes raises it); "
        "no line end in 1,073,741,824 bytes: the rest is not read"
    )
    assert status == 2
    assert rss < GB // 2
    if command == "audit":
        assert err == []
        assert out.splitlines()[0] == f"{why.replace(':', ': malformed:', 1)}"
    else:
        assert err == [f"packcheck {command}: error: /dev/zero: {why}"]


def gzip_of_zeros(path: Path, mib: int) -> Path:
    """A gzip file of ``mib`` MiB of zeros, one line: copies of one member (a reader
    reads concatenated members as one stream), built in milliseconds."""
    path.write_bytes(gzip.compress(bytes(1 << 20), compresslevel=9) * mib)
    return path


@pytest.mark.parametrize("command", ["pack", "audit"])
def test_a_gzip_bomb_costs_bounded_memory(tmp_path: Path, command: str) -> None:
    bomb = gzip_of_zeros(tmp_path / "bomb.jsonl.gz", 256)
    status, out, err, rss = capped(tmp_path, command, str(bomb))
    assert status == 2
    # Was the whole line and more (2.4 GB for 1 GB of zeros); now the limit and less.
    assert rss < GB // 2
    why = "line 1: longer than 67,108,864 bytes, the limit (--max-line-bytes raises it)"
    if command == "audit":
        assert out.splitlines()[0] == why.replace(":", ": malformed:", 1)
    else:
        assert err == [f"packcheck {command}: error: {bomb}: {why}"]


def test_an_over_long_line_is_refused_and_the_lines_after_it_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cases.jsonl"
    long = b'{"budget": 1, "blocks": [], "required": ["' + b"x" * 2000 + b'"]}'
    path.write_bytes(CASE + b"\n" + long + b"\r\n" + CASE + b"\n" + b"y" * 1024 + b"\n")
    status, out, err = run(capsys, "pack", "--max-line-bytes", "1K", str(path))
    why = "line 2: longer than 1,024 bytes, the limit (--max-line-bytes raises it)"
    assert status == 2
    assert out[0] == out[2] == ANSWER
    assert json.loads(out[1]) == {"error": "input", "detail": why}
    # Exactly the limit (the line end not counted) is read: not JSON, but read.
    assert json.loads(out[3])["detail"].startswith("line 4: invalid JSON")
    assert err[0] == f"packcheck pack: error: {path}: {why}"
    assert run(capsys, "pack", "--max-line-bytes", "4K", str(path))[1][1].startswith('{"kept"')


def test_audit_refuses_an_over_long_line_as_malformed_and_reads_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.jsonl"
    step = record_step(json.loads(CASE))
    path.write_text(json.dumps(step) + "\n" + "z" * 3000 + "\n" + json.dumps(step) + "\n")
    status, out, _ = run(capsys, "audit", "--max-line-bytes", "2K", str(path))
    assert status == 2
    assert out[0] == (
        "line 2: malformed: longer than 2,048 bytes, the limit (--max-line-bytes raises it)"
    )
    assert out[1].startswith("packcheck audit: 2 steps, 2 with a correct partition, 0 violations")


def test_an_endless_line_ends_the_input_after_the_skip_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cases.jsonl"
    # Its end comes after more than SKIP_LIMITS times the limit: the case after is not read.
    path.write_bytes(b"[" * (SKIP_LIMITS * 1024 + 2048) + b"\n" + CASE + b"\n")
    status, out, _ = run(capsys, "pack", "--max-line-bytes", "1K", str(path))
    assert status == 2
    assert len(out) == 1
    assert json.loads(out[0])["detail"].endswith(
        "no line end in 16,384 bytes: the rest is not read"
    )


def test_a_document_over_lines_longer_than_the_limit_is_not_read_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "fixtures.json"
    fixtures = [{"id": f"f{i}", "input": json.loads(CASE), "expected": {}} for i in range(40)]
    path.write_text(json.dumps(fixtures, indent=2))
    status, out, _ = run(capsys, "pack", "--max-line-bytes", "2K", str(path))
    assert status == 2
    assert json.loads(out[0])["detail"] == (
        "line 1: invalid JSON: Expecting value at column 2; read whole: "
        "longer than 2,048 bytes, the limit (--max-line-bytes raises it)"
    )
    assert run(capsys, "pack", str(path))[:1] == (0,)


def test_a_csv_table_longer_than_the_limit_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.csv"
    row = (
        'one,"{""budget"":1,""blocks"":[],""required"":[]}",'
        + '"{""kept"":[],""remaining"":1,""missing"":[]}",ok\n'
    )
    path.write_text(
        "Case,Supplied input,Expected structured output,Decision and reason\n" + row * 40
    )
    status, _, err = run(capsys, "fixtures", "--max-line-bytes", "2K", str(path))
    assert status == 2
    assert err == [
        f"packcheck fixtures: error: {path}: CSV table longer than 2,048 bytes, the limit "
        "(--max-line-bytes raises it)"
    ]
    assert run(capsys, "fixtures", str(path))[0] == 0


@pytest.mark.parametrize("text", ["0", "-3", "1T", "", "x"])
def test_a_limit_that_is_no_number_of_bytes_is_one_line(
    capsys: pytest.CaptureFixture[str], text: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["pack", "--max-line-bytes", text])
    assert stopped.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()[-1:]
    assert "is not a number of bytes greater than 0, such as 67108864 or 64M" in line


# Check traces of big cases: streamed, within plain pack's memory.


def big_case(path: Path, blocks: int) -> Path:
    with path.open("w") as out:
        out.write(f'{{"budget": {blocks * 10}, "blocks": [')
        out.write(",".join(f'{{"id":"b{i}","size":{1 + i % 40}}}' for i in range(blocks)))
        out.write('], "required": ["b1", "nope"]}\n')
    return path


def test_a_trace_of_a_big_case_costs_little_more_than_packing_it(tmp_path: Path) -> None:
    case = big_case(tmp_path / "big.json", 300_000)
    plain = capped(tmp_path, "pack", str(case))
    traced = capped(tmp_path, "pack", "--trace", str(case))
    assert plain[0] == traced[0] == 0
    # Was 2.3 times plain pack's peak at 300,000 blocks (a Step and a dict per block).
    assert traced[3] < 1.5 * plain[3]
    assert json.loads(traced[1])["result"] == json.loads(plain[1])


# Check running out of memory: one line, exit 2.


def test_running_out_of_memory_is_one_line_and_exit_2(tmp_path: Path) -> None:
    # The address space packcheck needs to answer a small case, and well under what a
    # 60 MB line needs (about five times its size).
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import sys\nfrom packcheck._cli import main\n"
        "main(['pack', sys.argv[1]])\n"
        "print([line for line in open('/proc/self/status') if line.startswith('VmPeak')][0])"
    )
    small = tmp_path / "small.json"
    small.write_bytes(CASE)
    peak = subprocess.run(
        [sys.executable, str(probe), str(small)], capture_output=True, text=True, check=True
    ).stdout.split()[-2]
    big = tmp_path / "big.json"
    big.write_text(
        '{"budget":1,"blocks":[{"id":"' + "a" * 60_000_000 + '","size":1}],"required":[]}'
    )
    status, out, err, _ = capped(
        tmp_path, "pack", str(big), cap=(int(peak) << 10) + 150 * (1 << 20)
    )
    assert (status, out) == (2, "")
    assert err == [
        "packcheck pack: error: out of memory: the input needs more memory than "
        "this process may have"
    ]


def test_a_memory_error_anywhere_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr("packcheck._cli.fixtures.read_records", exhausted)
    path = tmp_path / "fixtures.json"
    path.write_text("[]")
    why = "out of memory: the input needs more memory than this process may have"
    assert run(capsys, "fixtures", str(path)) == (2, [], [f"packcheck fixtures: error: {why}"])


# Check the number policy: a number spelt as no integer is never written back as one.


def test_a_zero_spelt_as_no_integer_is_never_written_back_as_one() -> None:
    # Past Decimal's exponents as within them: every spelling stays no integer literal.
    for spelling in (
        "0e99999999999999999999",
        "-0E+99999999999999999999",
        "0.0e-999999999999999999999",
        "0e5",
        "0.0",
    ):
        again = loads(write_json(loads(spelling)))
        assert type(again) is not int, spelling
        assert again == 0


def test_a_recorded_remaining_spelt_0e99999999999999999999_fails_the_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packer = packer_command(
        tmp_path,
        "packer.py",
        'print(\'{"kept":[],"remaining":0e99999999999999999999,"missing":[],'
        '"partition":{"packed":[],"available":[],"dropped":[]}}\', flush=True)\n',
    )
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"budget": 0, "blocks": [], "required": []}\n')
    status, out, _ = run(capsys, "pack", "--record", "--packer-cmd", packer, str(cases))
    assert status == 0
    recorded = tmp_path / "run.jsonl"
    recorded.write_text(out[0] + "\n")
    status, out, _ = run(capsys, "audit", str(recorded))
    assert status == 1
    assert out[0].startswith("line 1: result: types: remaining is decimal.Decimal 0E+")


# Check CSV records: numbered from their first line.


def test_a_csv_record_over_several_lines_is_numbered_from_its_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.csv"
    path.write_text(
        "Case,Supplied input,Expected structured output,Decision and reason\n"
        "\n"
        'spread,"{""budget"": 1,\n""blocks"": [],\n""required"": []}",'
        '"{""kept"":[],""remaining"":9,""missing"":[]}","a reason\nover lines"\n'
        'bad,"{",{},x\n'
    )
    status, out, err = run(capsys, "fixtures", str(path))
    assert status == 2
    assert out[0] == f"FAIL {path}: line 3 (spread)"
    assert err == [
        f"packcheck fixtures: error: {path}: line 7 (bad): Supplied input: invalid JSON: "
        "Expecting property name enclosed in double quotes at column 2"
    ]


# Check URLs: an fsspec file's own readline takes no size; lines are still bounded.


def test_a_url_whose_files_readline_takes_no_size_is_read_in_bounded_lines(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fsspec = pytest.importorskip("fsspec")
    from fsspec.spec import AbstractBufferedFile, AbstractFileSystem

    data = CASE + b"\n" + b"y" * 3000 + b"\n" + CASE + b"\n"

    class Remote(AbstractBufferedFile):  # type: ignore[misc]
        def _fetch_range(self, start: int, end: int) -> bytes:
            return data[start:end]

    class RemoteStore(AbstractFileSystem):  # type: ignore[misc]
        protocol = "hostile-bounds"

        def info(self, path: str, **kwargs: Any) -> dict[str, Any]:
            return {"name": path, "size": len(data), "type": "file"}

        def _open(self, path: str, mode: str = "rb", **kwargs: Any) -> Remote:
            return Remote(self, path, mode, **kwargs)

    fsspec.register_implementation("hostile-bounds", RemoteStore, clobber=True)
    url = "hostile-bounds://cases.jsonl"
    status, out, _ = run(capsys, "pack", "--max-line-bytes", "1K", url)
    assert status == 2
    assert out[0] == out[2] == ANSWER
    assert json.loads(out[1])["detail"].startswith("line 2: longer than 1,024 bytes")
    status, out, _ = run(capsys, "audit", "--max-line-bytes", "1K", "hostile-bounds://run.jsonl")
    assert (
        out[1]
        == "line 2: malformed: longer than 1,024 bytes, the limit (--max-line-bytes raises it)"
    )
