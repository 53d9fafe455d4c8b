"""The gate: one run of phases (fixtures, generated cases, wide ranges, long lists,
shrinking) whose cases an oracle judges; ``verify`` and ``diff`` are its two oracles."""

from .face import PhaseCases, raising
from .findings import SHOWN_WHOLE, Finding, plain_json, show_answer
from .fixtures import Fixture, read_fixtures, seed_fixtures
from .forms import FORMATS
from .outcome import (
    CHECKED,
    PHASES,
    Command,
    Outcome,
    junit_xml,
    render,
    seeds_text,
    text,
)
from .run import EXPLAINING, Oracle, replayed, run_gate, save_new
from .settings import (
    DEFAULT_MAX_EXAMPLES,
    SHRINK_SECONDS,
    Changes,
    Progress,
    Settings,
)

__all__ = [
    "CHECKED",
    "DEFAULT_MAX_EXAMPLES",
    "EXPLAINING",
    "FORMATS",
    "PHASES",
    "SHOWN_WHOLE",
    "SHRINK_SECONDS",
    "Changes",
    "Command",
    "Finding",
    "Fixture",
    "Oracle",
    "Outcome",
    "PhaseCases",
    "Progress",
    "Settings",
    "junit_xml",
    "plain_json",
    "raising",
    "read_fixtures",
    "render",
    "replayed",
    "run_gate",
    "save_new",
    "seed_fixtures",
    "seeds_text",
    "show_answer",
    "text",
]
