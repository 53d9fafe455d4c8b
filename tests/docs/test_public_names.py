"""The manual sends readers to packcheck's public names only."""

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
# The contributors' page maps the source tree, and the changelog keeps what was said then.
INTERNAL = {"development.md", "changelog.md"}
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PRIVATE = re.compile(r"\bpackcheck(?:\.[a-z]\w*)*\._[a-z]\w*")


def test_no_page_of_the_manual_names_a_private_module() -> None:
    found = [
        f"{page.name}: {name}"
        for page in PAGES
        if page.name not in INTERNAL
        for name in PRIVATE.findall(page.read_text())
    ]
    assert found == []


# The public modules: what a user imports (everything else is under a name with `_`).
PUBLIC = [
    "packcheck",
    "packcheck.verify",
    "packcheck.diff",
    "packcheck.audit",
    "packcheck.bench",
    "packcheck.rules",
    "packcheck.strategies",
    "packcheck.reference",
    "packcheck.scan",
    "packcheck.compiled",
    "packcheck.pytest_plugin",
]


def test_the_public_names_are_few_and_each_is_there() -> None:
    faces = {name: importlib.import_module(name) for name in PUBLIC}
    missing = [f"{n}.{a}" for n, m in faces.items() for a in m.__all__ if not hasattr(m, a)]
    assert missing == []
    assert sum(len(m.__all__) for m in faces.values()) <= 90
    assert len(faces["packcheck.bench"].__all__) <= 5


def test_a_top_level_module_is_public_or_starts_with_an_underscore() -> None:
    source = ROOT / "src" / "packcheck"
    tops = {p.stem for p in source.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    public = {name.removeprefix("packcheck.") for name in PUBLIC} - {"packcheck"}
    assert {t for t in tops if not t.startswith("_")} == public
