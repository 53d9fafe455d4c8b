"""The manual sends readers to packcheck's public names only."""

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
