"""The option table: every option declared once, added alike to argparse and pytest, and
one way to say a user's error."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from packcheck._cli import build_parser, main
from packcheck._cli._options import OPTIONS, TAKES, add_options, error, options

SEED = Path(__file__).parents[1] / "fixtures" / "seed.json"
COMMANDS = {command: command.split() for command in TAKES}
FILES = {"pack": ["-"], "fixtures": [str(SEED)], "audit": ["-"], "rule diff": ["a", "b"]}


def test_each_option_is_declared_once_and_each_declaration_is_taken() -> None:
    flags = [option.flag for option in OPTIONS]
    assert len(flags) == len(set(flags))
    taken = {flag for flags in TAKES.values() for flag in flags}
    assert taken == set(flags)
    for command, words in COMMANDS.items():
        parser = build_parser(words[0])
        for word in words:
            parser = _subparser(parser, word)
        given = {s for action in parser._actions for s in action.option_strings}
        assert set(TAKES[command]) <= given, command
        # Nothing but the table: each long option of the command is one of its flags.
        switches = {f"--no-{flag[2:]}" for flag in TAKES[command]}
        assert {s for s in given if s.startswith("--")} <= {
            *TAKES[command],
            *switches,
            "--help",
        }


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    found: argparse.ArgumentParser = commands.choices[name]
    return found


@pytest.mark.parametrize("command", list(TAKES))
def test_every_command_takes_format_json(command: str) -> None:
    words = COMMANDS[command]
    argv = [*words, *FILES.get(command, []), "--format", "json"]
    if command == "rule infer":
        argv += ["--packer", "x:y"]
    args = build_parser(words[0]).parse_args(argv)
    assert args.format == "json"


@pytest.mark.parametrize("command", ["audit", "bench"])
def test_json_is_the_same_as_format_json(command: str) -> None:
    args = build_parser(command).parse_args([command, "--json"])
    assert args.format == "json"


def test_add_options_serves_any_addoption_with_a_prefix() -> None:
    added: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {}

    def addoption(*names: str, **kwargs: Any) -> None:
        added[names[0]] = (names, kwargs)

    add_options(addoption, "rule diff", prefix="x-", only=("--seed", "--quiet"))
    assert set(added) == {"--x-seed", "--x-quiet"}
    names, kwargs = added["--x-quiet"]
    assert names == ("--x-quiet",)  # no short option under a prefix
    assert kwargs["dest"] == "x_quiet"
    assert kwargs["action"] == "store_true"
    assert added["--x-seed"][1]["type"]("7") == 7
    added.clear()
    add_options(addoption, "rule diff")
    assert added["--quiet"][0] == ("--quiet", "-q")
    assert "dest" not in added["--quiet"][1]


def test_a_command_s_own_help_and_default_override_the_declaration() -> None:
    (bench,) = [o for o in options("bench") if o.flag == "--seed"]
    (verify,) = [o for o in options("verify") if o.flag == "--seed"]
    assert (bench.default, bench.help, bench.group) == (0, "data seed (default: 0)", None)
    assert (verify.default, verify.group) == (None, "seed")
    # The gate's commands leave every default to [tool.packcheck] and the table's own.
    args = build_parser("verify").parse_args(["verify"])
    assert args.max_examples is None
    assert args.long_lists is None


def test_quick_s_help_names_the_sizes_an_ab_runs_for_each_kind_of_packer() -> None:
    # A case-level A/B runs other sizes than a kernel's: the help says both, as run.
    from packcheck._cli._options import QUICK_CASE_SIZES, QUICK_SIZES

    (quick,) = [o for o in options("bench") if o.flag == "--quick"]
    text = quick.help if isinstance(quick.help, str) else quick.help.make()
    assert (QUICK_SIZES, QUICK_CASE_SIZES) == ((100_000,), (100, 10_000))
    assert "n=100,000 for kernels, n=100 and 10,000 for case-level packers and commands" in text


def test_an_error_is_one_line_naming_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert error("pack", "a.jsonl\nb: cannot read") == 2
    assert capsys.readouterr().err == "packcheck pack: error: a.jsonl\\nb: cannot read\n"
    assert error("", "x") == 2
    assert capsys.readouterr().err == "packcheck: error: x\n"


def test_fixtures_in_json_is_one_object_with_every_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    case = {"budget": 3, "blocks": [{"id": "a", "size": 2}], "required": []}
    wrong = {"kept": [], "remaining": 3, "missing": []}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "x", "input": case, "expected": wrong}]))
    assert main(["fixtures", str(SEED), str(bad), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report == {
        "checked": 4,
        "passed": 3,
        "engine": "reference",
        "failed": [
            {
                "file": str(bad),
                "fixture": "case 1 (x)",
                "input": case,
                "expected": wrong,
                "actual": {"kept": ["a"], "remaining": 1, "missing": []},
            }
        ],
        "notes": [],
    }
    # The text report is as it was: the failure, then the count.
    assert main(["fixtures", str(SEED), str(bad)]) == 1
    assert capsys.readouterr().out.splitlines()[0] == f"FAIL {bad}: case 1 (x)"


def test_pack_in_json_is_its_default_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    case = '{"budget": 3, "blocks": [{"id": "a", "size": 2}], "required": []}\n'
    outs = []
    for extra in ([], ["--format", "json"]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(case.encode())))
        assert main(["pack", *extra]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] == '{"kept":["a"],"remaining":1,"missing":[]}\n'


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("20", "'20' is not between 0% and 100% (a bare number is a fraction: write 20%)"),
        ("150%", "'150%' is not between 0% and 100%"),
        ("ten", "'ten' is not a percentage like 10%"),
    ],
)
def test_a_regression_limit_out_of_range_says_how_to_write_it(
    given: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["bench", "--max-regression", given])
    assert stop.value.code == 2
    assert capsys.readouterr().err.rstrip("\n").endswith(f"--max-regression: {said}")
