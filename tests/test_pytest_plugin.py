"""The pytest plugin: the gate as test items, run by a pytest inside the test."""

from __future__ import annotations

import importlib
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

# The command line's package, imported before the inline runs (as another test file may
# import it): the plugin must not find, through its attributes, the modules an earlier
# inline run imported and pytester then dropped (two Hypothesis, a strategy of the old).
import packcheck._cli
import packcheck.pytest_plugin

pytest_plugins = ["pytester"]

GOOD = """
def pack_case(case):
    from packcheck import pack
    return pack(case)
"""
BAD = """
def pack_case(case):
    from packcheck import pack
    answer = pack(case)
    if len(case["blocks"]) > 1 and "kept" in answer:
        answer["kept"] = answer["kept"][::-1]
    return answer
"""
SETTINGS = "seed = 1\nmax-examples = 30\nno-long-lists = true\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(good=GOOD, bad=BAD, test_mine="def test_mine():\n    pass\n")
    pytester.makepyprojecttoml(f'[tool.packcheck]\npacker = "good.py:pack_case"\n{SETTINGS}')
    return pytester


def test_one_item_for_the_table_and_one_per_option(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:xdist", "--packcheck", "bad.py:pack_case", "-rA")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ packcheck[[]bad.py:pack_case[]] _*",
            "FAIL fixture seed.json: case 1 (distractor-first)",
            "  check:    output: differs from the declared output (exact JSON and types)",
            "*",
            "rerun:    packcheck verify --packer bad.py:pack_case --seed 1 --max-examples 30 "
            "--no-long-lists",
            "packcheck verify: NOT conformant after *",
        ]
    )
    result.stdout.fnmatch_lines(["PASSED pyproject.toml::packcheck[[]good.py:pack_case[]]"])
    assert "Traceback" not in result.stdout.str()
    assert "pytest_plugin.py" not in result.stdout.str()


def test_the_gate_s_settings_on_pytest_s_command_line_override_the_table(
    project: pytest.Pytester,
) -> None:
    argv = ["--packcheck-seed", "2", "--packcheck-max-examples", "7", "--packcheck-long-lists"]
    # The table's item, which passes, is left out: run, it would pack every long list.
    argv += ["-k", "not good"]
    result = project.runpytest("-p", "no:xdist", "--packcheck", "bad.py:pack_case", *argv)
    result.assert_outcomes(passed=1, failed=1, deselected=1)
    result.stdout.fnmatch_lines(
        ["rerun:    packcheck verify --packer bad.py:pack_case --seed 2 --max-examples 7"]
    )
    result = project.runpytest("-p", "no:xdist", "--packcheck-max-examples", "0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*argument --packcheck-max-examples: 0 must be greater than 0"])


def test_it_works_under_xdist(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-n", "2", "--packcheck", "bad.py:pack_case")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["FAIL fixture seed.json: case 1 (distractor-first)"])


def test_no_packcheck_turns_it_off(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:xdist", "-p", "no:packcheck")
    result.assert_outcomes(passed=1)
    result = project.runpytest("-p", "no:xdist", "-k", "not packcheck")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["collected 2 items / 1 deselected / 1 selected"])


def test_no_table_and_no_option_is_no_item(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mine="def test_mine():\n    pass\n")
    pytester.makepyprojecttoml("[tool.other]\nx = 1\n")
    pytester.runpytest("-p", "no:xdist").assert_outcomes(passed=1)
    # An option alone: its settings are the defaults (here shortened by none).
    pytester.makepyfile(bad=BAD)
    result = pytester.runpytest("-p", "no:xdist", "--packcheck", "bad.py:pack_case")
    result.assert_outcomes(passed=1, failed=1)


def test_a_table_without_a_packer_is_no_item_unless_it_is_bad(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(good=GOOD, test_mine="def test_mine():\n    pass\n")
    # Settings alone (for `--packcheck`, or `packcheck verify --packer` later): no item.
    pytester.makepyprojecttoml("[tool.packcheck]\nseed = 1\n")
    pytester.runpytest("-p", "no:xdist").assert_outcomes(passed=1)
    # A misspelt packer names none: the table's item fails as `packcheck verify` does,
    # rather than the gate vanishing from CI.
    pytester.makepyprojecttoml('[tool.packcheck]\npaker = "good.py:pack_case"\n')
    result = pytester.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ packcheck[[]pyproject.toml[]] _*",
            "packcheck verify: pyproject.toml [[]tool.packcheck[]]: unknown key 'paker' "
            "(did you mean 'packer'? keys: *)",
        ]
    )


def test_a_command_packer_in_the_table(pytester: pytest.Pytester) -> None:
    lines = Path(__file__).parent / "packers" / "lines_packer.py"
    # This Python, which has NumPy: a python3 on PATH may not (lines_packer imports it).
    command = shlex.join([sys.executable, str(lines)])
    pytester.makepyprojecttoml(f"[tool.packcheck]\npacker-cmd = '{command}'\n{SETTINGS}")
    result = pytester.runpytest("-p", "no:xdist", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"pyproject.toml::packcheck[[]{command}[]] PASSED*"])


@pytest.mark.parametrize(
    ("table", "option", "message"),
    [
        (
            "nope = 1",
            "",
            "packcheck verify: pyproject.toml [[]tool.packcheck[]]: unknown key 'nope'*",
        ),
        (
            "",
            "missing.py:f",
            "packcheck verify: --packer 'missing.py:f': no such file 'missing.py'",
        ),
    ],
)
def test_what_stops_the_gate_is_one_line(
    table: str, option: str, message: str, project: pytest.Pytester
) -> None:
    # The table's settings shorten its item's run (which passes), as the project's do.
    table = f'packer = "good.py:pack_case"\n{SETTINGS}{table}'
    project.makepyprojecttoml(f"[tool.packcheck]\n{table}\n")
    result = project.runpytest("-p", "no:xdist", *(["--packcheck", option] if option else []))
    result.assert_outcomes(passed=1 if not option else 2, failed=1)
    result.stdout.fnmatch_lines(["*_ packcheck[[]*[]] _*", message])
    assert "Traceback" not in result.stdout.str()


def test_a_bad_packer_in_the_table_is_blamed_on_the_file_and_key(
    project: pytest.Pytester,
) -> None:
    project.makepyprojecttoml(f'[tool.packcheck]\npacker = "missing.py:f"\n{SETTINGS}')
    result = project.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "packcheck verify: pyproject.toml [[]tool.packcheck[]]: packer 'missing.py:f': "
            "no such file 'missing.py'"
        ]
    )


def test_the_diff_pair_of_the_table_is_an_item_too(project: pytest.Pytester) -> None:
    diff = "[tool.packcheck.diff]\npacker = 'good.py:pack_case'\nagainst = '{}'\n" + SETTINGS
    project.makepyprojecttoml(diff.format("good.py:pack_case"))
    result = project.runpytest("-p", "no:xdist", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["pyproject.toml::packcheck-diff[[]good.py:pack_case vs good.py:pack_case[]] PASSED*"]
    )
    project.makepyprojecttoml(diff.format("bad.py:pack_case"))
    result = project.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*_ packcheck-diff[[]good.py:pack_case vs bad.py:pack_case[]] _*",
            "DIFFERS fixture seed.json: *",
            "rerun:    packcheck diff --packer good.py:pack_case --against bad.py:pack_case *",
            "packcheck diff: DIFFERENT after *",
        ]
    )
    # A pair with a side missing fails its item with the one-line error.
    project.makepyprojecttoml("[tool.packcheck.diff]\nagainst = 'bad.py:pack_case'\n")
    result = project.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["packcheck diff: NEW is needed: --packer or --packer-cmd *"])


def test_each_named_diff_table_is_an_item_of_its_own(project: pytest.Pytester) -> None:
    # "Against the last release" and "against the other packer" side by side, each run
    # with its own table's settings alone.
    tables = (
        "[tool.packcheck.diff]\npacker = 'good.py:pack_case'\nagainst = 'good.py:pack_case'\n"
        + SETTINGS
        + "[tool.packcheck.diff.release]\npacker = 'good.py:pack_case'\n"
        + "against = 'bad.py:pack_case'\n"
        + SETTINGS
        + "[tool.packcheck.diff.mine]\npacker = 'good.py:pack_case'\n"
        + "against = 'good.py:pack_case'\n"
        + SETTINGS
    )
    project.makepyprojecttoml(tables)
    result = project.runpytest("-p", "no:xdist", "-v")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "pyproject.toml::packcheck-diff[[]good.py:pack_case vs good.py:pack_case[]] PASSED*",
            "pyproject.toml::packcheck-diff[[]release: good.py:pack_case vs bad.py:pack_case[]] "
            "FAILED*",
            "pyproject.toml::packcheck-diff[[]mine: good.py:pack_case vs good.py:pack_case[]] "
            "PASSED*",
        ]
    )
    # Named tables alone: no item for the unnamed table, which names no pair.  Which
    # items there are is collection's answer; the run above ran each kind of them.
    project.makepyprojecttoml("\n".join(tables.splitlines()[6:]))
    result = project.runpytest("-p", "no:xdist", "--collect-only", "-q")
    assert [line for line in result.stdout.lines if "::packcheck" in line] == [
        "pyproject.toml::packcheck-diff[release: good.py:pack_case vs bad.py:pack_case]",
        "pyproject.toml::packcheck-diff[mine: good.py:pack_case vs good.py:pack_case]",
    ]


def test_a_table_that_cannot_be_read_fails_its_item(project: pytest.Pytester) -> None:
    project.makepyprojecttoml("[tool]\npackcheck = 3\n")
    result = project.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["packcheck verify: pyproject.toml: [[]tool.packcheck[]] must be a table"]
    )


def test_the_module_loads_again_cleanly() -> None:
    # pytest imports its plugins before coverage starts: load it again, measured.
    module = importlib.reload(packcheck.pytest_plugin)
    assert module.PackcheckItem.__name__ == "PackcheckItem"


# Starts the plugin as pytest does (its options added) in a fresh interpreter, then
# imports what argv names; says whether Hypothesis is loaded.
_STARTED = """
import importlib, sys
import packcheck.pytest_plugin as plugin

class Group:
    def addoption(self, *names, **kwargs):
        pass

class Parser:
    def getgroup(self, *args):
        return Group()

plugin.pytest_addoption(Parser())
for name in sys.argv[1:]:
    importlib.import_module(name)
print("hypothesis" in sys.modules)
"""


@pytest.mark.parametrize(("imported", "loaded"), [((), False), (("packcheck._cli.gate",), True)])
def test_the_plugin_starts_without_hypothesis(imported: tuple[str, ...], loaded: bool) -> None:
    # Every pytest run where packcheck is installed starts the plugin; the gate, and
    # Hypothesis with it, load when a packcheck item runs (the probe sees it then).
    done = subprocess.run(
        [sys.executable, "-c", _STARTED, *imported], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == str(loaded)
