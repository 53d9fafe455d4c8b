"""``verify`` against a declared rule: the oracle's rule, refusals, the rule's own
invariant lines, the generated cases' magnitudes, long lists cut after a slow answer,
reports that name the rule, and ``--rule`` / ``[tool.packcheck.rule]`` / the plugin."""

from __future__ import annotations

import functools
import json
import pickle
import re
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from packcheck import Rule, pack, trace
from packcheck._cli import main
from packcheck._gate import junit_xml, render
from packcheck._gate.plain_case import PlainCase
from packcheck._packers import CallablePacker, PackerFault, PackerRefusal, WorkerPacker
from packcheck._partition.facts import InvariantError
from packcheck.verify import run
from packcheck.verify._oracle import ReferenceOracle, unit_bound
from packcheck.verify._rule_checks import check_rule_output, negative_allowed

#: A newest-first chat trimmer's rule: 4 units a message, the first message pinned,
#: refused when the pin alone does not fit.
TRIMMER = Rule(
    name="chat trimmer", order="reversed", per_item=4, pin="first", pin_overflow="refuse"
)
pytest_plugins = ["pytester"]

UNNAMED = Rule(**{**TRIMMER.keys(), "name": ""})
QUICK = {"seed": 1, "max_examples": 60, "long_lists": False}
NOT_REFUSED = "not a refusal: the rule does not refuse this case, so a ValueError here is a fault"


def trimmer(case: dict[str, Any]) -> dict[str, Any]:
    """The trimmer: raises ``ValueError`` where its rule refuses."""
    answer = pack(case, rule=TRIMMER)
    if answer == {"error": "refused"}:
        raise ValueError("the first message alone does not fit")
    return answer


def _case(budget: int, *sizes: int, required: tuple[str, ...] = ()) -> dict[str, Any]:
    blocks = [{"id": chr(65 + i), "size": size} for i, size in enumerate(sizes)]
    return {"budget": budget, "blocks": blocks, "required": list(required)}


def test_a_packer_that_raises_value_error_where_its_rule_refuses_conforms() -> None:
    summary = run(trimmer, rule=TRIMMER, **QUICK)  # type: ignore[arg-type]
    assert summary.conformant, summary.finding and summary.finding.report()
    assert (
        summary.declared == 'chat trimmer (order = "reversed", per_item = 4, pin = "first", '
        'pin_overflow = "refuse")'
    )


def _at(function: Any, below: int) -> str:
    """Where a fault says ``function`` raised: ``below`` lines under its ``def``."""
    return f" (at tests/verify/test_verify_rule.py:{function.__code__.co_firstlineno + below})"


def test_a_raise_where_the_rule_does_not_refuse_stays_a_fault() -> None:
    def raises_on_empty(case: dict[str, Any]) -> dict[str, Any]:
        if not case["blocks"]:
            raise ValueError("nothing to trim")
        return trimmer(case)

    finding = run(raises_on_empty, rule=TRIMMER, **QUICK).finding  # type: ignore[arg-type]
    assert finding is not None
    # A refusal in shape: the line below the fault says why it is none.
    at = _at(raises_on_empty, 2)
    assert finding.failures == (
        f"packer fault: raised ValueError: nothing to trim{at}",
        NOT_REFUSED,
    )
    assert f"  check:    {NOT_REFUSED}\n" in finding.report()


def test_a_raise_of_another_exception_is_a_fault_alone() -> None:
    def raises_on_empty(case: dict[str, Any]) -> dict[str, Any]:
        if not case["blocks"]:
            raise KeyError("nothing to trim")
        return trimmer(case)

    finding = run(raises_on_empty, rule=TRIMMER, **QUICK).finding  # type: ignore[arg-type]
    assert finding is not None
    at = _at(raises_on_empty, 2)
    assert finding.failures == (f"packer fault: raised KeyError: 'nothing to trim'{at}",)


def test_refused_is_an_answer_only_where_the_rule_refuses() -> None:
    def refuses_small_budgets(case: dict[str, Any]) -> dict[str, Any]:
        answer = pack(case, rule=TRIMMER)
        if "error" not in answer and case["budget"] < 5:
            return {"error": "refused"}
        return answer

    finding = run(refuses_small_budgets, rule=TRIMMER, **QUICK).finding  # type: ignore[arg-type]
    assert finding is not None
    assert finding.failures[1].startswith("invariant refusal: the rule does not refuse this case")
    assert finding.answer == {"error": "refused"}


def test_the_seed_rule_never_takes_value_error_for_a_refusal() -> None:
    def raises(case: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("no")

    finding = run(raises, **QUICK).finding  # type: ignore[arg-type]
    assert finding is not None
    # What holds, and no more: it does not guess that a --rule was forgotten.
    assert finding.failures == (f"packer fault: raised ValueError: no{_at(raises, 1)}", NOT_REFUSED)


def test_a_worker_sends_a_refusal_back_as_one(tmp_path: Path) -> None:
    module = tmp_path / "refuses.py"
    module.write_text("def pack(case):\n    raise KeyError('x') if case else ValueError('y')\n")
    packer = WorkerPacker(f"{module}:pack", 5.0)
    packer.start()
    try:
        with pytest.raises(PackerRefusal, match="raised ValueError: y"):
            packer.answer({})
        with pytest.raises(PackerFault) as raised:
            packer.answer({"a": 1})
        assert type(raised.value) is PackerFault
    finally:
        packer.close()


# Each of the rule's facts, broken by one answer (the rule: newest first, 4 a message,
# the first pinned and refused when it does not fit).
BROKEN = [
    (_case(20, 3, 2), {"error": "size"}, "size error"),
    (_case(20, 0), {"kept": [], "remaining": 20, "missing": []}, "size error"),
    (_case(2, 3), {"kept": [], "remaining": 2, "missing": []}, "refusal"),
    (_case(20, 3), {"error": "refused"}, "refusal"),
    (_case(20, 3), ["A"], "shape"),
    (_case(20, 3), {"kept": ["A"], "remaining": 13}, "keys"),
    (_case(20, 3), {"kept": "A", "remaining": 13, "missing": []}, "types"),
    (_case(20, 3), {"kept": [1], "remaining": 13, "missing": []}, "types"),
    (_case(20, 3), {"kept": ["A"], "remaining": 13.0, "missing": []}, "types"),
    (_case(20, 3), {"kept": ["A"], "remaining": -1, "missing": []}, "remaining >= 0"),
    (_case(20, 3, 2), {"kept": ["A"], "remaining": 13, "missing": []}, "kept as the rule keeps"),
    (_case(20, 3), {"kept": ["B"], "remaining": 13, "missing": []}, "kept as the rule keeps"),
    (
        _case(20, 3),
        {"kept": ["A"], "remaining": 17, "missing": []},
        "remaining as the rule charges",
    ),
    (
        _case(20, 3, required=("\uff00", "\U0001f600")),
        {"kept": ["A"], "remaining": 13, "missing": ["\uff00", "\U0001f600"]},
        "missing in UTF-16 order",
    ),
    (
        _case(20, 3, required=("Z",)),
        {"kept": ["A"], "remaining": 13, "missing": []},
        "missing == required - kept",
    ),
    (
        _case(7, 3, 2),
        {
            "kept": ["A"],
            "remaining": 0,
            "missing": [],
            "partition": {"packed": ["A"], "available": ["B"], "dropped": []},
        },
        "partition: bucket follows from size, budget and remaining",
    ),
    (
        _case(7, 3, 2),
        {"kept": ["A"], "remaining": 0, "missing": [], "partition": {"packed": ["A"]}},
        "partition: shape",
    ),
]


@pytest.mark.parametrize(("case", "answer", "fact"), BROKEN)
def test_each_fact_of_the_rule_names_the_answer_that_breaks_it(
    case: dict[str, Any], answer: object, fact: str
) -> None:
    pinned = Rule(order="reversed", per_item=4, pin="first", pin_overflow="refuse")
    with pytest.raises(InvariantError) as raised:
        check_rule_output(pinned, case, answer)
    assert raised.value.invariant == fact


def test_the_rule_s_own_answers_pass_its_facts() -> None:
    pinned = Rule(order="reversed", per_item=4, pin="first", pin_overflow="refuse")
    for case in (_case(20, 3, 2), _case(2, 3), _case(20, 0), _case(7, 3, 2)):
        check_rule_output(pinned, case, pack(case, rule=pinned))
    partitioned = {**pack(_case(7, 3, 2), rule=pinned)}
    partitioned["partition"] = {"packed": ["A"], "available": [], "dropped": ["B"]}
    check_rule_output(pinned, _case(7, 3, 2), partitioned)


def _dropped_as_available(case: dict[str, Any]) -> dict[str, Any]:
    """The trimmer, capturing every block its rule drops as available."""
    answer = pack(case, rule=TRIMMER)
    if "error" in answer:
        return answer
    partition: dict[str, list[str]] = {"packed": [], "available": [], "dropped": []}
    for step in trace(case, rule=TRIMMER).steps:
        partition["packed" if step.bucket == "packed" else "available"].append(step.id)
    return {**answer, "partition": partition}


def test_a_wrong_capture_names_its_first_broken_fact_in_the_rule_s_terms() -> None:
    with pytest.raises(InvariantError) as raised:
        check_rule_output(TRIMMER, _case(5, 1, 1), _dropped_as_available(_case(5, 1, 1)))
    assert str(raised.value).splitlines()[0] == (
        'partition: bucket follows from size, budget and remaining: blocks[1] (id "B", '
        "size 1) is in available, but belongs in dropped: the pins took 5 of 5 unit(s), "
        "leaving 0; it costs 5 beside them"
    )
    # verify reports the line audit gives for the same step, the lists beside it.
    finding = run(_dropped_as_available, rule=TRIMMER, partition=True, **QUICK).finding  # type: ignore[arg-type]
    assert finding is not None
    lines = finding.failures[0].splitlines()
    assert lines[0].startswith("invariant partition: bucket follows from size, budget and ")
    assert "is in available, but belongs in dropped: the pins took " in lines[0]
    assert lines[1].split() == ["captured", "reference"]


def test_remaining_goes_below_zero_only_where_the_rule_lets_it() -> None:
    overflow = Rule(order="reversed", on_misfit="stop", pin="last")
    assert negative_allowed(overflow)
    assert negative_allowed(Rule(on_misfit="overshoot"))
    assert negative_allowed(Rule(reserve=3))
    assert not negative_allowed(Rule(pin="last", pin_overflow="refuse"))
    assert not negative_allowed(Rule(order="reversed"))
    case = _case(1, 5)
    check_rule_output(overflow, case, {"kept": ["A"], "remaining": -4, "missing": []})


def test_generated_units_leave_room_for_the_rule_s_charges() -> None:
    assert unit_bound(Rule(name="mine"), 2**53 - 1) == 2**53 - 1
    bound = unit_bound(Rule(per_item=7, separator="1/2", reserve=3, remaining="sizes"), 1000)
    assert bound == (1000 - 3) // 2 - 8
    assert unit_bound(Rule(per_item=10**6), 100) == 1
    seen: list[int] = []

    def watched(case: dict[str, Any]) -> dict[str, Any]:
        seen.extend(b["size"] for b in case["blocks"] if type(b.get("size")) is int)
        seen.append(case["budget"]) if type(case.get("budget")) is int else None
        return pack(case, rule=Rule(per_item=7))

    # The wide ranges reach the bound itself; the long lists take the same bound and only
    # add 200 lists of thousands of blocks (every phase is given the run's one ``max_units``).
    summary = run(
        watched, rule=Rule(per_item=7), seed=1, max_examples=30, max_units=1000, long_lists=False
    )
    assert summary.conformant
    assert max(seen) == (1000 // 2) - 7


def test_a_rule_that_drops_duplicates_meets_repeated_ids() -> None:
    """Half of the generated cases under a ``dedup`` rule take their IDs from three."""
    once = Rule(dedup="kept")
    finding = run(functools.partial(pack, rule=Rule()), rule=once, **QUICK).finding  # type: ignore[arg-type]
    assert finding is not None
    assert finding.origin.startswith("generated case (seed 1")


class _Slow(CallablePacker):
    """A packer whose timeout is so short that every long list takes over a quarter."""

    timeout = 1e-9


def test_a_slow_packer_has_its_long_lists_cut_and_the_report_says_so() -> None:
    packer = _Slow(pack)
    summary = run(packer, seed=1, max_examples=5, fixtures=())
    assert summary.conformant
    (note,) = summary.notes
    cut = re.fullmatch(
        r"long lists cut at ([0-9,]+) blocks: the packer took [0-9.]+ s, more than a "
        r"quarter of the timeout, on a list of \1 blocks; ([0-9,]+) longer lists were not "
        r"asked; a longer timeout raises the limit",
        note,
    )
    assert cut is not None
    assert int(cut[2].replace(",", "")) > 100
    assert f"note:     {note}" in render(summary, "text")
    assert json.loads(render(summary, "json"))["notes"] == [note]


def test_a_case_with_no_answer_within_the_timeout_stays_a_failure(tmp_path: Path) -> None:
    module = tmp_path / "hangs.py"
    module.write_text(
        "import time\ndef pack(case):\n    if len(case['blocks']) > 1000:\n"
        "        time.sleep(60)\n    from packcheck import pack\n    return pack(case)\n"
    )
    packer = WorkerPacker(f"{module}:pack", 0.5)
    packer.start()
    try:
        summary = run(packer, seed=1, max_examples=5, fixtures=())
    finally:
        packer.close()
    assert summary.finding is not None
    assert summary.finding.failures[0].startswith("packer fault: no answer within 0.5 s")


def test_every_report_names_a_rule_other_than_the_seed_s() -> None:
    def wrong(case: dict[str, Any]) -> dict[str, Any]:
        return pack(case)

    failed = run(wrong, rule=TRIMMER, **QUICK)  # type: ignore[arg-type]
    named = failed.declared
    assert named is not None
    assert failed.finding is not None
    assert failed.finding.departs is None  # found by the seed's scan: not said
    assert f"\nrule:     {named}\nrerun:" in render(failed, "text")
    assert json.loads(render(failed, "json"))["rule"] == named
    assert f"rule:     {named}" in render(failed, "github")
    properties = ElementTree.fromstring(junit_xml(failed)).iter("property")
    assert {p.get("name"): p.get("value") for p in properties}["rule"] == named
    passed = run(trimmer, rule=TRIMMER, **QUICK)  # type: ignore[arg-type]
    assert render(passed, "text").splitlines()[-2] == f"rule:     {named}"


def test_a_rule_with_the_seed_s_keys_is_named_nowhere() -> None:
    named = run(pack, rule=Rule(name="the seed's"), **QUICK)  # type: ignore[arg-type]
    assert named.declared is None
    assert "rule:" not in render(named, "text") + render(named, "github")
    assert "rule" not in json.loads(render(named, "json"))
    assert b'name="rule"' not in junit_xml(named)


def test_a_rule_file_is_read_by_the_api(tmp_path: Path) -> None:
    path = tmp_path / "trimmer.toml"
    path.write_text('order = "reversed"\nper_item = 4\npin = "first"\npin_overflow = "refuse"\n')
    assert run(trimmer, rule=path, **QUICK).conformant  # type: ignore[arg-type]
    assert run(trimmer, rule=str(path), **QUICK).declared == TRIMMER.describe().split(" (")[1][:-1]


def test_the_oracle_s_rule_defaults_to_the_seed_s() -> None:
    oracle = ReferenceOracle(CallablePacker(pack))
    assert oracle.declared == Rule()
    assert oracle.judge(_case(7, 4, 3, 2), "x") is None


# --- the command line, [tool.packcheck.rule] and the plugin --------------------------

_TRIMMER_FILE = 'order = "reversed"\nper_item = 4\npin = "first"\npin_overflow = "refuse"\n'
_PACKER = (
    "from packcheck import Rule, pack\n"
    "RULE = Rule(order='reversed', per_item=4, pin='first', pin_overflow='refuse')\n"
    "def trim(case):\n"
    "    answer = pack(case, rule=RULE)\n"
    "    if answer == {'error': 'refused'}:\n"
    "        raise ValueError('the first message alone does not fit')\n"
    "    return answer\n"
    "def wrong(case):\n"
    "    return pack(case)\n"
)
_ARGS = ["--seed", "1", "--max-examples", "40", "--no-long-lists", "--timeout", "0", "-q"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "trimmer.py").write_text(_PACKER)
    (tmp_path / "trimmer.toml").write_text(_TRIMMER_FILE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_verify_rule_gates_a_packer_against_its_rule_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--packer", "trimmer.py:trim", "--rule", "trimmer.toml", *_ARGS]) == 0
    out = capsys.readouterr().out
    assert 'rule:     order = "reversed", per_item = 4' in out
    assert main(["verify", "--packer", "trimmer.py:wrong", "--rule", "trimmer.toml", *_ARGS]) == 1
    out = capsys.readouterr().out
    assert "rerun:    packcheck verify --packer trimmer.py:wrong --rule trimmer.toml" in out


def test_the_table_s_rule_is_used_and_rule_wins(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.packcheck]\nmax-examples = 40\n[tool.packcheck.rule]\n" + _TRIMMER_FILE
    )
    assert main(["verify", "--packer", "trimmer.py:trim", *_ARGS]) == 0
    assert "--rule pyproject.toml" not in capsys.readouterr().out
    assert main(["verify", "--packer", "trimmer.py:wrong", *_ARGS]) == 1
    assert "--rule pyproject.toml --seed 1" in capsys.readouterr().out
    (project / "seed.toml").write_text('name = "the seed\'s"\n')
    assert main(["verify", "--packer", "trimmer.py:wrong", "--rule", "seed.toml", *_ARGS]) == 0
    assert "rule:" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('order = "newest"\n', "bad.toml: order: expected one of"),
        ("per_items = 3\n", "bad.toml: per_items: unknown rule key (did you mean 'per_item'?"),
        ('per_item = "1/2"\n', "bad.toml: per_item: fractional charge 1/2 needs remaining"),
        (
            '[[fixtures]]\nid = "f1"\ninput = {budget = 1, blocks = [], required = []}\n'
            "expected = {kept = [], remaining = 2, missing = []}\n",
            "bad.toml: fixture 'f1': expected",
        ),
    ],
)
def test_a_malformed_rule_file_is_one_line_and_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    (project / "bad.toml").write_text(text)
    assert main(["verify", "--packer", "trimmer.py:trim", "--rule", "bad.toml", *_ARGS]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"packcheck verify: error: {said}")
    assert err.count("\n") == 1


def test_diff_takes_a_rule_only_from_rule(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.packcheck.rule]\n" + _TRIMMER_FILE)
    from packcheck._cli import gate

    given = {"gate_command": "diff", "packer": "trimmer.py:trim", "against": "trimmer.py:trim"}
    assert gate.spec(given, "diff", project).rule is None
    assert gate.spec({**given, "rule": "trimmer.toml"}, "diff", project).rule == UNNAMED
    assert (
        gate.spec({"gate_command": "verify", "packer": "trimmer.py:trim"}, "verify", project).rule
        == UNNAMED
    )


def test_the_plugin_gates_against_the_table_s_rule(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(trimmer=_PACKER)
    pytester.makepyprojecttoml(
        '[tool.packcheck]\npacker = "trimmer.py:wrong"\nseed = 1\nmax-examples = 40\n'
        "no-long-lists = true\ntimeout = 0\n[tool.packcheck.rule]\n" + _TRIMMER_FILE
    )
    result = pytester.runpytest("-p", "no:xdist")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['*rule:     order = "reversed", per_item = 4*'])


@pytest.mark.parametrize(
    "parts",
    [
        PlainCase(9, ["A", "B"], [4, 3], ["A"]),
        PlainCase(-1, ["A"], [4], []),
        PlainCase(9, ["A", "B"], [4, 0], []),
        PlainCase(9, ["\udc00", "B"], [4, 3], ["\U0001f600"]),
        PlainCase(0, [], [], ["A"]),
    ],
)
def test_a_plain_case_s_answer_under_a_rule_is_pack_s(parts: PlainCase) -> None:
    assert parts.declared(TRIMMER) == pack(parts.build(), rule=TRIMMER)


def test_a_run_s_rule_reaches_a_cluster_s_worker(project: Path) -> None:
    """A seed's task on Dask is its pickled spec: the rule goes with it."""
    from packcheck._cli import gate
    from packcheck._cli._seeds import run_task

    given = {"gate_command": "verify", "packer": "trimmer.py:wrong", "rule": "trimmer.toml"}
    spec = gate.spec({**given, "seed": 1, "max_examples": 20, "long_lists": False}, "verify")
    sent = pickle.loads(pickle.dumps(spec))
    assert sent.rule == UNNAMED
    outcome = run_task(sent)
    assert not isinstance(outcome, str)
    assert outcome.declared == UNNAMED.describe()
    assert outcome.status == 1


_COMMAND = (
    "import json, sys\n"
    "from trimmer import trim\n"
    "for line in sys.stdin:\n"
    "    try:\n"
    "        answer = trim(json.loads(line))\n"
    "    except ValueError:\n"
    "        answer = {'error': 'refused'}\n"
    "    print(json.dumps(answer), flush=True)\n"
)


def test_a_command_answers_refused_where_its_rule_refuses(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "command.py").write_text(_COMMAND)
    command = f"{sys.executable} command.py"
    args = ["verify", "--packer-cmd", command, "--rule", "trimmer.toml", *_ARGS]
    assert main(args) == 0, capsys.readouterr().out
