"""``packcheck._gate.settings``: one Settings, built from keywords named as its fields."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from packcheck import diff, pack, verify
from packcheck._gate import DEFAULT_MAX_EXAMPLES, Settings


def test_paths_become_paths() -> None:
    s = Settings(seed=3, save_failures="here")  # type: ignore[arg-type]
    assert s == Settings(seed=3, save_failures=Path("here"))
    assert s.max_examples == DEFAULT_MAX_EXAMPLES


def test_an_unknown_keyword_is_a_type_error_in_every_entry_point() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_exmaples'"):
        verify.check(pack, max_exmaples=5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'counts'"):
        diff.check(pack, pack, counts=True)
    with pytest.raises(TypeError, match="'quick'"):
        verify.run(pack, quick=True)


@pytest.mark.parametrize(
    ("given", "error", "message"),
    [
        ({"max_examples": 0}, ValueError, "max_examples=0: must be at least 1"),
        ({"max_units": -3}, ValueError, "max_units=-3: must be at least 1"),
        ({"seed": -1}, ValueError, "seed=-1: must be at least 0"),
        ({"seed": True}, TypeError, "seed=True: expected an integer"),
        ({"max_examples": 2.5}, TypeError, "max_examples=2.5: expected an integer"),
        ({"long_lists": "no"}, TypeError, "long_lists='no': expected True or False"),
        ({"shrink_seconds": -1}, ValueError, "shrink_seconds=-1: must be a number, 0 or more"),
        ({"shrink_seconds": "1"}, ValueError, "shrink_seconds='1': must be a number, 0 or more"),
    ],
)
def test_a_bad_value_is_one_line_where_the_settings_are_built(
    given: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        Settings(**given)  # type: ignore[arg-type]
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        verify.run(pack, **given)  # type: ignore[arg-type]
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        diff.run(pack, pack, Settings(seed=1), **given)  # type: ignore[arg-type]


def test_a_seed_is_kept_or_picked() -> None:
    quick = Settings(max_examples=1, fixtures=(), long_lists=False)
    assert verify.run(pack, quick, seed=7).seed == 7
    assert 0 <= verify.run(pack, quick).seed < 2**32


def test_settings_and_keywords_together(tmp_path: Path) -> None:
    base = Settings(seed=1, max_examples=5, long_lists=False, fixtures=())
    summary = verify.run(pack, base, max_examples=3)
    assert (summary.seed, summary.generated, summary.long_lists) == (1, 3, 0)
    assert summary.conformant
    assert summary.cases == summary.generated + summary.wide
    agreed = diff.check(pack, pack, base, count=True)
    assert agreed.agree
    assert agreed.counted
    assert agreed.shares()[1] == "generated: 0 of 5 cases differ (0%)"


def test_a_missing_folder_of_saved_fixtures_holds_none(tmp_path: Path) -> None:
    from packcheck._gate.fixtures import saved_fixtures

    assert saved_fixtures(tmp_path / "absent") == ([], [])
    assert not (tmp_path / "absent").exists()
