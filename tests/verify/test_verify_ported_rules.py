"""``verify --rule`` on the ports of real packers (tests/packers), each under the rule it
declares (the table of tests/rule/test_ported_rules.py).

Each port passes with the long lists on (here one of seeds 1-3 a port, in turn; all
three by hand), as ``packcheck verify --rule`` runs it (in a worker process; the
JavaScript ports insert each kept message at the front, quadratic in the list's
length, and have their long lists cut when they get slow).  The JavaScript ports (vue3,
vivica) count in doubles: they are checked within ``--max-units 2**53-1``; the Python
ports past int64 (2**70).  The generated cases are
fewer than a default run's (``--max-examples 100``) to keep CI short; the full runs are
in the changelog.  Every one-line regression of a port (its ``REGRESSIONS``, and two per
public.py port in ``packers/public_regressions.py``) is caught at ``--seed 1``, by a
counterexample of at most 8 blocks (within 400 generated cases).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from packers import public_regressions
from rule.test_ported_rules import DECLARED

from packcheck import Rule
from packcheck._cli import main
from packcheck.verify import run

TESTS = Path(__file__).parents[1]
_QUADRATIC = {"autogen_context", "llama_memory", "langchain_token_buffer"}


def _rule_file(rule: Rule, folder: Path) -> Path:
    path = folder / "rule.toml"
    path.write_text("".join(f"{line}\n" for line in rule.changed()))
    return path


# Seeds 1-3 over the ports in turn, one seed a port (the nine ports on all three seeds,
# long lists on, took 335 s of CPU: a third of it keeps CI short; each port's three
# seeds were run by hand, docs/changelog.md).
@pytest.mark.parametrize(
    ("packer", "rule", "max_units", "seed"),
    [(packer, rule, units, 1 + i % 3) for i, (packer, _, rule, units) in enumerate(DECLARED)],
    ids=[packer.__name__ for packer, *_ in DECLARED],
)
def test_each_port_passes_verify_rule_with_long_lists(
    packer: Callable[[dict[str, Any]], object],
    rule: Rule,
    max_units: int,
    seed: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _rule_file(rule, tmp_path)
    monkeypatch.chdir(TESTS)
    spec = f"{packer.__module__}:{packer.__name__}"
    args = ["verify", "--packer", spec, "--rule", str(path), "--seed", str(seed)]
    # A timeout of 60 s: two of the ports take a quarter of the default 10 s on a long
    # list of a busy machine, where the next list may then take four times as long.
    args += ["--timeout", "60", "--max-examples", "100", "--max-units", str(max_units), "-q"]
    # The three quadratic ports (each kept message inserted at the front) take minutes
    # on the long lists of one seed: here without them; with them, by hand (changelog).
    quadratic = packer.__module__.rsplit(".", 1)[-1] in _QUADRATIC
    status = main([*args, "--no-long-lists"] if quadratic else args)
    out = capsys.readouterr().out
    assert status == 0, out
    if not quadratic:
        assert "long list" in out.splitlines()[-1]
        assert " 0 long lists" not in out


REGRESSED = [
    (getattr(module or public_regressions, name), rule, units)
    for port, module, rule, units in DECLARED
    for table in [module.REGRESSIONS if module else public_regressions.REGRESSIONS]
    for entry, regressions in table.items()
    if module is not None or entry == port.__name__
    for name in regressions
]


def test_every_port_with_a_rule_has_two_public_regressions() -> None:
    public = [port.__name__ for port, module, _, _ in DECLARED if module is None]
    assert sorted(public_regressions.REGRESSIONS) == sorted(public)
    assert all(len(names) == 2 for names in public_regressions.REGRESSIONS.values())
    assert len(REGRESSED) == 15 + 2 * len(public)


# Found, before the long lists, and small: what caused it is not checked here (the
# one-key regressions' causes are, in test_rule_causes.py).  Seeking it took two fifths
# of these runs' CPU and leaves the finding as it is.
@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize(
    ("regression", "rule", "max_units"),
    REGRESSED,
    ids=[regression.__name__ for regression, *_ in REGRESSED],
)
def test_verify_rule_catches_each_regression_at_seed_1_in_at_most_8_blocks(
    regression: Callable[[dict[str, Any]], object], rule: Rule, max_units: int
) -> None:
    # The long lists come after the phase that finds each of these: left out, the run
    # is the same up to its finding.  400 generated cases, not 1,000: each is found by
    # then (pack_ge at a transition point, after 1,000 as after 50; the others within 400).
    summary = run(
        regression, rule=rule, seed=1, max_units=max_units, long_lists=False, max_examples=400
    )
    finding = summary.finding
    assert finding is not None
    assert summary.phase != "long lists"
    assert len(finding.case["blocks"]) <= 8
