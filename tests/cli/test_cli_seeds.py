"""``verify --seeds`` and ``diff --seeds`` in one process: the gate once per seed, the
lowest failing seed's run reported as ``--seed`` reports it, byte for byte (timings
aside); the usage errors; the cluster flags without the dask extra."""

from __future__ import annotations

import io
import json
import re
import sys
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from packcheck import _stop, pack
from packcheck._cli import _seeds, _values, gate
from packcheck._cli import main as cli_main
from packcheck._cli._progress import SEEDS, LiveLine, PlainLines
from packcheck._cli.gate import Spec
from packcheck._gate import SHOWN_WHOLE, Outcome, render, seeds_text
from packcheck.diff import run as diff_run
from packcheck.diff._oracle import DIFF
from packcheck.verify import Finding
from packcheck.verify import run as verify_run

PACKERS = Path(__file__).parents[1] / "packers"
#: Quick runs: of seeds 1-8, ``rare:rare`` fails at seed :data:`RARE_SEED` alone
#: (tests/packers/rare.py), for ``verify`` and for ``diff`` against a correct packer.
QUICK = ["--max-examples", "30", "--no-long-lists", "--quiet"]
RARE_SEED = "6"
#: The forms of a report on stdout.
FORMS = ("text", "json", "github")


@pytest.fixture(autouse=True)
def _in_packers_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PACKERS)


def masked(report: str) -> str:
    """``report`` with its timings (text, JSON, JUnit) written as ``T``."""
    report = re.sub(r"\d+\.\d s \(", "T s (", report)
    report = re.sub(r'"seconds":\d+(\.\d+)?', '"seconds":T', report)
    return re.sub(r'time="[\d.]+"', 'time="T"', report)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = cli_main(list(argv))
    except SystemExit as exc:  # a usage error, from argparse
        status = int(str(exc.code))
    out, err = capsys.readouterr()
    return status, out, err


@dataclass(frozen=True)
class Ran:
    """A run of the command line: its exit ``status``, the report it printed (``out``),
    that report in every form (``forms``: the text printed, and the outcome printed as
    ``--format json`` and ``--format github`` print it) and its JUnit report."""

    status: int
    out: str
    forms: dict[str, str]
    junit: str


def ran(capsys: pytest.CaptureFixture[str], junit: Path, *argv: str) -> Ran:
    """``argv`` run as :func:`run` runs it, its JUnit report written to ``junit``.

    The form only chooses how the outcome is printed (``render``, after the run), so
    the other forms are the outcome this run printed, rendered as those would print it:
    one gate run for every form."""
    outcomes: list[Outcome] = []

    def rendered(outcome: Outcome, form: str) -> str:
        outcomes.append(outcome)
        return render(outcome, form)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gate, "render", rendered)
        status, out, _ = run(capsys, *argv, "--junit-xml", str(junit))
    (outcome,) = outcomes
    forms = {form: render(outcome, form) + "\n" for form in FORMS}
    assert out == forms["text"]  # the outcome kept is the one printed
    return Ran(status, out, forms, junit.read_text())


#: ``verify --packer rare:rare`` (:data:`QUICK`), to which :func:`rare_run` adds a
#: folder to save failures in and how it runs.
RARE = ["verify", "--packer", "rare:rare", *QUICK]
_RARE_RUNS: dict[tuple[str, ...], Ran] = {}


def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This process's folder of the files of :func:`rare_run`'s runs."""
    folder = tmp_path_factory.getbasetemp() / "rare-runs"
    folder.mkdir(exist_ok=True)
    return folder


def rare_run(capsys: pytest.CaptureFixture[str], folder: Path, name: str, *how: str) -> Ran:
    """:data:`RARE` run ``how`` (``--seed RARE_SEED``, ``--seeds 4-7``, on a cluster),
    its new failure saved in ``folder / name`` and its JUnit report written beside it.

    Made once a process (each xdist worker) and ``name``: each shrinks a failure,
    seconds of work, and the tests here and on the cluster check the same runs:
    ``--seeds`` against ``--seed``, the failure saved once."""
    key = (name, *how)
    if key not in _RARE_RUNS:
        saved = ["--save-failures", str(folder / name)]
        _RARE_RUNS[key] = ran(capsys, folder / f"{name}.xml", *RARE, *how, *saved)
    return _RARE_RUNS[key]


def rare_alone(capsys: pytest.CaptureFixture[str], folder: Path) -> Ran:
    """:data:`RARE` at ``--seed RARE_SEED`` alone, its failure saved in ``folder / "one"``."""
    alone = rare_run(capsys, folder, "one", "--seed", RARE_SEED)
    assert alone.status == 1
    assert f"seed {RARE_SEED}" in alone.out
    return alone


def assert_reported_alike(seeds: Ran, saved_in: Path, alone: Ran, alone_saved_in: Path) -> None:
    """``seeds``'s report is ``alone``'s in every form and in JUnit, timings aside and
    the folder each saved its failure in read as ``alone``'s."""
    for form, report in seeds.forms.items():
        report = masked(report).replace(str(saved_in), str(alone_saved_in))
        assert (seeds.status, report) == (alone.status, masked(alone.forms[form])), form
    junit = masked(seeds.junit).replace(str(saved_in), str(alone_saved_in))
    assert junit == masked(alone.junit)


def test_the_seeds_run_one_after_another_and_the_lowest_failure_is_the_verdict(
    capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = shared(tmp_path_factory)
    alone = rare_alone(capsys, folder)
    seeds = rare_run(capsys, folder, "every", "--seeds", "4-7")
    assert_reported_alike(seeds, folder / "every", alone, folder / "one")


@pytest.mark.parametrize("command", ["verify", "diff"])
def test_rare_fails_at_one_seed_of_eight_only_and_not_the_first(
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # The premise of the tests here: the lowest failing seed of 1-8 is not 1.
    monkeypatch.syspath_prepend(str(PACKERS))
    from broken import correct
    from rare import rare

    quick = {"max_examples": 30, "long_lists": False}

    def fails(seed: int) -> bool:
        if command == "diff":
            return diff_run(rare, correct, seed=seed, **quick).finding is not None
        if seed != int(RARE_SEED):
            return verify_run(rare, seed=seed, **quick).finding is not None
        # Its run of RARE_SEED is the one the tests here share (its shrinking is most of
        # this test's time): the wrong answer is caught where the shape is drawn, shrunk.
        alone = rare_alone(capsys, shared(tmp_path_factory))
        assert len(json.loads(alone.forms["json"])["failure"]["case"]["blocks"]) == 6
        return alone.status == 1

    assert [seed for seed in range(1, 9) if fails(seed)] == [int(RARE_SEED)]


def test_every_seed_passing_says_how_many(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "verify", "--packer", "broken:correct", "--seeds", "1-3,9", *QUICK)
    assert status == 0
    (line,) = out.splitlines()
    assert line.startswith(
        "packcheck verify: conformant: 4 seeds passed (seeds 1-3,9), in all 12 fixtures, "
        "120 generated cases, 243 transition-point cases, 200 wide-range cases, 0 long lists, "
    )
    assert line.endswith(" s (broken:correct)")
    status, out, _ = run(capsys, "verify", "--seeds", "2", *QUICK, "--format", "json")
    report = json.loads(out)
    assert (status, report["seed"], report["seeds"], report["cases"]) == (0, None, [2], 3 + 30 + 74)
    assert report["rerun"] == "packcheck verify --seeds 2 --max-examples 30 --no-long-lists"
    assert "1 seed passed (seeds 2)" in run(capsys, "verify", "--seeds", "2", *QUICK)[1]


def test_a_junit_report_of_seeds_that_passed_names_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    xml = tmp_path / "report.xml"
    assert run(capsys, "verify", "--seeds", "4,6", *QUICK, "--junit-xml", str(xml))[0] == 0
    text = xml.read_text()
    assert '<property name="seeds" value="4,6" />' in text
    assert 'name="seed"' not in text


def test_diff_takes_seeds_too(capsys: pytest.CaptureFixture[str]) -> None:
    both = ["--packer", "rare:rare", "--against", "broken:correct", *QUICK]
    alone = run(capsys, "diff", *both, "--seed", RARE_SEED)
    # Seeds that pass on either side of the failing one (a diff's seed takes seconds).
    seeds = run(capsys, "diff", *both, "--seeds", "5-7")
    assert alone[0] == 1
    assert (seeds[0], masked(seeds[1])) == (alone[0], masked(alone[1]))
    status, out, _ = run(capsys, "diff", *both, "--seeds", "1-2")
    assert status == 0
    assert out.startswith("packcheck diff: agree: 2 seeds passed (seeds 1-2), in all ")


def test_diff_seeds_sum_what_each_seed_counted(capsys: pytest.CaptureFixture[str]) -> None:
    both = ["--packer", "rare:rare", "--against", "broken:correct", *QUICK]
    # What OLD did, the cases set aside and those beside transition points: summed.
    json_of = ["--format", "json", "--count"]
    alone = [json.loads(run(capsys, "diff", *both, "--seed", s, *json_of)[1]) for s in "12"]
    both_seeds = json.loads(run(capsys, "diff", *both, "--seeds", "1-2", *json_of)[1])
    for key in ("old", "set_aside", "transition_cases"):
        summed = both_seeds["phases"][1][key]
        if isinstance(summed, dict):
            assert summed == {k: sum(r["phases"][1][key][k] for r in alone) for k in summed}
        else:
            assert summed == sum(r["phases"][1][key] for r in alone)
    assert both_seeds["phases"][1]["transition_cases"] > 0
    assert sum(both_seeds["phases"][1]["old"].values()) == 2 * 30


def test_a_new_failure_is_saved_once(
    capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = shared(tmp_path_factory)
    one, every = folder / "one", folder / "every"
    alone = rare_alone(capsys, folder)
    seeds = rare_run(capsys, folder, "every", "--seeds", "4-7")
    assert masked(seeds.out).replace(str(every), str(one)) == masked(alone.out)
    assert f"saved:    {one}" in alone.out
    ((saved,),) = [list(every.glob("*.json"))]
    assert saved.read_text() == next(one.glob("*.json")).read_text()
    # Replayed first next time, at every seed: seed 1 fails now, in its fixtures.
    status, out, _ = run(capsys, *RARE, "--seeds", "1-8", "--save-failures", str(every))
    assert status == 1
    assert f"FAIL fixture {saved}" in out
    assert out.splitlines()[-1].split(", seed ")[1].startswith("1,")
    assert "saved:" not in out
    assert list(every.glob("*.json")) == [saved]


def test_a_setup_error_is_the_one_seed_runs(capsys: pytest.CaptureFixture[str]) -> None:
    alone = run(capsys, "verify", "--packer", "broken:nope", "--seed", "1")
    assert alone[0] == 2
    assert run(capsys, "verify", "--packer", "broken:nope", "--seeds", "1-3") == alone
    not_a_folder = ["--save-failures", str(PACKERS / "broken.py")]
    alone = run(capsys, "verify", "--seed", "1", *not_a_folder)
    assert alone[0] == 2
    assert run(capsys, "verify", "--seeds", "1-2", *not_a_folder) == alone


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seeds", "3-1"], "argument --seeds: 3-1: the range ends before it starts"),
        (["--seeds", "1-"], "argument --seeds: '1-' is not a range A-B or a list of seeds"),
        (["--seeds", "a,2"], "argument --seeds: 'a,2' is not a range A-B or a list of seeds"),
        (["--seeds", "-2"], "argument --seeds: '-2' is not a range A-B or a list of seeds"),
        (["--seeds", "0-100000"], "argument --seeds: 0-100000: more than 100,000 seeds"),
        (["--seeds", "1-8", "--seed", "3"], "argument --seed: not allowed with argument --seeds"),
        (["--workers", "2", "--scheduler", "x"], "argument --scheduler: not allowed with"),
        (["--workers", "0"], "argument --workers: 0 must be greater than 0"),
        (["--connect-timeout", "0"], "argument --connect-timeout: 0 must be greater than 0"),
    ],
)
@pytest.mark.parametrize("command", ["verify", "diff"])
def test_a_usage_error_is_one_line(
    capsys: pytest.CaptureFixture[str], command: str, args: list[str], message: str
) -> None:
    status, out, err = run(capsys, command, *args)
    assert (status, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith(f"packcheck {command}: error: {message}")


def test_seeds_are_ranges_or_lists() -> None:
    assert _values.seeds("1-8") == tuple(range(1, 9))
    assert _values.seeds("9, 1,4,4,2-3") == (1, 2, 3, 4, 9)
    assert _values.seeds("7") == (7,)
    assert _values.seeds("99990-99999,0-99989") == tuple(range(100_000))
    for seeds in [(1,), (1, 2), (1, 3, 4, 5, 9), (0, 2, 4), tuple(range(7))]:
        assert _values.seeds(seeds_text(seeds)) == seeds
    assert seeds_text((1, 3, 4, 5, 9)) == "1,3-5,9"


def test_the_table_may_give_seeds_and_the_command_line_a_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.packcheck]\nseeds = "1-2"\nmax-examples = 5\n')
    monkeypatch.chdir(tmp_path)
    s = gate.spec({"seed": 3, "gate_command": "verify"}, "verify")
    assert (s.settings.seed, s.seeds) == (3, None)
    s = gate.spec({"gate_command": "verify"}, "verify")
    assert (s.settings.seed, s.seeds) == (None, (1, 2))
    assert s.rerun(None) == "packcheck verify --seeds 1-2 --max-examples 5"
    assert s.rerun(2) == "packcheck verify --seed 2 --max-examples 5"
    (tmp_path / "pyproject.toml").write_text('[tool.packcheck]\nseeds = "1-2"\nseed = 4\n')
    status, _, err = run(capsys, "verify")
    assert status == 2
    assert err.endswith("[tool.packcheck]: seed and seeds exclude each other\n")


def test_the_rerun_of_a_stopped_run_repeats_its_seeds() -> None:
    s = gate.spec(
        {"seeds": (1, 2, 3), "workers": 2, "connect_timeout": 3.0, "gate_command": "verify"},
        "verify",
    )
    assert s.rerun(None) == "packcheck verify --seeds 1-3"
    assert s.rerun(3) == "packcheck verify --seed 3"


def test_progress_counts_the_seeds_done(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["verify", "--packer", "broken:correct", "--seeds", "1-3", *QUICK[:-1]]
    status, _, err = run(capsys, *argv)
    assert status == 0
    done = [line for line in err.splitlines() if " of 3 seeds done" in line]
    assert [line.split(",")[0] for line in done] == [
        f"packcheck verify: {n} of 3 seeds done" for n in (1, 2, 3)
    ]
    assert err.splitlines()[-1] == done[-1]  # written once, not again at the end
    assert "packcheck verify: fixtures: 3 cases" in err  # each seed's own phases


def test_a_seed_done_is_written_at_once_and_once() -> None:
    stream = io.StringIO()
    lines = PlainLines(stream, every=3600)
    lines(SEEDS, 0, 2)
    lines(SEEDS, 1, 2)
    lines("fixtures", 1, None)
    lines(SEEDS, 2, 2)
    lines.finish()
    lines.close()
    assert [line.split(",")[0] for line in stream.getvalue().splitlines()] == [
        "packcheck verify: 0 of 2 seeds done",
        "packcheck verify: 1 of 2 seeds done",
        "packcheck verify: fixtures: 1 case",
        "packcheck verify: 2 of 2 seeds done",
    ]
    live = LiveLine(io.StringIO())
    live("fixtures", 1, None)
    live(SEEDS, 1, 2)  # within 0.1 s of the last, shown all the same
    live("fixtures", 2, None)  # within 0.1 s: not shown
    assert live.stream.getvalue().endswith("1 of 2 seeds done, 0 s")  # type: ignore[attr-defined]


def _job_of(cwd: str | None = None, **given: object) -> Spec:
    """The run of seed 1 of ``verify`` with the options ``given``, in ``cwd``."""
    job = gate.spec({**given, "gate_command": "verify", "seed": 1}, "verify")
    assert job.settings.seed == 1
    return replace(job, cwd=cwd)


def test_a_task_says_in_one_line_why_its_seed_cannot_run() -> None:
    job = _job_of(str(PACKERS), packer="broken:nope", max_examples=5)
    assert _seeds.run_task(job) == "--packer 'broken:nope': module 'broken' has no function 'nope'"


@pytest.mark.parametrize("timeout", [None, 0.0])
def test_a_task_runs_its_packer_from_the_given_directory(
    timeout: float | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # not where the packer is
    monkeypatch.setattr(sys, "path", list(sys.path))
    quick = {"max_examples": 5, "long_lists": False, "timeout": timeout}
    for spec in ("rare.py:rare", "broken:correct"):
        job = _job_of(str(PACKERS), packer=spec, **quick)
        outcome = _seeds.run_task(job)
        assert not isinstance(outcome, str), outcome
        assert outcome.finding is None
    # A directory the worker does not have: its own, where the packer is not.
    job = _job_of(str(tmp_path / "no"), packer="rare.py:rare", **quick)
    assert "no such file 'rare.py'" in str(_seeds.run_task(job))


@pytest.mark.parametrize("flag", [["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:9"]])
def test_without_the_dask_extra_a_cluster_flag_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, flag: list[str]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    for command in (
        ["verify"],
        ["diff", "--packer", "broken:correct", "--against", "broken:correct"],
    ):
        status, out, err = run(capsys, *command, "--seeds", "1-2", *flag, *QUICK)
        assert (status, out) == (2, "")
        extra = "needs the dask extra: pip install 'packcheck[dask]'"
        assert err == f"packcheck {command[0]}: error: {flag[0]} {extra}\n"


def test_a_bad_rule_is_one_line_before_any_cluster_starts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import packcheck._cluster

    def no_cluster(*args: object, **kwargs: object) -> None:
        raise AssertionError("a cluster was started")

    monkeypatch.setattr(packcheck._cluster, "cluster", no_cluster)
    (tmp_path / "rule.toml").write_text("budget = 'no'\n")
    rule = ["--rule", str(tmp_path / "rule.toml")]
    for where in (["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:9"]):
        status, out, err = run(capsys, "verify", *rule, "--seeds", "1-2", *where, *QUICK)
        assert (status, out, err.count("\n")) == (2, "", 1)
        assert err.startswith(f"packcheck verify: error: {tmp_path / 'rule.toml'}"), err


def test_a_task_is_cancelled_once_it_is_no_longer_wanted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_seeds, "WATCH_SECONDS", 0.01)
    looks: list[bool] = []
    cancelled = threading.Event()

    def wanted() -> bool:
        looks.append(len(looks) < 3)
        return looks[-1]

    with _seeds._watching(cancelled.set, wanted):
        assert cancelled.wait(60)
    assert looks == [True, True, True, False]
    with _seeds._watching(cancelled.clear, lambda: True):
        pass  # left before the first look
    with _seeds._watching(cancelled.clear, None):
        pass
    assert cancelled.is_set()


def test_a_task_on_a_worker_is_wanted_while_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = {"k": SimpleNamespace(state="executing")}
    worker = SimpleNamespace(
        get_current_task=lambda: "k",
        state=SimpleNamespace(tasks=tasks),
        status=SimpleNamespace(name="running"),
    )

    def get_worker() -> object:
        if worker.status.name == "none":
            raise ValueError("No worker found")
        return worker

    monkeypatch.setitem(sys.modules, "distributed", SimpleNamespace(get_worker=get_worker))
    wanted = _seeds._wanted()
    assert wanted is not None
    assert wanted()
    tasks["k"].state = "cancelled"
    assert not wanted()
    tasks["k"].state = "long-running"
    assert wanted()
    worker.status.name = "closing"
    assert not wanted()
    worker.status.name = "paused"
    del tasks["k"]
    assert not wanted()
    worker.status.name = "none"
    assert _seeds._wanted() is None
    monkeypatch.setitem(sys.modules, "distributed", None)
    assert _seeds._wanted() is None


def test_a_cancelled_task_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def stopped(job: object, progress: object) -> None:
        raise _stop.Stopped(15)

    monkeypatch.setattr(_seeds, "run_seed", stopped)
    assert _seeds.run_task(_job_of()) == "cancelled"


def test_the_connect_timeout_s_default_is_the_cluster_s() -> None:
    from packcheck._cluster import CONNECT_TIMEOUT

    (option,) = [o for o in gate.OPTIONS if o.flag == "--connect-timeout"]
    assert f"(default: {CONNECT_TIMEOUT:g})" in option.help


def test_the_report_says_as_flags_the_settings_the_library_names() -> None:
    note = "1 case where OLD gave no answer within 1 s was not compared"
    passed = Outcome(DIFF, 1, 0.0, {}, {}, notes=(f"{note}; a longer timeout raises the limit",))
    assert _seeds._flagged(passed).notes == (f"{note}; --timeout raises the limit",)
    case = {"budget": 1, "blocks": [{"id": "A", "size": 1}] * (SHOWN_WHOLE + 1), "required": []}
    answer = {"kept": [], "remaining": 1, "missing": []}
    finding = Finding(case, pack(case), answer, ("x",), "long list")
    assert "save_failures=DIR" in finding.report()
    saved = Path("failures/diff-1.json")
    failed = _seeds._flagged(replace(passed, finding=finding, saved=str(saved), saved_to=saved))
    assert failed.saved == f"{saved} (replayed first by the next run with --save-failures)"
    assert failed.finding is not None
    assert "--save-failures DIR saves it whole" in failed.finding.report()
    assert "save_failures" not in failed.finding.report()
    unsaved = _seeds._flagged(replace(passed, finding=finding, saved="nothing: no room"))
    assert unsaved.saved == "nothing: no room"


def test_an_error_that_is_not_a_stop_goes_on_its_way(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(spec: Spec, progress: object) -> None:
        raise RuntimeError("a bug of packcheck's")

    monkeypatch.setattr(gate, "run", fails)
    with pytest.raises(RuntimeError, match="a bug of packcheck's"):
        cli_main(["verify", "--seed", "1", "-q"])
