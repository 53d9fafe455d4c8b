"""``packcheck bench`` on any packer ``verify`` accepts: case-level functions, kernels,
JSON Lines commands, in any mix; and baselines that match what was timed.

Real clocks on tiny inputs: no assertion reads a time.  Where a verdict is asserted
the threshold is 99%, which noise never crosses in eight pairs.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from packcheck._bench import BenchError, CommandSubject
from packcheck._bench._workloads import workload
from packcheck._cli import bench as bench_cli
from packcheck._cli import main

PACKERS = Path(__file__).resolve().parent.parent / "packers"
CASE = f"{PACKERS / 'capture.py'}:declared"
CAPTURING = f"{PACKERS / 'capture.py'}:correct"
KERNEL = "packcheck.scan:pack_sizes"
LINES = f"{sys.executable} {PACKERS / 'lines_packer.py'}"
TINY = ["bench", "--sizes", "10", "--workload", "pareto", "--min-time", "0", "--quiet"]
AB = [*TINY, "--time-budget", "0", "--max-regression", "99%"]


@pytest.fixture(autouse=True)
def _restore_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))


def _header(text: str) -> list[str]:
    return next(line for line in text.splitlines() if line.startswith("workload")).split()


def test_a_case_level_packer_is_timed_against_pack_case_and_nothing_else(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([*TINY, "--repeat", "1", "--packer", CASE]) == 0
    out = capsys.readouterr().out
    assert _header(out) == ["workload", "family", "n", "reference", CASE]
    assert "engines at the sizes agents pack" not in out  # no --steps unless asked
    assert main([*TINY, "--repeat", "1", "--packer", CASE, "--engines", "--clock", "process"]) == 0
    compiled = ["numba"] if importlib.util.find_spec("numba") else []
    assert _header(capsys.readouterr().out) == [
        "workload",
        "family",
        "n",
        "reference",
        "numpy",
        *compiled,
        CASE,
    ]


def test_long_names_never_run_together_in_the_header(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*TINY, "--repeat", "1", "--packer", CASE, "--packer", CAPTURING]) == 0
    assert _header(capsys.readouterr().out)[3:] == ["reference", CASE, CAPTURING]


def test_case_level_new_against_case_level_old(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*AB, "--packer", CASE, "--against", CAPTURING]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"NEW {CASE} (case-level)"
    assert out[1] == f"OLD {CAPTURING} (case-level)"
    assert "on the thread clock" in out[2]


def test_commands_are_timed_on_the_command_clock_in_any_mix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In-process packers are faster than a process reached through pipes.
    argv = [*AB, "--packer", KERNEL, "--against-cmd", LINES]
    assert main(argv) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[:2] == [f"NEW {KERNEL} (kernel-level)", f"OLD {LINES} (JSON Lines command)"]
    assert f"on the {'command' if bench_cli.COMMAND_CLOCK else 'wall'} clock" in text[2]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kinds"] == ["kernel", "command"]
    assert main([*AB, "--packer", CASE, "--against-cmd", LINES]) == 0
    capsys.readouterr()
    assert main([*AB, "--packer-cmd", LINES, "--against", CASE]) == 1  # and the reverse
    capsys.readouterr()
    assert main([*TINY, "--repeat", "1", "--packer-cmd", LINES, "--clock", "wall"]) == 0
    assert _header(capsys.readouterr().out)[3:] == ["reference", *LINES.split()]
    # Where the system does not show a process's CPU time, the wall clock.
    monkeypatch.setattr(bench_cli, "COMMAND_CLOCK", False)
    assert main([*AB, "--packer", CASE, "--against-cmd", LINES]) == 0
    assert "on the wall clock" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
def test_a_node_packer_against_itself_passes(capsys: pytest.CaptureFixture[str]) -> None:
    node = f"node {PACKERS / 'packer.js'}"
    assert main([*AB, "--packer-cmd", node, "--against-cmd", node]) == 0
    assert "ok: NEW is not slower than OLD" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--packer-cmd", LINES, "--clock", "thread"],
            "the thread clock cannot see a command packer's work (it runs in another process): "
            "use the command or wall clock",
        ),
        (
            ["--packer", CASE, "--packer", KERNEL],
            "kernel-level and case-level packers are timed in separate runs (the reference "
            "each is timed against differs)",
        ),
        (
            ["--no-engines"],
            "--no-engines leaves nothing to time: give --packer or --packer-cmd",
        ),
        (
            ["--packer", "os.path:join"],
            "--packer 'os.path:join' is neither a case-level packer",
        ),
        (
            ["--against", "/absent/old.py:pack_case"],
            "--against '/absent/old.py:pack_case': no such file '/absent/old.py'",
        ),
        (
            ["--packer-cmd", f"{sys.executable} -c pass", "--against", KERNEL],
            f"--packer-cmd '{sys.executable} -c pass' ended before answering any case",
        ),
    ],
)
def test_usage_and_setup_errors_are_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main([*TINY, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"packcheck bench: error: {message}")
    assert err.count("\n") == 1


def test_a_packer_of_the_wrong_kind_said_explicitly_fails_as_a_wrong_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([*TINY, "--packer", CASE, "--kind", "kernel"]) == 1
    assert capsys.readouterr().err.startswith(f"packcheck bench: {CASE} raised TypeError")


def test_compare_needs_a_baseline_of_the_packer_timed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = tmp_path / "base.json"
    assert main([*TINY, "--repeat", "1", "--packer", CASE, "--json"]) == 0
    base.write_text(capsys.readouterr().out)
    assert main([*TINY, "--repeat", "1", "--packer", CAPTURING, "--compare", str(base)]) == 2
    assert capsys.readouterr().err == (
        f"packcheck bench: error: --compare {base} holds no baseline for "
        f"{CAPTURING}; it holds {CASE}\n"
    )
    argv = [*TINY, "--repeat", "1", "--packer", CASE, "--compare", str(base)]
    assert main([*argv, "--max-regression", "99%"]) == 0
    assert f"compared with {base}: {CASE} on 1 workload(s) at n=10\n" in capsys.readouterr().out
    argv[argv.index("pareto")] = "staircase"
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"packcheck bench: error: --compare {base}: this run and the baseline share no "
        "workload and size "
        "with a speedup: nothing to compare\n"
    )


def test_a_command_past_its_timeout_in_a_batch_fails_the_run(tmp_path: Path) -> None:
    script = tmp_path / "stalls.py"  # it answers its first case, then stalls
    script.write_text(
        "import json, sys, time\n"
        "from packcheck import pack\n"
        "print(json.dumps(pack(json.loads(sys.stdin.readline()))), flush=True)\n"
        "time.sleep(60)\n"
    )
    command = f"{sys.executable} {script}"
    subject = CommandSubject(command, 60)
    try:
        cell = subject.cell(workload("pareto"), 10, 0)
        assert cell.answer() == cell.expected()
        subject.timeout = 0.1
        with pytest.raises(BenchError) as error:
            cell.run(2)
    finally:
        subject.close()
    assert str(error.value) == (
        f"{command} failed on pareto at n=10 (in 2 case(s)): no answer within 0.2 s "
        "(timeout); packer stopped"
    )


def test_no_timeout_waits_as_long_as_a_packer_takes(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*TINY, "--repeat", "1", "--timeout", "0"]
    assert main([*argv, "--packer", CASE, "--packer-cmd", LINES, "--clock", "wall"]) == 0
    assert _header(capsys.readouterr().out)[3:5] == ["reference", CASE]


def test_a_packer_past_its_limit_ends_the_process_after_stopping_the_commands(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    closed: list[str] = []
    ended: list[int] = []

    class Command:
        def close(self) -> None:
            closed.append("command")

    monkeypatch.setattr(bench_cli.os, "_exit", ended.append)
    bench_cli._expired([Command()], "p failed on w at n=10: no answer")  # type: ignore[list-item]
    assert (closed, ended) == (["command"], [1])
    assert capsys.readouterr().err == "packcheck bench: p failed on w at n=10: no answer\n"
