"""Packers under test: a Python callable, a Python worker process, or any command.

Whatever goes wrong on the packer's side (it raises, mutates its input, dies, hangs,
prints garbage) is a :class:`PackerFault` for that case, and the adapter recovers, so
the gate never hangs or crashes.
"""

from .._rule.jsonio import dumps as encode_case
from ._callable import CallablePacker, adapter
from ._command import CommandPacker
from ._from_spec import loaded, started
from ._load import SetupError, importable, load, load_function
from ._packer import Packer, PackerFault, PackerRefusal, Recipe
from ._process import PackerDied, PackerTimeout
from ._worker import WorkerPacker, serve

__all__ = [
    "CallablePacker",
    "CommandPacker",
    "Packer",
    "PackerDied",
    "PackerFault",
    "PackerRefusal",
    "PackerTimeout",
    "Recipe",
    "SetupError",
    "WorkerPacker",
    "adapter",
    "encode_case",
    "importable",
    "load",
    "load_function",
    "loaded",
    "serve",
    "started",
]
