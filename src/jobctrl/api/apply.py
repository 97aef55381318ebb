"""The Apply routes: the queue, one job's application with its exact message, and the
email commands (prepare, approve, send, resolve) — the same ``app.apply`` functions the
CLI calls. Registered after ``/v1/apply/loop`` so ``loop`` is never read as a job."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import ErrorDetail, TenantHome, tenant_router
from jobctrl.api.send_answers import send_answer
from jobctrl.app import apply, apply_views
from jobctrl.app.apply import SendView
from jobctrl.app.apply_views import ApplicationDetail, NoApplication, QueuedJob
from jobctrl.app.models import Items

__all__ = ["router"]


class Prepare(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    channel: str | None = Field(None, pattern="^(email|browser)$", description="How to apply.")
    to: list[str] | None = Field(
        None, max_length=20, description="The recipients (replaces the current ones)."
    )
    subject: str | None = Field(None, max_length=apply.MAX_SUBJECT, description="The subject.")
    body: str | None = Field(None, max_length=apply.MAX_BODY, description="The email's text.")
    form_url: str | None = Field(
        None, alias="formUrl", max_length=2048, description="The form (browser channel)."
    )


class Resolve(BaseModel):
    model_config = ConfigDict(extra="forbid")

    resolution: str = Field(
        pattern="^(sent|not-sent|submitted|abandoned)$", description="What happened."
    )


router = tenant_router()
"""``/v1/apply`` and ``/v1/apply/{job}/...``."""


@router.get("/v1/apply", tags=["apply"], response_model=Items[QueuedJob])
def queue(home: TenantHome) -> Items[QueuedJob]:
    """Prepared jobs, best fit first: channel, PDFs, what is missing, status."""
    return Items(items=apply_views.apply_queue(home))


@router.get("/v1/apply/{job_id}", tags=["apply"], response_model=ApplicationDetail | NoApplication)
def show(home: TenantHome, job_id: str) -> ApplicationDetail | NoApplication:
    """The job's application with its exact message (``application: null`` if none)."""
    return apply_views.show_application(home, job_id)


@router.post("/v1/apply/{job_id}/prepare", tags=["apply"], response_model=ApplicationDetail)
def prepare(home: TenantHome, job_id: str, body: Prepare | None = None) -> ApplicationDetail:
    """Prepare or edit the job's application; any change clears an approval."""
    given = body or Prepare()
    return apply.prepare_application(
        home,
        job_id,
        channel=given.channel,
        to=given.to,
        subject=given.subject,
        body=given.body,
        form_url=given.form_url,
    )


@router.post("/v1/apply/{job_id}/approve", tags=["apply"], response_model=ApplicationDetail)
def approve(home: TenantHome, job_id: str) -> ApplicationDetail:
    """Approve exactly the message as it is now, for 15 minutes."""
    return apply.approve_application(home, job_id)


class SendRefused(SendView):
    """A send refused before its data (nothing was sent): the error, and the result."""

    error: ErrorDetail


@router.post(
    "/v1/apply/{job_id}/send",
    tags=["apply"],
    response_model=SendView,
    responses={
        400: {"model": SendRefused, "description": "refused (not configured): nothing was sent"},
        502: {"model": SendRefused, "description": "refused before the data: nothing was sent"},
    },
)
def send(home: TenantHome, job_id: str) -> SendView | JSONResponse:
    """Send the approved email once: ``status`` ``sent``, or ``unknown`` (check the Sent
    folder, then resolve); a refusal (nothing sent) is an error with its code."""
    return send_answer(apply.send_application(home, job_id))


@router.post("/v1/apply/{job_id}/resolve", tags=["apply"], response_model=ApplicationDetail)
def resolve(home: TenantHome, job_id: str, body: Resolve) -> ApplicationDetail:
    """Say what happened: sent, not-sent, submitted or abandoned."""
    return apply.resolve_application(home, job_id, body.resolution)


@router.post("/v1/apply/{job_id}/reset", tags=["apply"], response_model=ApplicationDetail)
def reset(home: TenantHome, job_id: str) -> ApplicationDetail:
    """Take back an abandoned application: an unprepared draft again, so the apply loop
    may prepare the job once more. Any other status: 409 ``APPLY_BAD_RESOLUTION``."""
    return apply.reset_application(home, job_id)
