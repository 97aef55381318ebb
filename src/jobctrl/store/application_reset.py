"""Resetting an abandoned application (issue 34): the person takes back "abandoned", and
the job is the apply loop's to prepare again. The application goes back to an unprepared
draft — no channel, no approval, no error — so the loop's candidates (a rendered resume,
no prepared application) include the job again, and automatic Tailor/Cover's Apply
decline veto (an abandoned application) no longer holds. Its outcome, notes and history
are kept; the event says it was reset."""

from __future__ import annotations

from sqlalchemy import update

from jobctrl.domain import events as ev
from jobctrl.domain.applications import ApplicationStatus
from jobctrl.domain.errors import APPLY_BAD_RESOLUTION, JobctrlError
from jobctrl.store.application_tables import applications as A
from jobctrl.store.applications import require
from jobctrl.store.store import WriteTx

__all__ = ["ABANDON_RESET", "reset_abandoned"]

ABANDON_RESET = "abandon_reset"  # ApplicationCancelled's reason: the person's reset


def reset_abandoned(tx: WriteTx, application_id: str) -> None:
    """Put an abandoned application back to an unprepared draft; refused for any other
    status (``APPLY_BAD_RESOLUTION``: only "abandoned" is taken back)."""
    row = require(tx, application_id)
    if row["status"] != ApplicationStatus.ABANDONED.value:
        raise JobctrlError(
            f"application {application_id} is {row['status']}: only an abandoned "
            "application can be reset",
            code=APPLY_BAD_RESOLUTION,
        )
    tx.conn.execute(
        update(A)
        .where(A.c.tenant_id == tx.tenant, A.c.id == application_id)
        .values(
            status=ApplicationStatus.DRAFT.value,
            channel=None,
            approval_digest=None,
            approved_at=None,
            approval_expires_at=None,
            error_code=None,
            form_url=None,
            updated_at=tx.now,
        )
    )
    tx.append(
        ev.ApplicationCancelled(
            application_id=application_id,
            job_id=row["job_id"],
            reason=ABANDON_RESET,
            status=ApplicationStatus.DRAFT.value,
        ),
        key=f"application-reset:{application_id}:{tx.now.isoformat()}",
    )
