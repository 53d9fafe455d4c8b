"""The gate against context-packing loops ported from public repositories.

``packers/public.py`` holds the ports and what each should get: one keeps to the
declared rule and must pass; the others stop at the first block that does not fit,
scan from the newest message back, or keep a block that overflows the budget, and
must fail with a short counterexample.
"""

from __future__ import annotations

from typing import Any

import pytest
from packers import public

from packcheck.verify import run

#: Bugs the seed fixtures cannot show, found by the generated phase alone (no
#: fixtures): the failed invariant the shrunk case must report.
GENERATED_ONLY = {
    # ``if self.max_tokens_limit``: a budget of 0 is falsy, every document is kept.
    "langchain_reduce_tokens_below_limit": "invariant remaining >= 0",
    # ``&& out.length``: the newest message is kept even when it alone overflows.
    "vivica_trim_history": "invariant remaining >= 0",
}

CASES = [pytest.param(name, None, id=name) for name in public.EXPECTED] + [
    pytest.param(name, (), id=f"{name}-generated-only") for name in GENERATED_ONLY
]


@pytest.mark.parametrize(("name", "fixtures"), CASES)
def test_public_packer_verdict(name: str, fixtures: tuple[Any, ...] | None) -> None:
    packer = getattr(public, name)
    summary = run(packer, seed=1, max_examples=300, long_lists=False, fixtures=fixtures)
    expected_cause = public.EXPECTED[name]
    finding = summary.finding
    if expected_cause is None:
        assert finding is None, finding.report()
        assert summary.generated == 300
        return
    assert finding is not None, f"{name} passed; it should fail"
    assert finding.blocks() <= 8, finding.report()
    if fixtures is None:
        assert finding.origin.startswith("fixture"), finding.report()
        if expected_cause.startswith("closest: "):
            assert finding.causes == (), finding.report()
            assert f"no known cause ({expected_cause}, like it on " in finding.report()
        elif expected_cause:
            assert finding.causes == (expected_cause,), finding.report()
    else:
        assert finding.origin.startswith("generated"), finding.report()
        assert any(GENERATED_ONLY[name] in failure for failure in finding.failures), (
            finding.report()
        )
