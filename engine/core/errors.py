"""Errors a user can meet: each names where and why, and maps to an exit code.

Exit codes: 0 ok, 1 a check failed, 2 bad input.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2


class FracasError(Exception):
    """Bad input: printed as one line, exit code 2, never a traceback."""

    exit_code = EXIT_BAD_INPUT


class ScenarioError(FracasError):
    """A scenario that does not load: file, line (when known), ``$.path``, why."""

    def __init__(self, file: str, path: str, message: str, line: int | None = None) -> None:
        self.file = file
        self.path = path
        self.message = message
        self.line = line
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {path}: {message}" if path else f"{where}: {message}")


class IllegalAction(FracasError):
    """An action refused when declared (C-ILLEGAL-1): names the rule, actor and round."""

    def __init__(self, rule: str, actor: str, rnd: int, message: str) -> None:
        self.rule = rule
        self.actor = actor
        self.round = rnd
        super().__init__(f"{rule}: {actor}, round {rnd}: {message}")


class UnknownSystem(FracasError):
    pass
