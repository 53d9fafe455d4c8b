"""``packcheck bench --against``, ``--history`` and the notes of ``--compare``.

Simulated time, except one real run of the installed kernel against a copied
checkout of it (kept tiny: well under a second).
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import shutil
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import simulated_time

import packcheck
from packcheck import _bench as bench
from packcheck._cli import main
from packcheck._engines import numpy_entry as scan

HEADER = ["workload", "family", "n", "NEW", "OLD", "NEW/OLD", "95%", "interval", "pairs"]
HEADER += ["verdict"]
AB = ["bench", "--workload", "uniform-50%", "--sizes", "1000", "--max-regression", "20%"]
AB += ["--packer", "new_kernel:pack_sizes", "--against", "old_kernel:pack_sizes"]


class Clock(simulated_time.Clock):
    def kernel(self, costs: Iterator[float], answer: Any = None) -> bench.Kernel:
        """A kernel taking the next of ``costs`` seconds per call, answering as the NumPy
        packer does or with ``answer``."""

        def pack_sizes(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
            self.now += next(costs)
            return scan.pack_sizes(budget, sizes) if answer is None else answer

        return pack_sizes


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    monkeypatch.setattr(sys, "path", list(sys.path))
    return simulated_time.simulate(monkeypatch, Clock())


@pytest.fixture
def kernels(monkeypatch: pytest.MonkeyPatch, clock: Clock) -> Callable[..., None]:
    """Set ``new_kernel:pack_sizes`` and ``old_kernel:pack_sizes``: their costs per
    call (cycled), and NEW's answer if it is to be wrong."""

    def install(new: list[float], old: list[float], new_answer: Any = None) -> None:
        for name, costs, answer in (("new_kernel", new, new_answer), ("old_kernel", old, None)):
            module = types.ModuleType(name)
            module.pack_sizes = clock.kernel(itertools.cycle(costs), answer)  # type: ignore[attr-defined]
            monkeypatch.setitem(sys.modules, name, module)

    return install


def test_the_same_speed_passes_with_a_table_of_verdicts(
    kernels: Callable[..., None], capsys: pytest.CaptureFixture[str]
) -> None:
    kernels([1e-3, 1.1e-3], [1.05e-3])
    assert main(AB) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "NEW new_kernel:pack_sizes (kernel-level)"
    assert out[1] == "OLD old_kernel:pack_sizes (kernel-level)"
    assert "thread clock" in out[2]
    assert "95% sign-test interval" in out[2]
    assert out[2].endswith("threshold 20%")
    assert out[4].split() == HEADER
    row = out[5].split()
    assert row[:3] == ["uniform-50%", "typical", "1,000"]
    assert row[-2:] == ["8", "same"]  # decided at the first look
    assert re.fullmatch(r"0 slower, 0 inconclusive, 0 faster, 1 same in 0\.\d s", out[-2])
    assert out[-1] == "ok: NEW is not slower than OLD by more than 20% on any workload"


def test_a_ratio_of_three_figures_stays_apart_from_its_interval(
    kernels: Callable[..., None], capsys: pytest.CaptureFixture[str]
) -> None:
    # NEW 353 times as slow: the ratio fills its column, and a space still parts it
    # from the interval (issue 28: `353.06x[238.20x, 930.14x]` ran together).
    kernels([0.353], [1e-3])
    assert main(AB) == 1
    row = capsys.readouterr().out.splitlines()[5]
    assert " 353.00x [353.00x, 353.00x] " in row, row


def test_a_slower_new_fails_naming_the_workload(
    kernels: Callable[..., None], capsys: pytest.CaptureFixture[str]
) -> None:
    kernels([1.5e-3, 1.6e-3], [1e-3, 1.05e-3])
    assert main(AB) == 1
    out = capsys.readouterr().out
    assert "slower\n" in out
    assert out.endswith("FAIL: NEW is slower than OLD by more than 20% on: uniform-50% n=1,000\n")
    # A looser threshold lets the same slowdown through.
    assert main([*AB, "--max-regression", "60%"]) == 0


def test_an_inconclusive_run_passes_unless_strict(
    kernels: Callable[..., None], capsys: pytest.CaptureFixture[str]
) -> None:
    kernels([0.5e-3, 2e-3], [1e-3])  # NEW alternately half and twice OLD: never clear
    argv = [*AB, "--time-budget", "0.1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "inconclusive\n" in out
    assert out.endswith(
        "inconclusive within the time budget on: uniform-50% n=1,000 "
        "(passes; --strict would fail it)\n"
    )
    assert main([*argv, "--strict"]) == 1
    assert capsys.readouterr().out.endswith("(fails under --strict)\n")


def test_differing_answers_fail_in_one_line(
    kernels: Callable[..., None], capsys: pytest.CaptureFixture[str]
) -> None:
    kernels([1e-3], [1e-3], new_answer=([], 0))
    assert main(AB) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "packcheck bench: NEW and OLD answer differently on uniform-50% at n=1,000, seed 0 "
        "(--workload uniform-50% --sizes 1000 --seed 0); the reference agrees with OLD\n"
    )
    # Under --format json stdout still holds one object, saying what ended the run.
    assert main([*AB, "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {
        "error": captured.err.removeprefix("packcheck bench: ").strip()
    }


@pytest.mark.parametrize("spelling", [["--format", "json"], ["--json"]])
def test_the_ab_json_is_alone_on_stdout_the_text_on_stderr(
    kernels: Callable[..., None], capsys: pytest.CaptureFixture[str], spelling: list[str]
) -> None:
    kernels([1e-3], [1e-3])
    assert main([*AB, *spelling, "--quiet"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert (data["kind"], data["new"], data["old"]) == (
        "packcheck bench A/B",
        "new_kernel:pack_sizes",
        "old_kernel:pack_sizes",
    )
    assert data["comparisons"][0]["verdict"] == "same"
    assert err.startswith("NEW new_kernel:pack_sizes (kernel-level)\n")  # the text report
    assert err.endswith("\nok: NEW is not slower than OLD by more than 20% on any workload\n")


@pytest.mark.parametrize(
    ("new", "old", "status", "counted"),
    [
        ([1e-3], [1e-3], "ok", "same"),
        ([1.5e-3, 1.6e-3], [1e-3, 1.05e-3], "fail", "slower"),
        ([0.5e-3, 2e-3], [1e-3], "inconclusive", "inconclusive"),  # never clear
    ],
)
def test_the_ab_json_says_the_runs_verdict_at_the_top(
    kernels: Callable[..., None],
    capsys: pytest.CaptureFixture[str],
    new: list[float],
    old: list[float],
    status: str,
    counted: str,
) -> None:
    kernels(new, old)
    main([*AB, "--json", "--quiet", "--time-budget", "0.1"])
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == status
    assert data["verdicts"] == {
        verdict: int(verdict == counted) for verdict in ("slower", "inconclusive", "faster", "same")
    }


def test_new_defaults_to_the_installed_numpy_packer(
    kernels: Callable[..., None], capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    kernels([1e-3], [1e-3])
    argv = [a for a in AB if a not in ("--packer", "new_kernel:pack_sizes")]
    assert main([*argv, "--quick", "--time-budget", "1"]) == 0  # free NEW: "faster"
    out = capsys.readouterr().out
    assert out.startswith("NEW packcheck.scan:pack_sizes (kernel-level)\n")
    assert "faster" in out


STEPS_NOT_AB = "--steps and --engines add packcheck's engines to the matrix; not with --against"
ONE_NEW = "--against compares one --packer (NEW) with OLD; no --compare or --plot"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--compare", "x.json"], ONE_NEW),
        (["--plot", "x.png"], ONE_NEW),
        (["--packer", "old_kernel:pack_sizes"], ONE_NEW),
        (["--history", "."], "--history reads stored results: it takes only --plot"),
        (["--steps"], STEPS_NOT_AB),
        (["--engines"], STEPS_NOT_AB),
    ],
)
def test_modes_that_do_not_mix_are_usage_errors(
    kernels: Callable[..., None],
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    message: str,
) -> None:
    kernels([1e-3], [1e-3])
    assert main([*AB, *extra]) == 2
    assert capsys.readouterr().err == f"packcheck bench: error: {message}\n"


def test_history_takes_no_steps(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--history", ".", "--steps"]) == 2
    assert capsys.readouterr().err == (
        "packcheck bench: error: --history reads stored results: it takes only --plot\n"
    )


@pytest.mark.parametrize("extra", [["--strict"], ["--time-budget", "5"]])
def test_a_b_options_without_against_are_usage_errors(
    capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    assert main(["bench", "--sizes", "10", *extra]) == 2
    assert (
        capsys.readouterr().err
        == "packcheck bench: error: --strict and --time-budget apply to --against only\n"
    )


def test_an_old_kernel_that_cannot_be_loaded_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["bench", "--against", f"{tmp_path}/absent.py:pack_sizes"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err
    assert err.count("\n") == 1


def test_a_real_run_against_a_copied_checkout_is_not_slower(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The one test on real clocks: the installed kernel against a copy of itself.
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    old = tmp_path / "old" / "packcheck"
    source = Path(packcheck.__file__).parent
    shutil.copytree(source, old, ignore=shutil.ignore_patterns("__pycache__"))
    argv = ["bench", "--against", f"{old / 'scan.py'}:pack_sizes", "--sizes", "2000"]
    argv += ["--workload", "nothing-fits", "--max-regression", "50%", "--time-budget", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"OLD {old / 'scan.py'}:pack_sizes" in out
    assert "slower" not in out.splitlines()[5]


# --- --compare: notes on what differs ---------------------------------------------------


def _report(machine: dict[str, str], clock: str = "thread", **context: Any) -> dict[str, Any]:
    timings = [
        bench.Timing("reference", "pareto", "typical", 10, 5, 0, 1.0, (1.0,) * 3),
        bench.Timing("numpy", "pareto", "typical", 10, 5, 0, 0.5, (0.5,) * 3),
    ]
    where = {"created": "2026-01-01T00:00:00+00:00", "commit": None, "machine": machine}
    return bench.Report(timings, {**where, **context}, clock).to_json()


def test_compare_says_when_machines_versions_or_clocks_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clock: Clock
) -> None:
    here = bench.context()["machine"]
    baseline = tmp_path / "baseline.json"
    argv = ["bench", "--sizes", "10", "--workload", "pareto", "--repeat", "1", "--min-time", "0"]
    argv += ["--compare", str(baseline)]
    baseline.write_text(json.dumps(_report(here)))
    main(argv)
    assert "note:" not in capsys.readouterr().out
    other = {**here, "cpu": "Elsewhere 9000", "python": "3.99.0"}
    baseline.write_text(json.dumps(_report(other, clock="wall")))
    main(argv)
    out = capsys.readouterr().out
    assert f"note: this comparison is across machines (cpu Elsewhere 9000 -> {here['cpu']})" in out
    assert f"note: this comparison is across versions (python 3.99.0 -> {here['python']})" in out
    assert "note: the baseline was timed on the wall clock, this run on the thread clock" in out
    assert "(--against)" in out


# --- --history ------------------------------------------------------------------------------


def test_history_shows_each_reports_speedups_oldest_first_and_plots_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    here = bench.context()["machine"]
    (tmp_path / "b.json").write_text(
        json.dumps(_report(here, created="2026-01-02T00:00:00+00:00", commit="bbbbbbbbbbbbbbbb"))
    )
    (tmp_path / "a.json").write_text(
        json.dumps(_report(here, created="2026-01-03T00:00:00+00:00", commit="aaaaaaaaaaaaaaaa"))
    )
    (tmp_path / "ab.json").write_text(json.dumps({"kind": "packcheck bench A/B"}))  # skipped
    (tmp_path / "notes.txt").write_text("not a result")
    assert main(["bench", "--history", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split() == ["created", "commit", "engine", "pareto"]
    assert lines[3].split() == ["n=10"]
    assert lines[4].split() == ["2026-01-02T00:00:00+00:00", "bbbbbbbbbbbb", "numpy", "2.0x"]
    assert lines[5].split() == ["2026-01-03T00:00:00+00:00", "aaaaaaaaaaaa", "numpy", "2.0x"]
    assert len(lines) == 6  # no footnote: the reports share a size
    if importlib.util.find_spec("matplotlib") is not None:
        png = tmp_path / "history.png"
        assert main(["bench", "--history", str(tmp_path), "--plot", str(png)]) == 0
        assert png.read_bytes()[:4] == b"\x89PNG"
        nowhere = tmp_path / "absent" / "history.png"
        assert main(["bench", "--history", str(tmp_path), "--plot", str(nowhere)]) == 2
        assert "cannot write" in capsys.readouterr().err


def test_history_marks_a_workload_a_report_did_not_measure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = bench.Report(
        [
            bench.Timing("numpy", "sawtooth", "adversarial", 10, 5, 0, 1.0),
            bench.Timing("reference", "pareto", "typical", 20, 5, 0, 4.0),
            bench.Timing("numpy", "pareto", "typical", 20, 5, 0, 1.0),
        ]
    )
    (tmp_path / "one.json").write_text(json.dumps(one.to_json()))
    (tmp_path / "two.json").write_text(json.dumps(_report({})))
    assert main(["bench", "--history", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].split()[-2:] == ["sawtooth", "pareto"]
    # No report has a sawtooth speedup; pareto is at n=20 in one, n=10 in the other.
    assert out[3].split() == ["*", "*"]
    # A report without a creation time sorts first.
    assert [line.split() for line in out[4:6]] == [
        ["-", "-", "numpy", "-", "4.0x"],
        ["2026-01-01T00:00:00+00:00", "-", "numpy", "-", "2.0x"],
    ]
    assert out[-1] == "* the reports share no size for this workload: each at its largest"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "no packcheck bench --json results in it"),
        ({"x.json": "{broken"}, "x.json: invalid JSON: Expecting property name"),
        ({"x.json": '{"kind": "packcheck bench"}'}, "x.json: not a packcheck bench report"),
    ],
)
def test_a_history_directory_without_results_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert main(["bench", "--history", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
    assert main(["bench", "--history", str(tmp_path / "absent")]) == 2
    assert capsys.readouterr().err.endswith("absent: not a directory\n")


def test_the_history_plot_hides_spare_panels(tmp_path: Path) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from packcheck._cli.bench_plot import draw_history

    timings = [
        bench.Timing(engine, name, "typical", 10, 1, 0, cost)
        for name in ["a", "b", "c", "d", "e"]
        for engine, cost in (("reference", 4.0), ("numpy", 1.0))
    ]
    path = tmp_path / "five.png"
    # Sizes shared and not: "a" at n=10 in both, the rest only in "one" at n=10 or 20.
    more = [bench.Timing(t.engine, t.workload, t.family, 20, 1, 0, t.seconds) for t in timings]
    reports = [("one", bench.Report(timings[:4] + more[4:])), ("two", bench.Report(timings[:2]))]
    draw_history(reports, plt, str(path))
    assert path.read_bytes()[:4] == b"\x89PNG"


# --- the compiled engine's column ---------------------------------------------------------


@pytest.mark.parametrize("installed", [True, False])
def test_the_matrix_shows_the_compiled_engine_where_numba_is_installed(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    installed: bool,
) -> None:
    if installed and importlib.util.find_spec("numba") is None:
        pytest.skip("the numba extra is not installed: pip install 'packcheck[numba]'")
    if not installed:
        real = importlib.util.find_spec
        monkeypatch.setattr(
            importlib.util, "find_spec", lambda name: None if name == "numba" else real(name)
        )
    argv = ["bench", "--sizes", "2000", "--workload", "pareto", "--repeat", "1"]
    assert main([*argv, "--min-time", "0", "--no-steps", "--json"]) == 0
    engines = {result["engine"] for result in json.loads(capsys.readouterr().out)["results"]}
    assert engines == ({"reference", "numpy", "numba"} if installed else {"reference", "numpy"})
    capsys.readouterr()


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (None, "-"),
        (0.0009996, "1 ms"),
        (0.0009994, "999 µs"),
        (9.996e-07, "1 µs"),
        (0.9996, "1 s"),
        (2.5, "2.5 s"),
        (999.96, "1,000 s"),
        (1234.5, "1,234 s"),
        (5e-10, "0.5 ns"),
    ],
)
def test_a_time_is_shown_in_the_unit_its_rounded_figure_needs(
    seconds: float | None, shown: str
) -> None:
    from packcheck._cli.bench_show import format_time

    assert format_time(seconds) == shown
