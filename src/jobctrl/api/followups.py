"""The follow-up routes: the applications due one, and a follow-up's draft, approval, send
and resolve — the same ``app.followups`` functions `jobctrl followups` calls."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import ErrorDetail, TenantHome, tenant_router
from jobctrl.api.send_answers import send_answer
from jobctrl.app import followups
from jobctrl.app.apply import MAX_BODY
from jobctrl.app.followups import FollowupDue
from jobctrl.app.models import Items
from jobctrl.app.outbound import MessageView, OutboundSendView

__all__ = ["router"]


class DraftFollowup(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    to: list[str] | None = Field(
        None, max_length=20, description="The recipients (default: the application's)."
    )
    body: str | None = Field(
        None, max_length=MAX_BODY, description="The text (default: the one jobctrl writes)."
    )


class ResolveFollowup(BaseModel):
    model_config = ConfigDict(extra="forbid")

    resolution: str = Field(pattern="^(sent|not-sent)$", description="What happened.")


class FollowupSendRefused(OutboundSendView):
    """A send refused before its data (nothing was sent): the error, and the result."""

    error: ErrorDetail


router = tenant_router()
"""``/v1/followups`` and ``/v1/followups/{job}/...``."""


@router.get("/v1/followups", tags=["followups"], response_model=Items[FollowupDue])
def due(home: TenantHome) -> Items[FollowupDue]:
    """The applications a follow-up is due for now, longest due first."""
    return Items(items=followups.list_followups(home))


@router.get("/v1/followups/{job_id}", tags=["followups"], response_model=MessageView)
def show(home: TenantHome, job_id: str) -> MessageView:
    """The job's newest follow-up with its exact email."""
    return followups.show_followup(home, job_id)


@router.post("/v1/followups/{job_id}/draft", tags=["followups"], response_model=MessageView)
def draft(home: TenantHome, job_id: str, body: DraftFollowup | None = None) -> MessageView:
    """Write (or rewrite) the follow-up due, truth-checked, in the application's thread."""
    given = body or DraftFollowup()
    return followups.draft_followup(home, job_id, to=given.to, body=given.body)


@router.post("/v1/followups/{job_id}/approve", tags=["followups"], response_model=MessageView)
def approve(home: TenantHome, job_id: str) -> MessageView:
    """Approve exactly the follow-up as it is now, for 15 minutes."""
    return followups.approve_followup(home, job_id)


@router.post(
    "/v1/followups/{job_id}/send",
    tags=["followups"],
    response_model=OutboundSendView,
    responses={
        400: {"model": FollowupSendRefused, "description": "refused: nothing was sent"},
        502: {"model": FollowupSendRefused, "description": "refused before the data"},
    },
)
def send(home: TenantHome, job_id: str) -> OutboundSendView | JSONResponse:
    """Send the approved follow-up once: ``sent``, or ``unknown`` (check the Sent folder,
    then resolve); a refusal (nothing sent) is an error with its code."""
    return send_answer(followups.send_followup(home, job_id))


@router.post("/v1/followups/{job_id}/resolve", tags=["followups"], response_model=MessageView)
def resolve(home: TenantHome, job_id: str, body: ResolveFollowup) -> MessageView:
    """Say what happened to a follow-up whose send is in doubt: sent or not-sent."""
    return followups.resolve_followup(home, job_id, body.resolution)
