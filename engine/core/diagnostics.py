"""Operational diagnostics with structlog: warnings, timings, progress.

The event log is the domain record; this is for the operator. Messages go to
stderr, one line each: ``fracas: warning: <event> key=value`` by default, or
one JSON object per line with ``--log-json``. ``-v`` shows debug timings.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog


def _plain(_: Any, method: str, event_dict: structlog.typing.EventDict) -> str:
    message = event_dict.pop("event", "")
    event_dict.pop("level", None)
    extras = " ".join(f"{k}={v}" for k, v in event_dict.items())
    return f"fracas: {method}: {message}" + (f" ({extras})" if extras else "")


def configure(*, json: bool = False, verbose: bool = False) -> None:
    """Configure structlog once for the CLI process."""
    renderer: Any = structlog.processors.JSONRenderer() if json else _plain
    processors: list[Any] = [structlog.processors.add_log_level]
    if json:
        processors.append(structlog.processors.TimeStamper(fmt="iso", utc=True))
    processors.append(renderer)
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG if verbose else logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


def get_logger(name: str = "fracas") -> Any:
    return structlog.get_logger(name)
