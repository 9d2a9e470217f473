"""Errors a user can meet: each names where and why, and maps to an exit code.

Exit codes: 0 ok, 1 a check failed (or a damaged log), 2 bad input, 70 a bug in fracas
(EX_SOFTWARE: a short traceback and a request to report it).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2
#: Anything but bad input or an OS error: fracas is wrong, not the input (sysexits EX_SOFTWARE).
EXIT_BUG = 70


class FracasError(Exception):
    """Bad input: printed as one line, exit code 2, never a traceback."""

    exit_code = EXIT_BAD_INPUT


class DamagedLog(FracasError):
    """A fracas log whose content is damaged: named by its line, exit code 1 (a check failed)."""

    exit_code = EXIT_CHECK_FAILED


class ScenarioError(FracasError):
    """A scenario that does not load: ``file:line:column`` (or ``file: byte N`` for bytes that
    are not text), the ``$.path``, what was expected and what was found."""

    def __init__(
        self,
        file: str,
        path: str,
        message: str,
        line: int | None = None,
        column: int | None = None,
        *,
        offset: int | None = None,
    ) -> None:
        self.file = file
        self.path = path
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
        if offset is not None:
            where = f"{file}: byte {offset}"
        elif line is not None:
            where = f"{file}:{line}:{column or 1}"
        else:
            where = file
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
