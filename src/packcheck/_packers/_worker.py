"""A Python packer in a worker process of its own, so that a hang can be timed out; the
exchange is length-prefixed pickles, so exact return types reach the checker."""

from __future__ import annotations

import os
import pickle
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ._callable import CallablePacker
from ._load import SetupError, load
from ._packer import PackerFault, PackerRefusal, Recipe
from ._process import PackerTimeout, Process

_HEADER = struct.Struct(">Q")
#: A worker process may take this long to start (import NumPy, the packer's module):
#: on a loaded machine that is seconds, and it must not count against the first case.
WORKER_START_SECONDS = 60.0


def _cut_frame(buffer: bytearray) -> bytes | None:
    if len(buffer) < _HEADER.size:
        return None
    (length,) = _HEADER.unpack_from(buffer)
    if len(buffer) < _HEADER.size + length:
        return None
    frame = bytes(buffer[_HEADER.size : _HEADER.size + length])
    del buffer[: _HEADER.size + length]
    return frame


class WorkerPacker(Process):
    """A Python ``MODULE:FUNCTION`` run in a worker process, so a hang can be timed out;
    what it prints reaches this process's stderr, as when it is called in this one."""

    echo_stderr = True

    def __init__(
        self, spec: str, timeout: float, *, hash_seed: str | None = None, cwd: str | None = None
    ) -> None:
        """``hash_seed``: the worker's ``PYTHONHASHSEED`` unless the environment sets one."""
        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        if hash_seed is not None:
            env.setdefault("PYTHONHASHSEED", hash_seed)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        super().__init__([sys.executable, "-m", "packcheck._packers", spec], timeout, env, cwd)
        self.spec = spec

    def start(self) -> None:
        """Start the worker and wait until it has loaded the function (not counted against
        a case's timeout); :class:`SetupError` when it cannot within :attr:`timeout`."""
        super().start()
        try:
            self._started(WORKER_START_SECONDS, "the worker did not start within {} s")
            late = "importing it took longer than {} s (the timeout); worker stopped"
            reply = self._started(self.timeout, late)
        except BaseException:
            self.stop()  # stopped by a signal while it started: nothing left running
            raise
        if reply:
            self.stop()
            raise SetupError(pickle.loads(reply))

    def _started(self, wait: float, late: str) -> bytes:
        try:
            return self._read(_cut_frame, time.monotonic() + wait)
        except PackerFault as exc:
            why = (
                late.format(f"{wait:g}")
                if isinstance(exc, PackerTimeout)
                else f"the worker did not start: {exc}"
            )
            raise SetupError(f"--packer {self.spec!r}: {why}") from None

    def answer(self, case: dict[str, Any]) -> object:
        """The function's return value, exactly as returned in the worker."""
        return self._ask(_CASE + pickle.dumps(case))

    def answer_built(self, recipe: Recipe) -> object:
        """:meth:`answer` for the case ``recipe`` builds, sent as the recipe (pickled far
        faster than a ``dict`` per block) and built in the worker."""
        return self._ask(_RECIPE + pickle.dumps(recipe))

    def _ask(self, request: bytes) -> object:
        frame = self.exchange(_HEADER.pack(len(request)) + request, _cut_frame)
        status, value = pickle.loads(frame)
        if status == "fault":
            raise PackerFault(value)
        if status == "refusal":
            raise PackerRefusal(value)
        return value


# A request to a worker: a tag, then the pickled case or recipe.
_CASE, _RECIPE = b"c", b"r"


def serve(function: Callable[[dict[str, Any]], object], inp: IO[bytes], out: IO[bytes]) -> None:
    """The worker loop: answer pickled cases from ``inp`` on ``out`` until end of input."""
    packer = CallablePacker(function)
    while len(header := inp.read(_HEADER.size)) == _HEADER.size:
        message = inp.read(_HEADER.unpack(header)[0])
        kind, body = message[:1], message[1:]
        request = pickle.loads(body)
        try:
            if kind == _RECIPE:
                answer = packer.answer_built(request)
            else:
                answer = packer.answer_unpickled(request, body)
        except PackerFault as exc:
            reply = pickle.dumps(
                ("refusal" if isinstance(exc, PackerRefusal) else "fault", str(exc))
            )
        else:
            try:
                reply = pickle.dumps(("ok", answer))
            except Exception as exc:
                reply = pickle.dumps(("fault", f"returned a value that cannot be sent back: {exc}"))
        out.write(_HEADER.pack(len(reply)) + reply)
        out.flush()


def main(spec: str) -> None:  # pragma: no cover - runs in the worker process
    # The protocol owns the real stdout; the packer's own prints go to stderr.
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    protocol.write(_HEADER.pack(0))  # running: the packer's module is imported next
    protocol.flush()
    try:
        function = load(spec)
    except SetupError as exc:
        reason = pickle.dumps(str(exc))
        protocol.write(_HEADER.pack(len(reason)) + reason)
        protocol.flush()
        sys.exit(2)
    protocol.write(_HEADER.pack(0))  # ready
    protocol.flush()
    serve(function, sys.stdin.buffer, protocol)
