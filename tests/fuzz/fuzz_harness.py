"""Run ``fracas`` in-process as an attacker would, and judge how it ended.

Every call is bounded by a real-time alarm: a command still running after
``timeout`` seconds is a hang, reported as such (the attack counts it). A
command ends well when it returns 0, 1 or 2 with no traceback; the bug exit
code (70) or an exception escaping ``main`` is a crash.
"""

from __future__ import annotations

import contextlib
import io
import re
import signal
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import FrameType

from fracas.cli.main import main

#: Seconds any one command may take on the corpus and the fuzz (issue 15: each case under 10 s).
CASE_SECONDS = 10.0
#: The exit codes of a command that ended well: ok, a check failed, bad input.
CLEAN_EXITS = (0, 1, 2)
#: A refusal: ``fracas: error: FILE:LINE:COLUMN: ...`` or ``FILE: byte N: ...``.
LOCATED = re.compile(r"^fracas: error: .+?(:\d+:\d+: | byte \d+: |: line \d+)")


class Hang(Exception):
    """A command ran past its time."""


@dataclass
class Outcome:
    argv: list[str]
    rc: int | str
    out: str
    err: str

    @property
    def crashed(self) -> bool:
        return self.rc not in CLEAN_EXITS or "Traceback" in self.err

    def describe(self) -> str:
        return f"fracas {' '.join(self.argv)} -> {self.rc}\nstdout: {self.out[-600:]}\nstderr: {self.err[-1500:]}"


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def fracas(argv: Sequence[str], timeout: float = CASE_SECONDS) -> Outcome:
    """Run ``fracas ARGV`` in this process; a hang or an escaping exception becomes the outcome."""
    out, err = io.StringIO(), io.StringIO()
    rc: int | str
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            with _alarm(timeout):
                rc = main(list(argv))
        except SystemExit as exc:  # argparse refusals
            rc = exc.code if isinstance(exc.code, int) else 2
        except Hang as exc:
            rc = f"hang: {exc}"
        except BaseException as exc:
            rc = f"raised {type(exc).__name__}"
            err.write("Traceback (escaped main):\n" + "".join(traceback.format_exception(exc)))
    return Outcome(list(argv), rc, out.getvalue(), err.getvalue())


def error_lines(err: str) -> list[str]:
    """The ``fracas: error:`` lines of a command's stderr."""
    return [line for line in err.splitlines() if line.startswith("fracas: error:")]
