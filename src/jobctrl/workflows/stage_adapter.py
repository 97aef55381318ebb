"""What the apply and contact research activity classes share: the stage context they act
with (``for_tenant`` per input), and ``_run``, the one way their work's failures cross into
a workflow's history. A ``JobctrlError`` becomes an ``ApplicationError`` whose type is its
code; a cancel passes through; anything else is logged (to the subclass's module logger)
and crosses as ``INTERNAL_ERROR`` only, never as text.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import ClassVar, TypeVar

from temporalio.exceptions import CancelledError

from jobctrl.domain.errors import STAGE_INTERNAL_ERROR, JobctrlError, StageError
from jobctrl.stages.context import StageContext
from jobctrl.workflows.activities import as_application_error

__all__ = ["StageAdapter"]

T = TypeVar("T")


class StageAdapter:
    """Activities adapting Temporal to a stage module, acting with ``ctx``."""

    label: ClassVar[str]  # how the log names these activities' work
    retry_unexpected: ClassVar[bool] = False  # whether Temporal retries an unexpected error

    def __init__(self, ctx: StageContext) -> None:
        self.ctx = ctx

    def _run(self, what: str, work: Callable[[], T]) -> T:
        log = logging.getLogger(type(self).__module__)
        try:
            return work()
        except JobctrlError as error:
            log.warning("%s: %s: %s", self.label, what, error.code)
            raise as_application_error(error) from None
        except (CancelledError, asyncio.CancelledError):
            raise  # the run is being cancelled, or the worker stops: not an error of ours
        except Exception:
            log.exception("%s: unexpected error in %s", self.label, what)
            internal = StageError(
                STAGE_INTERNAL_ERROR,
                f"unexpected error in {what}; see the worker log",
                retryable=self.retry_unexpected,
            )
            raise as_application_error(internal) from None
