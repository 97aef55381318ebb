"""The application tracker's HTTP routes: the list, an outcome for one application, and
the career-ops / CSV export — the same ``app.applications`` functions the CLI calls."""

from __future__ import annotations

from fastapi import Query
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import applications
from jobctrl.app.applications import TrackedApplication
from jobctrl.app.models import Items

__all__ = ["router"]

_MEDIA = {"career-ops": "text/markdown; charset=utf-8", "csv": "text/csv; charset=utf-8"}
_FILE = {"career-ops": "applications.md", "csv": "applications.csv"}


class SetOutcome(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    outcome: str = Field(max_length=32, description=f"One of {', '.join(applications.OUTCOMES)}.")
    note: str | None = Field(
        None, max_length=applications.MAX_NOTE, description="Replaces the application's note."
    )
    follow_up: str | None = Field(
        None, alias="followUp", max_length=10, description="A date, YYYY-MM-DD ('' = unchanged)."
    )


router = tenant_router()
"""``/v1/applications`` routes."""


@router.get("/v1/applications", tags=["applications"], response_model=Items[TrackedApplication])
def list_applications(home: TenantHome) -> Items[TrackedApplication]:
    """Every application (the tracker), most recently changed first."""
    return Items(items=applications.list_applications(home))


@router.get(
    "/v1/applications/export",
    tags=["applications"],
    response_class=Response,
    response_model=None,
    responses={200: {"content": {"text/markdown": {}, "text/csv": {}}}},
)
def export_applications(
    home: TenantHome,
    fmt: str = Query("career-ops", alias="format", pattern="^(career-ops|csv)$"),
) -> Response:
    """The tracker as career-ops ``applications.md`` or as CSV, as a download."""
    text = applications.export_applications(home, fmt)
    return Response(
        text,
        media_type=_MEDIA[fmt],
        headers={"Content-Disposition": f'attachment; filename="{_FILE[fmt]}"'},
    )


@router.post(
    "/v1/applications/{ref}/outcome", tags=["applications"], response_model=TrackedApplication
)
def set_outcome(home: TenantHome, ref: str, body: SetOutcome) -> TrackedApplication:
    """Record the outcome of a job's application (``ref``: a job id or prefix, or an
    ``app-…`` id), with a note and a follow-up date (as `jobctrl applications set`)."""
    return applications.set_application_outcome(
        home, ref, body.outcome, note=body.note, follow_up=body.follow_up or None
    )
