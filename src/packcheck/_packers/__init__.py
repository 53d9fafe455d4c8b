"""Packers under test: a Python callable, a Python worker process, or any command.

Every adapter is a :class:`Packer`: ``answer(case) -> object``, ``answer_built(recipe)``,
``close()``, ``speaks_json`` and ``timeout``.  Whatever goes wrong on
the packer's side (it raises, mutates its input, dies, hangs, prints garbage) becomes
a :class:`PackerFault` for that case; the adapter recovers (a dead or stuck process
is killed with its whole process group and restarted on the next case), so the gate
never hangs and never crashes.

Command protocol: one JSON case per line on the packer's stdin, one JSON object per
line on its stdout, in order.  The worker protocol is the same exchange with
length-prefixed pickles, so a Python packer's exact return types (tuples, NumPy
scalars) reach the checker unchanged.
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
