"""The ``packcheck`` dispatcher: version, usage errors, interrupts, closed pipes."""

from __future__ import annotations

import argparse
import runpy
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

import packcheck
from packcheck._cli import build_parser, main
from packcheck._cli import pack as cli_pack

SEED = Path(__file__).parents[1] / "fixtures" / "seed.json"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"packcheck {packcheck.__version__}\n"


@pytest.mark.parametrize("argv", [[], ["nope"], ["fixtures"], ["audit", "--bogus"]])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert capsys.readouterr().err.startswith("usage: packcheck")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["pack", "--engine", "fast"], "packcheck pack: error: argument --engine: invalid choice"),
        (["audit", "--workers", "0"], "packcheck audit: error: argument --workers: 0 must be"),
        (["fixtures", "x", "--engine", "y"], "packcheck fixtures: error: argument --engine:"),
        (["bench", "--repeat", "x"], "packcheck bench: error: argument --repeat: 'x' is not a"),
    ],
)
def test_a_bad_value_is_one_line_in_every_command(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(message)


def test_every_command_is_registered() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert {"pack", "fixtures"} <= set(commands.choices)


def test_an_interrupt_is_one_line_and_status_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_pack, "register", replace(cli_pack.register, run=interrupted))
    assert main(["pack", str(SEED)]) == 130
    assert capsys.readouterr().err == "packcheck: interrupted\n"


def test_a_closed_pipe_stops_quietly(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def closed(args: argparse.Namespace) -> int:
        raise BrokenPipeError

    monkeypatch.setattr(cli_pack, "register", replace(cli_pack.register, run=closed))
    with open(tmp_path / "out", "w") as out:
        monkeypatch.setattr(sys, "stdout", out)
        assert main(["pack", str(SEED)]) == 0
        # stdout now points at /dev/null: a later flush cannot fail, and writes vanish.
        print("lost", file=out, flush=True)
    assert (tmp_path / "out").read_text() == ""


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path: Path) -> None:
    cases = tmp_path / "many.jsonl"
    cases.write_text('{"budget":1,"blocks":[],"required":[]}\n' * 50_000)
    with subprocess.Popen(
        [sys.executable, "-m", "packcheck", "pack", str(cases)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as child:
        assert child.stdout is not None
        assert child.stdout.readline() == b'{"kept":[],"remaining":1,"missing":[]}\n'
        child.stdout.close()
        _, err = child.communicate(timeout=60)
    assert err == b""
    assert child.returncode == 0


def test_python_dash_m(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["packcheck", "fixtures", str(SEED)])
    # packcheck has a pytest plugin, so pytest's assertion rewriter claims its modules;
    # `python -m packcheck` never runs under it, and runpy needs the plain loader.
    plain = [f for f in sys.meta_path if type(f).__name__ != "AssertionRewritingHook"]
    monkeypatch.setattr(sys, "meta_path", plain)
    with pytest.raises(SystemExit) as info:
        runpy.run_module("packcheck", run_name="__main__")
    assert info.value.code == 0
    assert capsys.readouterr().out == "3 of 3 fixtures passed (reference engine)\n"


@pytest.mark.parametrize(
    ("closed", "status", "out", "err"),
    [
        (0, 2, b"", b"packcheck pack: error: <stdin>: no cases in input (it is empty)\n"),
        (
            1,
            2,
            None,
            b"packcheck pack: error: <stdin>: line 1: case: expected an object, got number\n",
        ),
        (2, 2, b'{"error":"input","detail":"line 1: case: expected an object, got number"}\n', b""),
    ],
)
def test_a_closed_standard_stream_is_the_null_device(
    closed: int, status: int, out: bytes | None, err: bytes
) -> None:
    # Closed by the caller (<&-, >&-, 2>&-): Python then starts with sys.stdin/stdout/
    # stderr as None, which used to raise AttributeError or send errors to stdout.
    script = "import os, sys; from packcheck._cli import main; os.close(%d); sys.%s = None; "
    script += "sys.exit(main(['pack']))"
    name = ("stdin", "stdout", "stderr")[closed]
    child = subprocess.run(
        [sys.executable, "-c", script % (closed, name)],
        input=b"" if closed == 0 else b"7\n",
        capture_output=True,
        timeout=60,
    )
    assert child.returncode == status
    if out is not None:
        assert child.stdout == out
    assert child.stderr == err


def test_a_closed_stdin_reads_as_empty_input_in_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    try:
        assert main(["pack"]) == 2
    finally:
        sys.stdin.close()  # the null device main() opened in its place
    assert (
        capsys.readouterr().err
        == "packcheck pack: error: <stdin>: no cases in input (it is empty)\n"
    )


@pytest.mark.parametrize(
    ("command", "status"),
    [
        (["verify", "--packer", "broken:stop_at_first_misfit", "--seed", "1"], 1),
        (["verify", "--seed", "1", "--max-examples", "5", "--no-long-lists"], 0),
    ],
)
def test_a_reader_that_goes_away_does_not_turn_a_failure_into_a_pass(
    command: list[str], status: int
) -> None:
    # `packcheck verify ... | head -1` in CI: the gate's verdict survives the pipe.  The
    # read end is closed before the run writes anything, so every write meets EPIPE.
    script = f"import sys; from packcheck._cli import main; sys.exit(main({command!r}))"
    packers = Path(__file__).parents[1] / "packers"
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=packers, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.close()
    assert proc.wait(timeout=300) == status


def _processes_running(marker: str) -> list[str]:
    listing = subprocess.run(["ps", "-ww", "-eo", "stat=,args="], capture_output=True, text=True)
    # Zombies (state Z) have ended already; only live processes count.
    return [line for line in listing.stdout.splitlines() if marker in line and line[0] != "Z"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and ps")
def test_sigterm_ends_the_run_and_the_packers_processes(tmp_path: Path) -> None:
    packer = tmp_path / "sleeps_forever.py"
    packer.write_text("import time\n\ndef pack(case):\n    time.sleep(3600)\n")
    spec = f"{packer}:pack"
    run = subprocess.Popen(
        [sys.executable, "-m", "packcheck", "diff", "--packer", spec, "--against", spec,
         "--timeout", "600", "--seed", "1", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while len(_processes_running(str(packer))) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        # packcheck itself and NEW's worker, which is waiting on the first case.
        assert len(_processes_running(str(packer))) >= 2
        run.terminate()
        assert run.wait(timeout=30) == 128 + signal.SIGTERM
        deadline = time.monotonic() + 10
        while _processes_running(str(packer)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _processes_running(str(packer)) == []
    finally:
        run.kill()
        run.wait()


def test_the_signal_handlers_are_put_back_after_a_run() -> None:
    before = [signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)]
    assert main(["fixtures", str(SEED)]) == 0
    assert [signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)] == before
    # Off the main thread no handler can be set: none is, and a run goes as usual.
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(main(["fixtures", str(SEED)])))
    thread.start()
    thread.join()
    assert seen == [0]
    assert [signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)] == before
