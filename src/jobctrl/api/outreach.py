"""The outreach routes: a message to a contact about a job — draft or edit, show, approve,
send (an email, once, within the day's cap) and resolve; the same ``app.outreach``
functions `jobctrl outreach` calls."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import ErrorDetail, TenantHome, tenant_router
from jobctrl.api.send_answers import send_answer
from jobctrl.app import outreach
from jobctrl.app.apply import MAX_BODY, MAX_SUBJECT
from jobctrl.app.outbound import MessageView, OutboundSendView

__all__ = ["router"]


class DraftOutreach(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    channel: str | None = Field(None, pattern="^(email|note)$", description="Email or note.")
    to: list[str] | None = Field(None, max_length=20, description="The recipients.")
    subject: str | None = Field(None, max_length=MAX_SUBJECT, description="The subject.")
    body: str | None = Field(None, max_length=MAX_BODY, description="The text.")


class ResolveOutreach(BaseModel):
    model_config = ConfigDict(extra="forbid")

    resolution: str = Field(pattern="^(sent|not-sent)$", description="What happened.")


class OutreachSendRefused(OutboundSendView):
    """A send refused before its data (nothing was sent): the error, and the result."""

    error: ErrorDetail


router = tenant_router()
"""``/v1/outreach/{contact_id}/{job_id}`` and its commands."""


_PATH = "/v1/outreach/{contact_id}/{job_id}"


@router.get(_PATH, tags=["outreach"], response_model=MessageView)
def show(home: TenantHome, contact_id: str, job_id: str) -> MessageView:
    """The message to the contact about the job, with its exact text."""
    return outreach.show_outreach(home, contact_id, job_id)


@router.post(
    "/v1/outreach/{contact_id}/{job_id}/draft", tags=["outreach"], response_model=MessageView
)
def draft(
    home: TenantHome, contact_id: str, job_id: str, body: DraftOutreach | None = None
) -> MessageView:
    """Write or edit the message (truth-checked); any change clears an approval."""
    given = body or DraftOutreach()
    return outreach.draft_outreach(
        home,
        contact_id,
        job_id,
        channel=given.channel,
        to=given.to,
        subject=given.subject,
        body=given.body,
    )


@router.post(
    "/v1/outreach/{contact_id}/{job_id}/approve", tags=["outreach"], response_model=MessageView
)
def approve(home: TenantHome, contact_id: str, job_id: str) -> MessageView:
    """Approve exactly the email as it is now, for 15 minutes."""
    return outreach.approve_outreach(home, contact_id, job_id)


@router.post(
    "/v1/outreach/{contact_id}/{job_id}/send",
    tags=["outreach"],
    response_model=OutboundSendView,
    responses={
        400: {"model": OutreachSendRefused, "description": "refused: nothing was sent"},
        502: {"model": OutreachSendRefused, "description": "refused before the data"},
    },
)
def send(home: TenantHome, contact_id: str, job_id: str) -> OutboundSendView | JSONResponse:
    """Send the approved email once (at most outreach.max_per_day a day): ``sent``, or
    ``unknown`` (check the Sent folder, then resolve); a refusal is an error with its code."""
    return send_answer(outreach.send_outreach(home, contact_id, job_id))


@router.post(
    "/v1/outreach/{contact_id}/{job_id}/resolve", tags=["outreach"], response_model=MessageView
)
def resolve(home: TenantHome, contact_id: str, job_id: str, body: ResolveOutreach) -> MessageView:
    """Say what happened to an email whose send is in doubt: sent or not-sent."""
    return outreach.resolve_outreach(home, contact_id, job_id, body.resolution)
