"""What goes wrong reading a resume file, said in one line naming the file."""

from __future__ import annotations

from pydantic import ValidationError

from jobctrl.domain.errors import PROFILE_IMPORT, ConfigError

__all__ = ["ProfileImportError", "first_problem"]


class ProfileImportError(ConfigError, ValueError):
    """A profile file could not be read: bad JSON/YAML, neither known shape, a document
    too large, encrypted or without a text layer."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=PROFILE_IMPORT)


def first_problem(exc: ValidationError) -> str:
    """The first validation problem in one line: where, what (no input values), how many."""
    first = exc.errors(include_input=False, include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    more = f" ({exc.error_count()} problems)" if exc.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}"
