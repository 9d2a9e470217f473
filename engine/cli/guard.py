"""What every command that reads a log does first (issue 15): refuse what is not a regular
file at once, and report a damaged log by its line (exit 1), never crash on it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec
from fracas.core.errors import DamagedLog
from fracas.core.files import check_input
from fracas.services.run import replay_log


def readable_log(path: str | Path) -> Path:
    """``path`` if it is a regular file; one line and exit 2 otherwise (without opening it)."""
    return check_input(path, "log")


def holding_log(path: str | Path) -> Path:
    """A readable log whose every line follows from the ones before it (a replay proves it);
    a damaged one is reported by its line (DamagedLog, exit 1)."""
    log = readable_log(path)
    replay_log(log)
    return log


@contextmanager
def damage_reported(path: Path) -> Iterator[None]:
    """What a log's content can still break past the replay is damage, not a bug: one line, exit 1."""
    try:
        yield
    except msgspec.ValidationError as exc:  # the header's rules or sheets, read into the system's Structs
        raise DamagedLog(f"{path}: line 1: the header does not fit its rule system ({_first(exc)})") from None
    except (LookupError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
        raise DamagedLog(f"{path}: a damaged log ({type(exc).__name__}: {_first(exc)})") from None


def _first(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0][:300] if text else type(exc).__name__
