"""``packcheck rule infer``: the TOML on stdout alone, ready to commit and to gate with
``verify --rule``; JSON; exit statuses; one-line errors; a stop that prints nothing."""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from cli.test_cli_startup import _loads_hypothesis

from packcheck import Rule, rules
from packcheck._cli import main
from packcheck._cli.rule_infer import _rerun
from packcheck._cli.rule_infer_report import json_object, rule_table, toml
from packcheck._packers import PackerTimeout
from packcheck.rules import Alternative, Inferred, _infer

TESTS = Path(__file__).parents[1]
PACKERS = TESTS / "packers"
QUICK = ["--seed", "1", "--max-examples", "30", "--no-long-lists"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["rule", "infer", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def _in_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(TESTS)


def test_the_rule_is_printed_as_toml_that_passes_verify_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = run(capsys, "--packer", "packers.message_overhead:pack", *QUICK, "-q")
    assert status == 0
    assert err == ""
    assert out.startswith("# packcheck rule infer --seed 1: gives every answer")
    assert tomllib.loads(out) == {"order": "reversed", "on_misfit": "stop", "per_item": 7}
    rule = tmp_path / "rule.toml"
    rule.write_text(out)
    assert Rule.load(rule) == Rule(order="reversed", on_misfit="stop", per_item=7)
    verify = ["verify", "--packer", "packers.message_overhead:pack", "--rule", str(rule)]
    assert main([*verify, *QUICK, "-q"]) == 0


def test_what_a_packer_in_this_process_prints_goes_to_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "noisy.py").write_text(
        "from packcheck import pack\n\n"
        "def pack_case(case):\n"
        "    print('packing')\n"
        "    return pack(case)\n"
    )
    noisy = f"{tmp_path / 'noisy.py'}:pack_case"
    status, out, err = run(capsys, "--packer", noisy, "--timeout", "0", *QUICK, "-q")
    assert status == 0
    assert tomllib.loads(out) == {}
    assert "packing\n" in err


def test_none_fits_exit_1_with_the_nearest_rule_and_a_case(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "--packer", "packers.lost_middle:rank", *QUICK)
    assert status == 1
    assert tomllib.loads(out) == {"on_misfit": "stop"}
    assert "# packcheck rule infer --seed 1: NO rule of the vocabulary" in out
    assert '#   packer:   {"kept":["A","C","B"]' in out
    assert "packcheck rule infer: probing:" in err  # progress, on stderr
    status, out, _ = run(capsys, "--packer", "packers.lost_middle:rank", *QUICK, "--format", "json")
    assert status == 1
    report = json.loads(out)
    assert report["fits"] is False
    assert report["rule"] == {"on_misfit": "stop"}
    assert report["counterexample"]["answer"]["kept"] == ["A", "C", "B"]
    assert tomllib.loads(report["toml"]) == {"on_misfit": "stop"}


def test_a_command_packer_is_asked_as_verify_asks_it(capsys: pytest.CaptureFixture[str]) -> None:
    command = f"{shlex.quote(sys.executable)} {PACKERS / 'lines_packer.py'}"
    status, out, _ = run(capsys, "--packer-cmd", command, *QUICK, "-q", "--format", "json")
    assert status == 0
    assert json.loads(out)["rule"] == {}


def test_errors_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--packer", "no_such_module:pack", "--seed", "1", "-q")
    assert (status, out) == (2, "")
    assert err.startswith(
        "packcheck rule infer: error: --packer 'no_such_module:pack': cannot import"
    )
    assert err.count("\n") == 1
    with pytest.raises(SystemExit) as exit_:
        main(["rule", "infer", "--seed", "1"])
    assert exit_.value.code == 2
    assert "one of the arguments --packer --packer-cmd is required" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["rule", "infer", "--packer", "x:y", "--seed", "-1"])
    assert capsys.readouterr().err.startswith("packcheck rule infer: error: argument --seed")


def test_a_stopped_infer_prints_nothing_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"{PACKERS / 'ci_job.py'}:terminates_itself"
    status, out, err = run(capsys, "--packer", spec, "--timeout", "0", "--seed", "1", "-q")
    assert status == 143
    assert out == ""
    assert err == (
        "packcheck rule infer: stopped by SIGTERM; to repeat it: "
        f"packcheck rule infer --packer {spec} --seed 1 --timeout 0\n"
    )


def test_the_rerun_repeats_every_setting() -> None:
    args = argparse.Namespace(
        packer=None,
        packer_cmd="node packer.js",
        max_examples=50,
        max_units=2**70,
        timeout=2.5,
        long_lists=False,
    )
    assert _rerun(args, 7) == (
        "packcheck rule infer --packer-cmd 'node packer.js' --seed 7 --max-examples 50 "
        "--max-units '2**70' --timeout 2.5 --no-long-lists"
    )
    plain = argparse.Namespace(
        packer="p.py:f", max_examples=None, max_units=None, timeout=None, long_lists=True
    )
    assert _rerun(plain, 7) == "packcheck rule infer --packer p.py:f --seed 7"


SPELLINGS: list[dict[str, Any]] = [
    {"pin_overflow": "refuse"},
    {"output": "scan"},
    {"pin_overflow": "refuse", "output": "scan"},
    {"pin_overflow": "refuse", "output": "scan", "max_count": 0},
]


def test_the_report_lists_other_rules_and_says_what_it_could_not_ask() -> None:
    chosen = Rule(on_misfit="stop", per_item="1/3", remaining="sizes")
    case = {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []}
    found = Inferred(
        chosen,
        True,
        40,
        40,
        3,
        verified=12,
        alternatives=(
            Alternative(Rule(on_misfit="stop", fit="lt", remaining="sizes"), False, case),
            Alternative(Rule(**{**chosen.keys(), "reserve": 1}), False),
            # Keys that cannot change an answer under the chosen rule (no pin, scan order
            # the input's): the same rule.
            *(Alternative(Rule(**{**chosen.keys(), **keys}), True) for keys in SPELLINGS),
            Alternative(Rule(**{**chosen.keys(), "name": "x"}), True),  # no key: left out
        ),
    )
    text = toml(found)
    assert tomllib.loads(text) == {"on_misfit": "stop", "per_item": "1/3", "remaining": "sizes"}
    assert '# Also agrees on every case asked: fit = "lt", per_item at its default\n' in text
    assert '#   told apart by a case the packer did not answer: {"budget":1,' in text
    assert "#   no case found that tells it from this rule\n" in text
    assert (
        "# The same rule (the same answer to every case), also spelled:\n"
        '#   with pin_overflow = "refuse"\n'
        '#   with output = "scan"\n'
        '#   with pin_overflow = "refuse", output = "scan"\n'
        "#   and 1 more\n"
    ) in text
    # An alternative's keys that cannot matter are left out.
    rival = Alternative(Rule(fit="lt", pin_overflow="refuse", output="scan"), False)
    shown = toml(replace(found, rule=Rule(), alternatives=(rival,)))
    assert '# Also agrees on every case asked: fit = "lt"\n' in shown
    # A key another needs stays: a fraction's remaining = "sizes".
    rival = Alternative(Rule(per_item="1/2", remaining="sizes"), False)
    shown = toml(replace(found, rule=Rule(), alternatives=(rival,)))
    assert '# Also agrees on every case asked: per_item = "1/2", remaining = "sizes"\n' in shown
    assert rule_table(chosen) == {"on_misfit": "stop", "per_item": "1/3", "remaining": "sizes"}
    assert json_object(found)["alternatives"][1]["rule"]["reserve"] == 1
    failed = Inferred(Rule(), False, 9, 8, 1, counterexample=case, answer=PackerTimeout("late"))
    assert toml(failed).startswith(
        "# packcheck rule infer --seed 1: NO rule can be checked: the packer gave no answer"
    )
    assert "#   packer:   no answer: late\n" in toml(failed)
    assert json_object(failed)["counterexample"]["answer"] == "no answer: late"
    odd = Inferred(Rule(), False, 9, 8, 1, counterexample=case, answer={1, 2})
    assert "#   packer:   {1, 2}\n" in toml(odd)
    alone = toml(Inferred(Rule(), True, 9, 9, 1, verified=3))
    default = (
        "# The rule below is packcheck's default rule: every key at its default, so no key "
        "follows.\n"
    )
    assert alone == (
        "# packcheck rule infer --seed 1: gives every answer the packer gave on 9 cases asked,\n"
        "# and passed verify --rule at --seed 1 on 3 cases.\n" + default
    )
    # The nearest rule too: "below" names it, though it has no key.
    assert toml(odd).endswith(default)
    assert tomllib.loads(toml(odd)) == {}
    assert default not in text  # a rule with keys is its keys


def test_the_parser_and_the_package_load_no_hypothesis() -> None:
    assert not _loads_hypothesis("rule", "infer", "--help")
    assert _loads_hypothesis("rule", "infer", "--packer", "x:y", "--seed", "1")
    done = subprocess.run(
        [sys.executable, "-c", "import sys, packcheck.rules; print('hypothesis' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "False"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = rules.nothing  # type: ignore[attr-defined]


def test_a_setting_past_its_range_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--packer", "x:y", "--max-examples", "2000000")
    assert (status, out) == (2, "")
    assert err == "packcheck rule infer: error: --max-examples=2000000: must be at most 1,000,000\n"


def test_notes_go_to_stderr_with_the_settings_given(capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"{TESTS / 'rules' / 'test_infer.py'}:_bad_partition"
    argv = ["--packer", spec, *QUICK, "--max-units", "2**20", "-q"]
    status, out, err = run(capsys, *argv)
    assert status == 1
    assert tomllib.loads(out) == {}
    assert err.startswith("packcheck rule infer: note: every rule that gave every answer failed")


def test_an_error_that_is_not_a_stop_goes_on_its_way(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(_infer, "infer", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        main(["rule", "infer", "--packer", "packers.lost_middle:rank", "--seed", "1", "-q"])
