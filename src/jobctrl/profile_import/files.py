"""Reading a resume file: a regular file only, its size checked before a byte is read.

``profile import /dev/zero`` read without end and a FIFO blocked the command (issue 30):
a device, a pipe or a folder is refused by its type, and a file past its limit by its
size, before it is opened; text is then read through one descriptor checked again (a
file swapped for a pipe in between is refused too, never waited on).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from jobctrl.profile_import.errors import ProfileImportError

__all__ = ["check_resume_file", "read_resume_text"]


def check_resume_file(path: Path, limit: int) -> None:
    """Refuse ``path`` unless it is a regular file of at most ``limit`` bytes
    (``FileNotFoundError`` when there is none)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ProfileImportError(f"{path}: cannot be read ({exc.strerror})") from None
    _check(path, info, limit)


def read_resume_text(path: Path, limit: int, encoding: str = "utf-8") -> str:
    """The text of the regular file ``path`` (at most ``limit`` bytes), decoded."""
    check_resume_file(path, limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO swapped in: no wait
    except OSError as exc:
        raise ProfileImportError(f"{path}: cannot be read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as file:
        _check(path, os.fstat(file.fileno()), limit)
        data = file.read(limit + 1)
    if len(data) > limit:
        raise _too_large(path, limit)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise ProfileImportError(f"{path}: not UTF-8 text") from None


def _check(path: Path, info: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        what = "a folder" if stat.S_ISDIR(info.st_mode) else "a device or a pipe"
        raise ProfileImportError(f"{path}: is {what}, not a resume file")
    if info.st_size > limit:
        raise _too_large(path, limit)


def _too_large(path: Path, limit: int) -> ProfileImportError:
    return ProfileImportError(
        f"{path}: larger than {limit // 1_000_000} MB; a resume file is a resume, not a database"
    )
