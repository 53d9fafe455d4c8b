"""One loader for the functions users name: ``MODULE:FUNCTION`` or ``PATH.py:FUNCTION``
(loaded as part of its own package, under an alias unique to its location; why:
docs/design.md)."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


class SetupError(Exception):
    """The packer cannot be loaded or started at all; one line."""


def importable(folder: str) -> None:
    """Put ``folder`` first on ``sys.path`` (once), as Python does for a script's own."""
    if folder not in sys.path:
        sys.path.insert(0, folder)


def load_function(spec: str, option: str = "--packer") -> Callable[[dict[str, Any]], object]:
    """Import ``MODULE:FUNCTION``, with the current directory on ``sys.path``, else
    :class:`SetupError` naming ``option``."""
    module_name, _, function_name = spec.partition(":")
    if not module_name or not function_name:
        raise SetupError(f"{option} {spec!r}: expected MODULE:FUNCTION or PATH.py:FUNCTION")
    importable(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:
        # A module that calls sys.exit() (or runs argparse) at import is not a packer.
        hint = ""
        if isinstance(exc, ModuleNotFoundError) and exc.name == module_name.split(".")[0]:
            hint = (
                f" (it is imported from {os.getcwd()} and the installed packages: install "
                "the project, or name the file, as src/PACKAGE/MODULE.py:FUNCTION)"
            )
        raise SetupError(
            f"{option} {spec!r}: cannot import {module_name!r}: {type(exc).__name__}: {exc}{hint}"
        ) from None
    return _function(module, function_name, f"{option} {spec!r}: module {module_name!r}")


def load(spec: str, option: str = "--packer") -> Callable[..., Any]:
    """The function ``spec`` names (the same for the same path twice), else
    :class:`SetupError` naming ``option``."""
    location, _, name = spec.rpartition(":")
    if not location.endswith(".py"):
        return load_function(spec, option)
    path = Path(location).resolve()
    if not path.is_file():
        raise SetupError(f"{option} {spec!r}: no such file {location!r}")
    root = path.parent
    while (root / "__init__.py").is_file() and (root.parent / "__init__.py").is_file():
        root = root.parent
    alias = "_packcheck_kernel_" + hashlib.sha256(str(root).encode()).hexdigest()[:12]
    try:
        if (root / "__init__.py").is_file():
            importable(str(root.parent))
            _import_package(alias, root)
            parts = path.relative_to(root).with_suffix("").parts
            module_name = ".".join([alias, *parts]).removesuffix(".__init__")
            module = importlib.import_module(module_name)
        else:
            # As `python PATH.py` would have it: the file's folder is importable, so
            # the file can import the helpers beside it.
            importable(str(path.parent))
            module = _import_file(alias + "_" + path.stem, path)
    except (Exception, SystemExit) as exc:
        # A module that calls sys.exit() (or runs argparse) at import is not a packer.
        raise SetupError(
            f"{option} {spec!r}: cannot import {location!r}: {type(exc).__name__}: {exc}"
        ) from None
    return _function(module, name, f"{option} {spec!r}: {location!r}")


def _function(module: Any, name: str, where: str) -> Callable[..., Any]:
    """``module``'s function ``name``, else :class:`SetupError` ``where: ...``."""
    if not hasattr(module, name):
        raise SetupError(f"{where} has no function {name!r}")
    function = getattr(module, name)
    if not callable(function):
        raise SetupError(f"{where}: {name!r} is not callable ({type(function).__name__})")
    return function  # type: ignore[no-any-return]


def _import_package(alias: str, root: Path) -> None:
    if alias in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        alias, root / "__init__.py", submodule_search_locations=[str(root)]
    )
    _execute(alias, spec)


def _import_file(alias: str, path: Path) -> Any:
    if alias not in sys.modules:
        _execute(alias, importlib.util.spec_from_file_location(alias, path))
    return sys.modules[alias]


def _execute(alias: str, spec: Any) -> None:
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as import does: its relative imports and dataclasses
    # look themselves up in sys.modules.
    sys.modules[alias] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[alias]
        raise
