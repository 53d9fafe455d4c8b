"""The bench API and ``packcheck bench``, on simulated time: no test reads a wall clock.

Packers here advance a fake clock by a fixed cost per block, so every timing,
speedup and scaling exponent is known exactly, and a deliberately slowed engine is
slowed by construction, not by luck.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import re
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from packcheck import _bench as bench
from packcheck import reference
from packcheck._bench import _run, _timing
from packcheck._bench._workloads import WORKLOADS, workload
from packcheck._cli import main
from packcheck._cli.bench_plot import draw
from packcheck._cli.bench_show import crossover, table, table_steps
from packcheck._engines import numpy_entry as scan

REFERENCE_NS = 40.0  # simulated nanoseconds per block


class FakeClock:
    """A clock that moves only when a packer says it worked."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def packer(self, ns_per_block: float) -> bench.Kernel:
        """The NumPy packer, costing ``ns_per_block`` simulated nanoseconds a block."""

        def pack_sizes(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
            self.now += ns_per_block * 1e-9 * sizes.shape[0]
            return scan.pack_sizes(budget, sizes)

        return pack_sizes


@pytest.fixture(autouse=True)
def _restore_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # --packer puts the current directory on sys.path; keep that inside each test.
    monkeypatch.setattr(sys, "path", list(sys.path))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Simulated time for the whole bench, the reference costing 40 ns a block."""
    fake = FakeClock()
    original = reference.pack_sizes

    def slow_reference(budget: int, sizes: list[int]) -> tuple[list[bool], int]:
        fake.now += REFERENCE_NS * 1e-9 * len(sizes)
        return original(budget, sizes)

    monkeypatch.setattr(_run, "_reference", slow_reference)
    for name in bench.CLOCKS:
        monkeypatch.setitem(bench.CLOCKS, name, fake)
    monkeypatch.setattr(_timing, "_wall", fake)
    return fake


SMALL = {
    "sizes": (1000, 4000),
    "workloads": ["uniform-50%", "staircase"],
    "repeat": 2,
    "min_time": 0.0,
}


def test_speedups_and_exponents_come_from_the_same_run(clock: FakeClock) -> None:
    report = bench.run(packers={"fast": clock.packer(2.0)}, **SMALL)  # type: ignore[arg-type]
    assert report.engines() == ["reference", "fast"]
    assert report.workloads() == ["uniform-50%", "staircase"]
    assert report.sizes() == [1000, 4000]
    for name in report.workloads():
        for n in report.sizes():
            assert report.seconds("fast", name, n) == pytest.approx(2e-9 * n)
            assert report.speedup("fast", name, n) == pytest.approx(20.0)
        assert report.slope("fast", name) == pytest.approx(1.0)
        assert report.slope(bench.REFERENCE, name) == pytest.approx(1.0)
    assert report.family("staircase") == "adversarial"
    assert report.seconds("fast", "pareto", 1000) is None
    assert report.speedup("fast", "pareto", 1000) is None


def test_compare_passes_an_unchanged_engine_and_names_a_slowed_one(clock: FakeClock) -> None:
    baseline = bench.run(packers={"numpy": clock.packer(1.0)}, **SMALL)  # type: ignore[arg-type]
    same = bench.run(packers={"numpy": clock.packer(1.0)}, **SMALL)  # type: ignore[arg-type]
    slowed = bench.run(packers={"numpy": clock.packer(1.5)}, **SMALL)  # type: ignore[arg-type]
    assert bench.compare(baseline, same, 0.10) == []
    regressions = bench.compare(baseline, slowed, 0.10)
    assert [(r.workload, r.engine, r.n) for r in regressions] == [
        ("uniform-50%", "numpy", 4000),
        ("staircase", "numpy", 4000),
    ]
    assert regressions[0].baseline == pytest.approx((40.0,) * 3)
    assert regressions[0].current == pytest.approx((40.0 / 1.5,) * 3)
    assert str(regressions[0]) == (
        "uniform-50% (numpy, n=4,000): speedup 26.7x [26.7x, 26.7x], was 40.0x [40.0x, 40.0x] "
        "(33% slower)"
    )
    # A third slower is within a 40% allowance; a speedup that rose never regresses.
    assert bench.compare(baseline, slowed, 0.40) == []
    assert bench.compare(slowed, baseline, 0.0) == []


def test_compare_skips_what_only_one_report_has(clock: FakeClock) -> None:
    baseline = bench.run(packers={"old": clock.packer(1.0)}, **SMALL)  # type: ignore[arg-type]
    current = bench.run(packers={"new": clock.packer(9.0)}, **SMALL)  # type: ignore[arg-type]
    assert bench.compare(baseline, current, 0.1) == []


def test_the_reference_is_skipped_above_its_limit(clock: FakeClock) -> None:
    report = bench.run(
        packers={"fast": clock.packer(1.0)}, sizes=[100, 5000], workloads=["pareto"],
        repeat=1, reference_limit=1000, min_time=0,
    )  # fmt: skip
    assert report.seconds(bench.REFERENCE, "pareto", 100) is not None
    assert report.seconds(bench.REFERENCE, "pareto", 5000) is None
    assert report.speedup("fast", "pareto", 5000) is None
    assert report.seconds("fast", "pareto", 5000) == pytest.approx(5e-6)


def test_a_fast_call_is_timed_over_many_calls(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_timing, "_MAX_CALLS", 300)  # a free call is capped, not endless
    counts = {"cheap": 0, "free": 0}

    def cheap(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
        counts["cheap"] += 1
        clock.now += 2**-20  # about 1 us, exact in binary: 100 calls make the minimum
        return scan.pack_sizes(budget, sizes)

    def free(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
        counts["free"] += 1
        return scan.pack_sizes(budget, sizes)

    packers = {"cheap": cheap, "free": free}
    report = bench.run(
        packers=packers, sizes=[50], workloads=["pareto"], repeat=2, min_time=100 * 2**-20,
        reference_limit=10,
    )  # fmt: skip
    # One call checks the answer, a warm one sets the calls per sample.
    assert counts == {"cheap": 2 + 2 * 100, "free": 2 + 2 * 300}
    assert report.seconds("cheap", "pareto", 50) == 2**-20
    # The reference (40 ns x 50 blocks = 2 us a call) is timed over 50 calls.
    report = bench.run(sizes=[50], workloads=["pareto"], repeat=1, min_time=1e-4)
    assert report.seconds(bench.REFERENCE, "pareto", 50) == pytest.approx(2e-6)


def test_a_packer_that_takes_no_time_has_an_infinite_speedup(clock: FakeClock) -> None:
    report = bench.run(
        packers={"free": scan.pack_sizes}, sizes=[10], workloads=["pareto"], min_time=0.0
    )
    assert report.speedup("free", "pareto", 10) == float("inf")
    assert report.slope("free", "pareto") is None  # one size, and no positive time


def test_the_collector_is_off_while_timing_and_left_as_found(clock: FakeClock) -> None:
    states: list[bool] = []

    def watched(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
        states.append(gc.isenabled())
        return scan.pack_sizes(budget, sizes)

    bench.run(packers={"w": watched}, sizes=[10], workloads=["pareto"], repeat=2, min_time=0)
    assert gc.isenabled()
    assert states[:2] == [True, True]  # the answer check and warm-up run before timing
    assert set(states[2:]) == {False}
    gc.disable()
    try:
        bench.run(packers={"w": watched}, sizes=[10], workloads=["pareto"], repeat=1, min_time=0)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_progress_names_every_cell(clock: FakeClock) -> None:
    seen: list[tuple[str, int, int | None]] = []
    progress = lambda *state: seen.append(state)  # noqa: E731
    bench.run(sizes=[10, 20], workloads=["sawtooth"], repeat=1, min_time=0, progress=progress)
    assert seen == [("sawtooth n=10", 1, 2), ("sawtooth n=20", 2, 2)]


def _wrong(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
    mask, remaining = scan.pack_sizes(budget, sizes)
    return mask, remaining + 1


def _numpy_remaining(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
    mask, remaining = scan.pack_sizes(budget, sizes)
    return mask, np.int64(remaining)


def _list_answer(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
    return reference.pack_sizes(budget, sizes.tolist())


def _mutating(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
    answer = scan.pack_sizes(budget, sizes)
    sizes[0] += 1
    return answer


@pytest.mark.parametrize(
    ("packer", "message"),
    [
        (_wrong, "gave a wrong answer"),
        (_numpy_remaining, "gave a wrong answer"),
        (lambda budget, sizes: None, "gave a wrong answer"),
        (lambda budget, sizes: (None, 0), "gave a wrong answer"),
        (_mutating, "changed its input"),
    ],
)
def test_a_wrong_or_mutating_packer_is_an_error(packer: bench.Kernel, message: str) -> None:
    with pytest.raises(bench.BenchError, match=f"^bad {message} on pareto at n=100$"):
        bench.run(packers={"bad": packer}, sizes=[100], workloads=["pareto"], min_time=0)


def test_a_packer_answering_in_lists_is_accepted() -> None:
    report = bench.run(
        packers={"lists": _list_answer}, sizes=[50], workloads=["pareto"], min_time=0.0
    )
    assert report.engines() == ["reference", "lists"]


def test_an_answer_checked_above_the_reference_limit_uses_the_numpy_packer() -> None:
    with pytest.raises(bench.BenchError, match="wrong answer"):
        bench.run(packers={"bad": _wrong}, sizes=[50], workloads=["pareto"], reference_limit=10)


def test_run_rejects_impossible_matrices() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        bench.run(sizes=[10], repeat=0)
    with pytest.raises(ValueError, match="at least 1"):
        bench.run(sizes=[0])
    with pytest.raises(ValueError, match="at least 1"):
        bench.run(sizes=[])
    with pytest.raises(KeyError, match="unknown workload 'nope'"):
        bench.run(sizes=[10], workloads=["nope"])


def test_workloads_are_seeded_valid_and_reject_empty_sizes() -> None:
    for name, load in WORKLOADS.items():
        sizes, budget = load.generate(3000, seed=7)
        again, budget_again = workload(name).generate(3000, seed=7)
        assert sizes.dtype == np.int64
        assert sizes.shape == (3000,)
        assert int(sizes.min()) >= 1
        assert budget >= 0
        assert np.array_equal(sizes, again)
        assert budget == budget_again
    with pytest.raises(ValueError, match="n must be >= 1"):
        WORKLOADS["pareto"].generate(0)


def test_a_report_is_stored_as_medians_and_intervals_with_its_context(clock: FakeClock) -> None:
    report = bench.run(packers={"fast": clock.packer(2.0)}, **SMALL)  # type: ignore[arg-type]
    data = json.loads(json.dumps(report.to_json()))
    assert data["kind"] == bench.KIND
    assert data["clock"] == "thread"
    assert set(data) == {"kind", "clock", "created", "commit", "machine", "results"}
    assert set(data["machine"]) >= {"python", "numpy", "cpu", "cpus", "system", "machine"}
    assert "samples" not in json.dumps(data)  # small: no raw samples
    fast = next(r for r in data["results"] if r["engine"] == "fast")
    assert fast["speedup"] == pytest.approx(20.0)
    assert fast["speedup_interval"] == pytest.approx([20.0, 20.0])
    assert fast["repeats"] == 2
    again = bench.Report.from_json(data)
    assert again.machine == report.machine
    assert again.context == report.context
    for t in report.timings:
        assert again.seconds(t.engine, t.workload, t.n) == t.seconds
        cell = (t.engine, t.workload, t.n)
        assert again.speedup_interval(*cell) == report.speedup_interval(*cell)


def _noisy(engine_samples: tuple[float, ...]) -> bench.Report:
    reference_samples = (1.0,) * len(engine_samples)
    return bench.Report(
        [
            bench.Timing("reference", "pareto", "typical", 10, 5, 0, 1.0, reference_samples),
            bench.Timing(
                "numpy", "pareto", "typical", 10, 5, 0, sorted(engine_samples)[1], engine_samples
            ),
        ]
    )


def test_a_speedup_carries_the_interval_of_its_repeats() -> None:
    # Three repeats: the range of the ratios (below 6, no sign-test interval exists).
    assert _noisy((0.5, 0.25, 0.125)).speedup_interval("numpy", "pareto", 10) == (4.0, 2.0, 8.0)
    # Nine: the 95% sign-test interval drops the lowest and highest ratio.
    nine = _noisy((1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.1))
    assert nine.speedup_interval("numpy", "pareto", 10) == (2.0, 2.0, 2.0)
    stored = bench.Report.from_json(json.loads(json.dumps(nine.to_json())))
    assert stored.speedup_interval("numpy", "pareto", 10) == (2.0, 2.0, 2.0)
    numpy = next(r for r in nine.to_json()["results"] if r["engine"] == "numpy")
    assert (numpy["seconds"], numpy["interval"]) == (0.5, [0.5, 0.5])


def test_compare_allows_for_the_noise_of_both_runs() -> None:
    steady = _noisy((0.5,) * 3)  # 2x, exactly
    noisy = _noisy((0.5, 0.8, 1.6))  # 1.25x, anywhere in [0.6x, 2x]
    slow = _noisy((0.8,) * 3)  # 1.25x, exactly
    assert bench.compare(steady, slow, 0.1) != []
    assert bench.compare(steady, noisy, 0.1) == []  # its top, 2x, is no fall
    assert bench.compare(noisy, slow, 0.1) == []  # nor against the baseline's low end


def test_a_report_from_before_the_kind_field_still_reads() -> None:
    old = {"packcheck": "0.1.0", "machine": {"python": "3.11.7"}, "timings": [
        {"engine": "reference", "workload": "pareto", "family": "typical", "n": 10, "budget": 5,
         "seed": 0, "seconds": 1.0, "samples": [1.0, 1.0, 1.0]},
        {"engine": "numpy", "workload": "pareto", "family": "typical", "n": 10, "budget": 5,
         "seed": 0, "seconds": 0.5, "samples": [0.5, 0.5, 0.25]},
    ]}  # fmt: skip
    report = bench.Report.from_json(old)
    assert report.clock == "wall"
    assert report.machine == {"python": "3.11.7"}
    assert report.speedup_interval("numpy", "pareto", 10) == (2.0, 2.0, 4.0)
    assert bench.Report.from_json({"timings": []}).timings == []


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        {},
        {"timings": [{"engine": "x"}]},
        {"timings": 3},
        {"kind": bench.KIND},
        {"kind": bench.KIND, "clock": "thread", "created": "", "commit": None, "machine": {},
         "results": [{"engine": "x"}]},
        {"kind": bench.KIND, "clock": "thread", "created": "", "commit": None, "machine": {},
         "results": [{"engine": "x", "workload": "w", "family": "typical", "n": 1, "budget": 1,
                      "seed": 0, "seconds": 1.0, "speedup": 2.0, "speedup_interval": [1.0]}]},
    ],
)  # fmt: skip
def test_a_report_that_is_not_one_is_a_one_line_error(data: object) -> None:
    with pytest.raises(ValueError, match=r"^not a packcheck bench report"):
        bench.Report.from_json(data)


def test_the_table_marks_cells_that_were_not_measured() -> None:
    report = bench.Report(
        [
            bench.Timing("reference", "pareto", "typical", 10, 5, 0, 2.5),
            bench.Timing("numpy", "pareto", "typical", 10, 5, 0, 5e-10),
            bench.Timing("numpy", "pareto", "typical", 100, 5, 0, 5e-9),
        ]
    )
    lines = table(report, repeat=1).splitlines()
    assert re.fullmatch(r"pareto\s+typical\s+10\s+2\.5 s\s+0\.5 ns\s+5e\+09x", lines[3])
    assert re.fullmatch(r"pareto\s+typical\s+100\s+-\s+5 ns", lines[4])
    assert re.fullmatch(r"pareto\s+-\s+1\.00", lines[8])
    assert lines[-1] == "numpy at n=10: typical median 5e+09x, min 5e+09x (pareto)"
    lone = bench.Report([bench.Timing("numpy", "pareto", "typical", 10, 5, 0, 1.0)])
    assert "numpy: no speedup measured (the reference did not run)" in table(lone, repeat=1)


# --- the command ----------------------------------------------------------------------

CLI = ["bench", "--sizes", "1000,4000", "--workload", "uniform-50%", "--workload", "staircase"]
CLI += ["--min-time", "0"]


@pytest.fixture
def candidate(monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> Callable[[float], None]:
    """A ``--packer candidate:pack_sizes`` whose simulated cost a test can set."""
    module = types.ModuleType("candidate")
    monkeypatch.setitem(sys.modules, "candidate", module)

    def set_cost(ns_per_block: float) -> None:
        module.pack_sizes = clock.packer(ns_per_block)  # type: ignore[attr-defined]

    set_cost(1.0)
    return set_cost


def test_bench_prints_the_table_writes_json_and_plots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], candidate: Callable[[float], None]
) -> None:
    png = tmp_path / "bench.png"
    argv = [*CLI, "--quick", "--packer", "candidate:pack_sizes"]
    # The plot is an optional extra: drawn where matplotlib is installed (CI installs it).
    plotting = importlib.util.find_spec("matplotlib") is not None
    assert main([*argv, *(["--plot", str(png)] if plotting else [])]) == 0
    text = capsys.readouterr().out
    assert "over 3 repeat(s)" in text
    assert "reference" in text
    assert "candidate:pack_sizes" in text
    assert "40.0x" in text
    assert "scaling exponent" in text
    assert "candidate:pack_sizes at n=4,000: typical median 40.0x" in text
    assert main([*argv, "--json"]) == 0  # the JSON alone on stdout, the text on stderr
    out, err = capsys.readouterr()
    assert "candidate:pack_sizes at n=4,000: typical median 40.0x" in err
    saved = bench.Report.from_json(json.loads(out))
    assert saved.speedup("candidate:pack_sizes", "staircase", 4000) == pytest.approx(40.0)
    assert not plotting or png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_compare_fails_on_a_slowed_engine_and_passes_an_unchanged_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], candidate: Callable[[float], None]
) -> None:
    baseline = tmp_path / "baseline.json"
    argv = [*CLI, "--repeat", "1", "--packer", "candidate:pack_sizes"]
    assert main([*argv, "--json"]) == 0
    baseline.write_text(capsys.readouterr().out)
    assert main([*argv, "--compare", str(baseline), "--max-regression", "10%"]) == 0
    assert "no speedup fell by more than 10% beyond the noise of both runs, against" in (
        capsys.readouterr().out
    )
    candidate(1.25)  # 20% slower: 32x instead of 40x
    assert main([*argv, "--compare", str(baseline), "--max-regression", "10%"]) == 1
    text = capsys.readouterr().out
    assert "REGRESSION uniform-50% (candidate:pack_sizes, n=4,000): speedup 32.0x" in text
    assert "REGRESSION staircase (candidate:pack_sizes, n=4,000)" in text
    assert "2 speedup(s) fell by more than 10% beyond the noise of both runs" in text
    assert "note:" not in text  # the same machine, versions and clock
    assert main([*argv, "--compare", str(baseline), "--max-regression", "0.25"]) == 0
    capsys.readouterr()
    # With --json the verdict goes to stderr, the JSON alone to stdout.
    assert main([*argv, "--compare", str(baseline), "--max-regression", "10%", "--json"]) == 1
    out, err = capsys.readouterr()
    assert bench.Report.from_json(json.loads(out)).speedup(
        "candidate:pack_sizes", "staircase", 4000
    )
    assert "2 speedup(s) fell by more than 10%" in err


def test_bench_shows_progress_as_verify_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], clock: FakeClock
) -> None:
    # In a log: a line as each workload and size ends (the last before the report), and
    # on a slow machine the same state again every 10 s.
    assert main([*CLI, "--repeat", "1"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert list(dict.fromkeys(line.rsplit(",", 1)[0] for line in lines)) == [
        f"packcheck bench: {name} n={n}: {done}/4 cells"
        for done, (name, n) in enumerate(
            [("uniform-50%", "1,000"), ("uniform-50%", "4,000"), ("staircase", "1,000"),
             ("staircase", "4,000")], 1
        )
    ]  # fmt: skip
    assert main([*CLI, "--repeat", "1", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main([*CLI, "--repeat", "1"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("\r\033[Kpackcheck bench: uniform-50% n=1,000: 1/4 cells, ")
    assert err.endswith("\r\033[K")


def test_bench_without_matplotlib_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main([*CLI, "--plot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err == "packcheck bench: error: --plot needs matplotlib: pip install 'packcheck[plot]'\n"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("candidate", "expected MODULE:FUNCTION"),
        (":pack_sizes", "expected MODULE:FUNCTION"),
        ("no_such_module_here:pack_sizes", "cannot import 'no_such_module_here'"),
        ("candidate:missing", "'candidate' has no function 'missing'"),
    ],
)
def test_a_bad_packer_spec_is_a_one_line_usage_error(
    spec: str,
    message: str,
    capsys: pytest.CaptureFixture[str],
    candidate: Callable[[float], None],
) -> None:
    assert main([*CLI, "--packer", spec]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_a_packer_module_is_imported_from_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "my_packer_under_test.py").write_text(
        "from packcheck.scan import pack_sizes as fast\n"
        "def wrong(budget, sizes):\n"
        "    mask, remaining = fast(budget, sizes)\n"
        "    return mask, remaining + 1\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "my_packer_under_test", raising=False)
    argv = ["bench", "--sizes", "100", "--workload", "pareto", "--repeat", "1"]
    assert main([*argv, "--packer", "my_packer_under_test:fast"]) == 0
    assert "my_packer_under_test:fast" in capsys.readouterr().out
    assert main([*argv, "--packer", "my_packer_under_test:wrong"]) == 1
    assert capsys.readouterr().err == (
        "packcheck bench: my_packer_under_test:wrong gave a wrong answer on pareto at n=100\n"
    )


def test_an_unreadable_or_invalid_baseline_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    assert main([*CLI, "--compare", str(missing)]) == 2
    assert "missing.json: cannot read:" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main([*CLI, "--compare", str(broken)]) == 2
    assert "broken.json:" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text('{"kept": []}')
    assert main([*CLI, "--compare", str(other)]) == 2
    assert "not a packcheck bench report" in capsys.readouterr().err


def test_an_unwritable_output_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], clock: FakeClock
) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "absent" / "bench.png"
    assert main([*CLI, "--repeat", "1", "--plot", str(path)]) == 2
    assert capsys.readouterr().err.endswith(
        f"packcheck bench: error: {path}: cannot write: No such file or directory\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--max-regression", "abc"],
        ["--max-regression", "100%"],
        ["--max-regression", "-5%"],
        ["--sizes", "10,x"],
        ["--sizes", "0"],
        ["--repeat", "0"],
        ["--workload", "nope"],
        ["--time-budget", "soon"],
        ["--time-budget", "-1"],
        ["--min-time", "inf"],
        ["--clock", "sundial"],
    ],
)
def test_bad_options_are_one_line_usage_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", *argv])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"packcheck bench: error: argument {argv[0]}: ")
    assert err.count("\n") == 1


def test_an_unknown_option_still_shows_the_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--sundial"])
    assert exit_info.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_the_plot_has_a_panel_per_workload_and_hides_spare_ones(tmp_path: Path) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timings = [
        bench.Timing(engine, name, "typical", n, 1, 0, n * 1e-9 * cost)
        for name in ["a", "b", "c", "d", "e"]
        for engine, cost in (("reference", 40), ("numpy", 1))
        for n in (10, 100)
    ]
    path = tmp_path / "five.png"
    draw(bench.Report(timings), plt, str(path))
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_bench_help_lists_every_workload(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--help"])
    assert exit_info.value.code == 0
    help_text = "".join(capsys.readouterr().out.split())  # argparse wraps at hyphens
    assert all(name in help_text for name in WORKLOADS)
    assert "(default:10%)" in help_text


# --- the engines at the sizes agents pack ---------------------------------------------

NUMPY_PACK_NS = {10: 20.0, 100: 10.0, 1000: 5.0}  # against the reference's 10 ns a block


@pytest.fixture
def costed(clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Simulated costs a block: ``pack`` 10 ns with the reference, with NumPy 20, 10 and
    5 ns at 10, 100 and 1,000 blocks; ``pack_batch`` 10 ns (the reference 40 ns once
    per step); ``pack_many`` 20 ns, whatever it calls.  Every answer is the real one."""
    real_pack, real_many, real_batch = _run.pack, _run.pack_many, scan.pack_batch

    def pack(case: Any, *, engine: Any = "reference") -> dict[str, Any]:
        n = len(case["blocks"])
        clock.now += (10.0 if engine == "reference" else NUMPY_PACK_NS[n]) * 1e-9 * n
        return real_pack(case, engine=engine)

    def pack_many(cases: list[Any], *, engine: Any = "reference") -> list[dict[str, Any]]:
        start = clock.now
        answers = real_many(cases, engine=engine)
        clock.now = start + 20e-9 * sum(len(case["blocks"]) for case in cases)
        return answers

    def pack_batch(budgets: Any, sizes: Any, offsets: Any) -> Any:
        clock.now += 10e-9 * sizes.shape[0]
        return real_batch(budgets, sizes, offsets)

    monkeypatch.setattr(_run, "pack", pack)
    monkeypatch.setattr(_run, "pack_many", pack_many)
    monkeypatch.setattr(scan, "pack_batch", pack_batch)
    return clock


STEPS_SMALL = {"workloads": ["uniform-50%"], "steps": 20, "repeat": 2, "min_time": 0.0}


def test_steps_time_both_sides_in_turn_and_name_the_faster(costed: FakeClock) -> None:
    report = bench.run_steps(**STEPS_SMALL)  # type: ignore[arg-type]
    rows = [(t.call, t.workload, t.cases, t.blocks) for t in report.timings]
    blocks = report.timings[-1].blocks
    assert rows == [
        ("pack(case)", "uniform-50%", 1, 10),
        ("pack(case)", "uniform-50%", 1, 100),
        ("pack(case)", "uniform-50%", 1, 1000),
        ("pack_batch", "batch_of_steps", 20, blocks),
        ("pack_many", "batch_of_steps", 20, blocks),
    ]
    assert 20 * 10 <= blocks <= 20 * 200
    speedups = [t.speedup_interval() for t in report.timings]
    assert speedups == [pytest.approx((s,) * 3) for s in (0.5, 1.0, 2.0, 4.0, 0.5)]
    assert [t.faster() for t in report.timings] == [
        "reference", "neither", "numpy", "numpy", "reference"
    ]  # fmt: skip
    assert report.timings[0].reference_samples == pytest.approx((1e-7, 1e-7))
    assert report.timings[0].numpy_samples == pytest.approx((2e-7, 2e-7))
    assert (report.timings[-1].fewest, report.timings[-1].most) == (10, 200)


def test_steps_are_stored_self_describing(costed: FakeClock) -> None:
    data = json.loads(json.dumps(bench.run_steps(**STEPS_SMALL).to_json()))  # type: ignore[arg-type]
    assert set(data) == {"about", "tie", "results"}
    assert data["tie"] == bench.TIE
    first, batch = data["results"][0], data["results"][3]
    assert first["reference"] == 'pack(case, engine="reference")'
    assert first["numpy"] == 'pack(case, engine="numpy")'
    assert (first["cases"], first["blocks"], first["blocks_per_case"]) == (1, 10, [10, 10])
    assert first["speedup"] == pytest.approx(0.5)
    assert first["speedup_interval"] == pytest.approx([0.5, 0.5])
    assert first["reference_seconds"] == pytest.approx(1e-7)
    assert first["numpy_interval"] == pytest.approx([2e-7, 2e-7])
    assert (first["faster"], first["repeats"], first["seed"]) == ("reference", 2, 0)
    assert batch["call"] == "pack_batch"
    assert batch["numpy"].startswith("scan.pack_batch(budgets, sizes, offsets)")
    assert batch["blocks_per_case"] == [10, 200]
    assert batch["faster"] == "numpy"


def test_a_side_that_wins_in_some_repeats_only_is_unclear() -> None:
    def row(numpy_samples: tuple[float, ...]) -> bench.StepTiming:
        return bench.StepTiming("pack(case)", "pareto", 1, 10, 10, 10, 0, (1.0,) * 3, numpy_samples)

    assert row((0.5, 1.0, 1.0)).speedup_interval() == (1.0, 1.0, 2.0)
    assert row((0.5, 1.0, 1.0)).faster() == "unclear"
    assert row((1.05, 1.0, 0.95)).faster() == "neither"
    assert row((1.0, 1.0, 0.0)).speedup_interval() == (1.0, 1.0, float("inf"))


def test_the_steps_table_names_each_side_and_the_faster() -> None:
    report = bench.StepsReport(
        [
            bench.StepTiming("pack(case)", "pareto", 1, 1000, 1000, 1000, 0, (2e-4,) * 3,
                             (1e-4, 3e-4, 1e-4)),
            bench.StepTiming("pack_batch", "batch_of_steps", 10_000, 1_050_085, 10, 200, 0,
                             (0.08,) * 3, (0.002,) * 3),
        ]
    )  # fmt: skip
    lines = table_steps(report, repeat=3).splitlines()
    assert "over 3 repeat(s)" in lines[0]
    assert "ahead by more than 10%" in lines[0]
    assert lines[2].split() == [
        "call", "workload", "blocks", "reference", "numpy", "speedup", "interval", "faster"
    ]  # fmt: skip
    assert lines[3].split() == [
        "pack(case)", "pareto", "1,000", "200", "µs", "100", "µs", "2.00x", "[0.67x,", "2.00x]",
        "unclear",
    ]  # fmt: skip
    assert lines[4].split() == [
        "pack_batch", "batch_of_steps", "10,000", "x", "10-200", "80", "ms", "2", "ms", "40.0x",
        "[40.0x,", "40.0x]", "numpy",
    ]  # fmt: skip
    assert lines[6] == (
        'pack(case): reference side pack(case, engine="reference"); '
        'numpy side pack(case, engine="numpy")'
    )
    assert lines[7].startswith("pack_batch: reference side reference.pack_sizes(budget, sizes)")
    assert lines[8].startswith("pack(case) and pack_many read and pack plain cases")
    assert "plain" not in table_steps(bench.StepsReport(report.timings[1:]), repeat=3)


def _wrong_pack(case: Any, *, engine: Any = "reference") -> dict[str, Any]:
    answer = reference_pack(case)
    return {**answer, "remaining": answer["remaining"] + 1} if engine == "numpy" else answer


def _wrong_batch(budgets: Any, sizes: Any, offsets: Any) -> Any:
    kept, remaining = real_pack_batch(budgets, sizes, offsets)
    return kept, remaining + 1


def _mutating_batch(budgets: Any, sizes: Any, offsets: Any) -> Any:
    answer = real_pack_batch(budgets, sizes, offsets)
    budgets[0] += 1
    return answer


def _wrong_many(cases: list[Any], *, engine: Any = "reference") -> list[dict[str, Any]]:
    return [reference_pack(case) for case in cases][:-1]


reference_pack, real_pack_batch = _run.pack, scan.pack_batch


@pytest.mark.parametrize(
    ("where", "name", "fake", "message"),
    [
        (_run, "pack", _wrong_pack,
         'pack\\(case, engine="numpy"\\) gave a wrong answer on uniform-50% at n=10'),
        (scan, "pack_batch", _wrong_batch,
         r"scan.pack_batch\(budgets, sizes, offsets\) on every step at once gave a wrong answer "
         "on 20 steps"),
        (scan, "pack_batch", _mutating_batch,
         r"scan.pack_batch\(budgets, sizes, offsets\) on every step at once changed its input"),
        (_run, "pack_many", _wrong_many,
         'pack_many\\(cases, engine="numpy"\\) gave a wrong answer on 20 steps'),
    ],
)  # fmt: skip
def test_a_wrong_answer_at_agent_sizes_is_an_error(
    monkeypatch: pytest.MonkeyPatch, where: Any, name: str, fake: Any, message: str
) -> None:
    monkeypatch.setattr(where, name, fake)
    with pytest.raises(bench.BenchError, match=f"^{message}$"):
        bench.run_steps(workloads=["uniform-50%"], sizes=[10], steps=20, repeat=1, min_time=0)


def test_steps_on_the_real_engines_agree_with_the_reference() -> None:
    seen: list[tuple[str, int, int | None]] = []
    progress = lambda *state: seen.append(state)  # noqa: E731
    report = bench.run_steps(sizes=[10, 1000], steps=30, repeat=1, min_time=0, progress=progress)
    assert [(t.call, t.workload, t.blocks) for t in report.timings][:6] == [
        ("pack(case)", name, n) for name in bench.STEP_WORKLOADS for n in (10, 1000)
    ]
    assert [t.call for t in report.timings[6:]] == ["pack_batch", "pack_many"]
    assert all(t.cases == 30 for t in report.timings[6:])
    assert seen[0] == ("steps: pack(case) uniform-50% n=10", 1, 8)
    assert seen[-1] == ("steps: pack_many 30 steps", 8, 8)
    assert [t.call for t in bench.run_steps(sizes=[10], steps=0, min_time=0).timings] == [
        "pack(case)"
    ] * 3


def test_run_steps_rejects_impossible_rows() -> None:
    for bad in ({"repeat": 0}, {"sizes": []}, {"sizes": [0]}, {"steps": -1}):
        with pytest.raises(ValueError, match="at least"):
            bench.run_steps(**bad)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="unknown workload 'nope'"):
        bench.run_steps(workloads=["nope"])


def _costing(clock: FakeClock, kernel: Any, ns_per_block: float) -> Any:
    def pack_sizes(budget: int, sizes: Any) -> Any:
        clock.now += ns_per_block * 1e-9 * len(sizes)
        return kernel(budget, sizes)

    return pack_sizes


def test_bench_steps_adds_the_agent_sizes_table_and_stores_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], costed: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setattr(_run, "STEPS", 20)
    # The matrix's kernels cost time too: a time of 0 s gives an infinite speedup, which
    # no baseline may hold and no gate passes.
    for module, name, ns in ((_run, "_reference", 10.0), (scan, "pack_sizes", 5.0)):
        monkeypatch.setattr(module, name, _costing(costed, getattr(module, name), ns))
    monkeypatch.setitem(sys.modules, "numba", None)  # no compiled column: it would cost 0
    out = tmp_path / "bench.json"
    argv = ["bench", "--sizes", "1000", "--workload", "uniform-50%", "--repeat", "2"]
    argv += ["--min-time", "0", "--quiet"]
    assert main([*argv, "--steps", "--json"]) == 0
    out.write_text(capsys.readouterr().out)
    assert main([*argv, "--steps"]) == 0
    text = capsys.readouterr().out
    matrix, steps = text.split("\n\nengines at the sizes agents pack")
    assert "crossover" in matrix
    rows = [line.split() for line in steps.splitlines()[3:8]]
    assert [row[:3] for row in rows[:3]] == [
        ["pack(case)", "uniform-50%", n] for n in ("10", "100", "1,000")
    ]
    assert [row[-1] for row in rows] == ["reference", "neither", "numpy", "numpy", "reference"]
    assert rows[3][:4] == ["pack_batch", "batch_of_steps", "20", "x"]
    data = json.loads(out.read_text())
    assert [r["faster"] for r in data["steps"]["results"]][-2:] == ["numpy", "reference"]
    # The matrix still reads back, so --compare and --history take such a file.
    saved = bench.Report.from_json(data)
    assert saved.speedup("numpy", "uniform-50%", 1000) is not None
    assert main([*argv, "--compare", str(out)]) == 0
    assert "no speedup fell" in capsys.readouterr().out
    assert main(["bench", "--history", str(tmp_path)]) == 0
    assert "uniform-50%" in capsys.readouterr().out
    # Asked not to, or narrowed by --sizes or --workload, it stays out.
    assert main([*argv, "--no-steps"]) == 0
    assert "agents" not in capsys.readouterr().out
    assert main(argv) == 0
    assert "agents" not in capsys.readouterr().out


def test_bench_runs_the_agent_sizes_with_the_full_matrix(
    capsys: pytest.CaptureFixture[str], costed: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_run, "STEPS", 20)
    monkeypatch.setattr(bench, "DEFAULT_SIZES", (10,))  # what the command reads
    assert main(["bench", "--repeat", "1", "--min-time", "0"]) == 0
    text = capsys.readouterr().out
    assert "\n\nengines at the sizes agents pack" in text
    assert all(f"pack(case)  {name}" in text for name in bench.STEP_WORKLOADS)
    assert main(["bench", "--repeat", "1", "--min-time", "0", "--no-steps"]) == 0
    assert "agents" not in capsys.readouterr().out


def test_bench_steps_exits_1_on_a_wrong_answer_at_agent_sizes(
    capsys: pytest.CaptureFixture[str], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_run, "STEPS", 20)
    monkeypatch.setattr(_run, "pack_many", _wrong_many)
    argv = ["bench", "--sizes", "10", "--workload", "pareto", "--repeat", "1", "--steps"]
    argv += ["--min-time", "0", "--quiet"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        'packcheck bench: pack_many(cases, engine="numpy") gave a wrong answer on 20 steps\n'
    )


def test_the_crossover_is_where_the_engine_stays_ahead() -> None:
    def report(ratios: dict[int, float]) -> bench.Report:
        return bench.Report(
            [
                bench.Timing(engine, "pareto", "typical", n, 5, 0, cost)
                for n, ratio in ratios.items()
                for engine, cost in (("reference", 1.0), ("numpy", 1.0 / ratio))
            ]
        )

    assert crossover(report({10: 0.5, 100: 2.0, 1000: 0.9, 10_000: 3.0}), "numpy", "pareto") == (
        10_000
    )
    assert crossover(report({10: 1.5, 100: 2.0}), "numpy", "pareto") == 10
    assert crossover(report({10: 2.0, 100: 1.0}), "numpy", "pareto") is None
    assert crossover(report({}), "numpy", "pareto") is None

    def crossover_rows(ratios: dict[int, float]) -> list[list[str]]:
        lines = table(report(ratios), repeat=1).splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("crossover"))
        return [line.split() for line in lines[at + 1 : at + 3]]

    assert crossover_rows({10: 0.5, 100: 2.0}) == [["workload", "numpy"], ["pareto", "100"]]
    assert crossover_rows({10: 0.5})[1] == ["pareto", "-"]
