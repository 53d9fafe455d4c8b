"""Start-up: only ``verify`` imports Hypothesis (0.4-0.8 s a process on a busy machine)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SEED = Path(__file__).parents[1] / "fixtures" / "seed.json"

# Runs the CLI in a fresh interpreter, then says which heavy modules it loaded.
_PROBE = """
import contextlib, io, sys
from packcheck._cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print("hypothesis" in sys.modules)
"""


def _loads_hypothesis(*argv: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=True
    )
    return done.stdout.strip() == "True"


@pytest.mark.parametrize(
    "argv",
    [
        ["pack", str(SEED)],
        ["pack", "--record", str(SEED)],
        ["fixtures", str(SEED)],
        ["audit", str(SEED)],
        ["bench", "--help"],
        ["pack", "--help"],
        ["rule", "show"],
    ],
)
def test_only_the_gate_imports_hypothesis(argv: list[str]) -> None:
    assert not _loads_hypothesis(*argv)


@pytest.mark.parametrize(
    "argv", [["verify", "--help"], ["--help"], ["nope"], ["rule", "diff", "x.toml", "x.toml"]]
)
def test_the_probe_sees_hypothesis_where_it_is_loaded(argv: list[str]) -> None:
    # The check above can fail: the gate's parser, and the whole list of commands
    # (which shows verify's), load it.
    assert _loads_hypothesis(*argv)
