"""The pre-commit hook and the workflow of docs/ci.md run, as written, in a project."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
TABLE = """
[tool.packcheck]
packer = "mine.py:pack_case"
seed = 1
max-examples = 30
no-long-lists = true
quiet = true
"""
#: The same settings for diff, against old.py.
DIFF = TABLE.replace("[tool.packcheck]\n", '[tool.packcheck.diff]\nagainst = "old.py:pack_case"\n')
MINE = """
from packcheck import pack

def pack_case(case):
    return pack(case)
"""


def _hook(name: str = "packcheck-verify") -> dict[str, str]:
    """A hook's keys, read from .pre-commit-hooks.yaml (a list of flat mappings)."""
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    hooks = [
        dict(re.findall(r"^[- ] (\w+): (.*)$", part, flags=re.MULTILINE))
        for part in re.split(r"^(?=- )", text, flags=re.MULTILINE)
    ]
    (hook,) = [hook for hook in hooks if hook.get("id") == name]
    return hook


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'mine'\n{TABLE}")
    (tmp_path / "mine.py").write_text(MINE)
    return tmp_path


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(command)
    argv[0] = str(BIN / argv[0])  # the packcheck installed beside this Python
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("command", "table", "broken", "passed", "rerun"),
    [
        (
            "verify",
            "",
            "mine.py",
            "conformant: 3 fixtures, 30 generated",
            "--packer mine.py:pack_case --seed 1",
        ),
        (
            "diff",
            DIFF,
            "old.py",
            "agree: 3 fixtures, 30 generated",
            "--packer mine.py:pack_case --against old.py:pack_case",
        ),
    ],
)
def test_each_pre_commit_hook_runs_its_command_with_the_projects_settings(
    command: str, table: str, broken: str, passed: str, rerun: str, tmp_path: Path
) -> None:
    hook = _hook(f"packcheck-{command}")
    assert hook.keys() == _hook().keys()
    assert hook["language"] == "python"
    assert hook["pass_filenames"] == "false"
    assert re.search(hook["files"], "src/pack.py")
    assert re.search(hook["files"], "pyproject.toml")
    assert not re.search(hook["files"], "README.md")
    project = _project(tmp_path)
    (project / "old.py").write_text(MINE)
    with (project / "pyproject.toml").open("a") as stream:
        stream.write(table)
    result = _run(hook["entry"], project)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"packcheck {command}: {passed}")
    (project / broken).write_text(MINE.replace("return pack(case)", "return {}"))
    result = _run(hook["entry"], project)
    assert result.returncode == 1
    assert f"rerun:    packcheck {command} {rerun}" in result.stdout


def test_a_src_layout_file_imports_its_own_package_absolutely_uninstalled(
    tmp_path: Path,
) -> None:
    """docs/ci.md's `src/` layout: the file form loads `src/mypkg/pack.py`, whose
    absolute `from mypkg._impl import helper` finds the tree with `mypkg` installed
    nowhere (the hook's own environment), and the page says so."""
    package = tmp_path / "src" / "mypkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "_impl.py").write_text(MINE.replace("pack_case", "helper"))
    (package / "pack.py").write_text(
        "from mypkg._impl import helper\n\n\ndef pack_case(case):\n    return helper(case)\n"
    )
    table = TABLE.replace('"mine.py:pack_case"', '"src/mypkg/pack.py:pack_case"')
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'mypkg'\n{table}")
    uninstalled = subprocess.run(
        [sys.executable, "-c", "import mypkg"], cwd=tmp_path, capture_output=True, timeout=60
    )
    assert uninstalled.returncode == 1
    assert b"No module named 'mypkg'" in uninstalled.stderr
    result = _run(_hook()["entry"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("packcheck verify: conformant: 3 fixtures, 30 generated")
    # The module form, from the same root, is what needs the project installed.
    result = _run("packcheck verify --packer mypkg.pack:pack_case", tmp_path)
    assert result.returncode == 2
    assert "cannot import 'mypkg.pack': ModuleNotFoundError" in result.stderr
    page = " ".join((ROOT / "docs" / "ci.md").read_text().split())
    (layout,) = re.findall(r"- \*\*A `src/` layout\*\*: (.*?) - \*\*", page)
    assert "an absolute `from mypkg._impl import helper` works too, uninstalled" in layout
    assert "needs `mypkg` installed" not in layout


def _workflow() -> list[str]:
    """The ``run:`` steps of the workflow in docs/ci.md."""
    page = (ROOT / "docs" / "ci.md").read_text()
    (workflow,) = re.findall(r"```yaml\n(# \.github/workflows/.*?)```", page, flags=re.DOTALL)
    return re.findall(r"^\s+- run: (.*)$", workflow, flags=re.MULTILINE)


def test_the_workflows_steps_run(tmp_path: Path) -> None:
    install, verify = _workflow()
    assert install == "python3 -m pip install ./packcheck"
    assert install in (ROOT / "docs" / "gate.md").read_text()  # as the gate's page says
    project = _project(tmp_path)
    result = _run(verify, project)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("::notice title=packcheck verify%3A conformant::")
    suite = ET.parse(project / "packcheck.xml").getroot().find("testsuite")
    assert suite is not None
    assert len(suite.findall("testcase")) == 4


def _local_hooks() -> list[dict[str, str]]:
    """The hooks of the ``repo: local`` config in docs/ci.md (flat mappings)."""
    page = (ROOT / "docs" / "ci.md").read_text()
    (config,) = re.findall(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", page, flags=re.DOTALL)
    assert "  - repo: local\n" in config
    parts = re.split(r"^      - ", config.split("hooks:\n", 1)[1], flags=re.MULTILINE)[1:]
    return [
        dict(re.findall(r"^(\w+): ([^#\n]*?)\s*(?:#.*)?$", "\n".join(
            line.strip() for line in part.splitlines()
        ), flags=re.MULTILINE))
        for part in parts
    ]  # fmt: skip


def test_the_docs_local_hooks_are_the_published_ones_on_the_projects_packcheck() -> None:
    hooks = _local_hooks()
    assert [hook["id"] for hook in hooks] == ["packcheck-verify", "packcheck-diff"]
    for hook in hooks:
        published = _hook(hook["id"])
        assert hook.pop("language") == "system"  # the packcheck of the project's environment
        assert published.pop("language") == "python"
        published.pop("description")
        assert hook == published


def test_no_rev_in_the_docs_names_a_tag() -> None:
    # packcheck has no release tag: a `rev: v0.1.0` fails `git checkout` in pre-commit.
    page = (ROOT / "docs" / "ci.md").read_text()
    revs = re.findall(r"^\s+rev: (\S+)", page, flags=re.MULTILINE)
    assert revs
    assert all(re.fullmatch(r"[0-9a-f]{40}", rev) for rev in revs), revs


def test_the_workflows_verify_runs_a_src_layout_packer_from_the_table(tmp_path: Path) -> None:
    _, verify = _workflow()
    (tmp_path / "src" / "mine").mkdir(parents=True)
    (tmp_path / "src" / "mine" / "__init__.py").write_text("")
    (tmp_path / "src" / "mine" / "_impl.py").write_text(MINE)
    (tmp_path / "src" / "mine" / "pack.py").write_text("from ._impl import pack_case\n")
    table = TABLE.replace("mine.py:pack_case", "src/mine/pack.py:pack_case")
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'mine'\n{table}")
    result = _run(verify, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "(src/mine/pack.py:pack_case)" in result.stdout
