"""verify's progress in a log: a line as each phase ends, and one every few seconds."""

from __future__ import annotations

import io
import threading

from packcheck._cli._progress import PlainLines, progress_for
from packcheck._gate import EXPLAINING


class _Log(io.StringIO):
    """A log that says when it has been written to."""

    def __init__(self) -> None:
        super().__init__()
        self.written = threading.Event()

    def write(self, text: str) -> int:
        self.written.set()
        return super().write(text)


def test_a_line_comes_every_few_seconds_without_a_new_case() -> None:
    log = _Log()
    lines = PlainLines(log, every=0.01)
    lines("long lists", 7, 154)
    assert log.written.wait(60)  # written by the timer: no case was checked since
    lines.close()
    assert log.getvalue().splitlines()[0].startswith("packcheck verify: long lists: 7/154 cases, ")
    shown = log.getvalue()
    lines("shrinking", 1, None)  # after close: nothing more
    assert log.getvalue() == shown


def test_a_log_that_went_away_stops_the_lines_not_the_run() -> None:
    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    lines = PlainLines(Gone(), every=3600)
    lines("fixtures", 3, None)
    lines("generated", 1, 1000)  # writes the fixtures' line: the log is gone
    assert lines._stop.is_set()  # the timer stops too
    lines("wide ranges", 1, 50)  # silent from now on
    lines.close()


def test_progress_is_chosen_by_the_stream() -> None:
    assert progress_for(io.StringIO(), quiet=True) is None
    plain = progress_for(io.StringIO(), quiet=False)
    assert isinstance(plain, PlainLines)
    plain.close()


def test_the_last_phase_gets_its_line_when_the_run_finishes() -> None:
    log = _Log()
    lines = PlainLines(log, every=3600)
    lines("fixtures", 1, None)
    lines("generated", 1, 1000)
    lines("shrinking", 1, None)
    lines(EXPLAINING, 0, None)
    lines.finish()
    lines.close()
    assert [line.split(", ")[0] for line in log.getvalue().splitlines()] == [
        "packcheck verify: fixtures: 1 case",
        "packcheck verify: generated: 1/1000 cases",
        "packcheck verify: shrinking: 1 try",
        "packcheck verify: explaining the failure",
    ]
