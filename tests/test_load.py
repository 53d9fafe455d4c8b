"""Loading kernels by name, including one from a second copy of the package, and
reading their answers."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import packcheck
from packcheck._bench._answers import read_answer
from packcheck._engines import numpy_entry as scan
from packcheck._packers import SetupError, load

PACKAGE = Path(packcheck.__file__).parent


@pytest.fixture
def old_checkout(tmp_path: Path) -> Path:
    """A second copy of the package, as a worktree of another branch would hold, with
    its kernel changed so that it can be told apart from the installed one."""
    root = tmp_path / "old" / "src" / "packcheck"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    kernel_py = root / "_engines" / "numpy_entry.py"
    kernel_py.write_text(kernel_py.read_text() + "\nOLD_MARK = 'old'\n")
    return root


@pytest.fixture(autouse=True)
def _forget_loaded_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    monkeypatch.setattr(sys, "path", list(sys.path))


def test_a_file_of_another_checkout_loads_beside_the_installed_package(
    old_checkout: Path,
) -> None:
    old = load(f"{old_checkout / 'scan.py'}:pack_sizes")
    assert old is not scan.pack_sizes
    module = sys.modules[old.__module__]
    assert module.__name__.startswith("_packcheck_kernel_")
    assert module.__name__.endswith("._engines.numpy_entry")
    assert module.OLD_MARK == "old"  # type: ignore[attr-defined]
    assert not hasattr(scan, "OLD_MARK")  # the installed one is untouched
    # Its relative imports found the old package's modules, not the installed ones.
    alias = module.__name__.partition(".")[0]
    assert sys.modules[alias + ".reference"].__file__ == str(old_checkout / "reference.py")
    mask, remaining = old(7, np.array([4, 3, 2]))
    assert (mask.tolist(), remaining) == ([True, True, False], 0)
    # The same path again is the same function; a relative path names the same file.
    assert load(f"{old_checkout / 'scan.py'}:pack_sizes") is old


def test_two_checkouts_get_two_aliases(old_checkout: Path, tmp_path: Path) -> None:
    other = tmp_path / "other" / "packcheck"
    shutil.copytree(old_checkout, other)
    first = load(f"{old_checkout / 'scan.py'}:pack_sizes")
    second = load(f"{other / 'scan.py'}:pack_sizes")
    assert first.__module__ != second.__module__


def test_a_package_module_and_a_lone_file_load(tmp_path: Path, old_checkout: Path) -> None:
    pack = load(f"{old_checkout / '__init__.py'}:pack")
    package = sys.modules[pack.__module__.partition(".")[0]]
    assert package.__file__ == str(old_checkout / "__init__.py")
    # A module of a subpackage: the package is found by walking up to its root.
    sub = tmp_path / "outer" / "inner"
    sub.mkdir(parents=True)
    (tmp_path / "outer" / "__init__.py").write_text("UNITS = 3\n")
    (sub / "__init__.py").write_text("")
    (sub / "kernel.py").write_text("from .. import UNITS\ndef f():\n    return UNITS\n")
    nested = load(f"{sub / 'kernel.py'}:f")
    assert nested() == 3
    assert nested.__module__.endswith(".inner.kernel")
    lone = tmp_path / "lone_kernel.py"
    lone.write_text("def pack_sizes(budget, sizes):\n    return [], budget\n")
    kernel = load(f"{lone}:pack_sizes")
    assert kernel(5, np.array([], dtype=np.int64)) == ([], 5)
    assert load(f"{lone}:pack_sizes") is kernel


def test_a_file_of_a_package_imports_its_own_tree_not_another_on_the_path(
    tmp_path: Path,
) -> None:
    """``src/myapp/packer.py`` importing ``myapp.costs`` gets its own ``costs``, though
    another copy of ``myapp`` comes first on ``sys.path`` (``PYTHONPATH=src`` of the
    new version, where ``diff``'s OLD runs)."""
    for version, cost in (("new", 3), ("old", 2)):
        package = tmp_path / version / "src" / "myapp"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "costs.py").write_text(f"OVERHEAD = {cost}\n")
        (package / "packer.py").write_text(
            "from myapp.costs import OVERHEAD\n\ndef cost():\n    return OVERHEAD\n"
        )
    sys.path.insert(0, str(tmp_path / "new" / "src"))
    assert load(f"{tmp_path / 'old' / 'src' / 'myapp' / 'packer.py'}:cost")() == 2


def test_module_function_specs_import_as_usual() -> None:
    assert load("packcheck.scan:pack_sizes") is scan.pack_sizes


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("/no/such/dir/scan.py:pack_sizes", "no such file '/no/such/dir/scan.py'"),
        ("{lone}:missing", "has no function 'missing'"),
        ("{lone}:x", "'{lone}': 'x' is not callable (int)"),
        ("{broken}:pack_sizes", "cannot import '{broken}': ZeroDivisionError: division by zero"),
        ("{pkg}/mod.py:f", "cannot import '{pkg}/mod.py': ImportError:"),
        ("scan.py", "expected MODULE:FUNCTION or PATH.py:FUNCTION"),
        ("{exits}:pack", "cannot import '{exits}': SystemExit: 0"),
        ("exits_at_import:pack", "cannot import 'exits_at_import': SystemExit: 3"),
        (
            "myapp.packer:pack",
            "ModuleNotFoundError: No module named 'myapp' (it is imported from {here} and the "
            "installed packages: install the project, or name the file, as src/PACKAGE/",
        ),
        ("pkg.absent:f", "No module named 'pkg.absent'"),  # its package is found: no hint
    ],
)
def test_a_kernel_that_cannot_be_loaded_is_a_one_line_error(
    tmp_path: Path, spec: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "lone.py").write_text("x = 1\n")
    (tmp_path / "broken.py").write_text("1 / 0\n")
    # A module that exits at import (sys.exit, argparse) would end packcheck itself.
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "exits_at_import.py").write_text("import sys\nsys.exit(3)\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("from . import absent\n")
    paths = {
        "lone": tmp_path / "lone.py",
        "broken": tmp_path / "broken.py",
        "exits": tmp_path / "exits.py",
        "pkg": package,
        "here": tmp_path,
    }
    before = set(sys.modules)
    with pytest.raises(SetupError) as error:
        load(spec.format(**paths))
    text = str(error.value)
    assert message.format(**paths) in text
    assert "\n" not in text
    # A failed import leaves nothing half-registered behind (modules other tests of the
    # same process loaded, tests/packers/broken.py say, are not this test's).
    added = set(sys.modules) - before
    assert not [m for m in added if m.startswith("_packcheck_kernel_") and "broken" in m]


def test_read_answer_takes_arrays_and_lists_and_refuses_the_rest() -> None:
    assert read_answer((np.array([True, False]), 3)) == ([True, False], 3)
    assert read_answer(([True], 0)) == ([True], 0)
    assert read_answer((np.array([True]), np.int64(3))) is None  # a NumPy scalar remaining
    assert read_answer(([True], True)) is None  # a bool is not a count
    assert read_answer(([True], 3.0)) is None
    assert read_answer(None) is None
    assert read_answer((None, 0)) is None
    assert read_answer((1, 2, 3)) is None


def test_a_lone_file_imports_the_helpers_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As `python wrap.py` would: the file's folder is importable (new-user trial).
    monkeypatch.setattr(sys, "path", list(sys.path))
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "helper_beside_wrap.py").write_text("LEFT = 7\n")
    (folder / "wrap.py").write_text(
        "import helper_beside_wrap\ndef f():\n    return helper_beside_wrap.LEFT\n"
    )
    assert load(f"{folder / 'wrap.py'}:f")() == 7
    assert sys.path.count(str(folder)) == 1
    assert load(f"{folder / 'wrap.py'}:f")() == 7
    assert sys.path.count(str(folder)) == 1
