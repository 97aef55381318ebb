"""``POST /v1/apply/{job}/browser``: the Apply page's "Open the form in a browser" and "Dry
run" buttons — ``app.apply_browser_runs.open_form``, run in the server's thread pool (a
sync route), never on the event loop."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import ErrorDetail, ServerTenant, TenantHome, tenant_router
from jobctrl.app import apply_browser_runs
from jobctrl.app.apply_browser_runs import FormHandedOver, FormOpening, FormRun
from jobctrl.domain.errors import status_of

__all__ = ["router"]


class OpenForm(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    url: str | None = Field(
        None, max_length=2048, description="The application form, when not the posting's."
    )
    dry_run: bool = Field(
        False, alias="dryRun", description="Headless: fill, screenshot, close; no window."
    )


class FormRefused(FormRun):
    """A form that could not be used: the error, and the result."""

    error: ErrorDetail


router = tenant_router()
"""``POST /v1/apply/{job}/browser``. A real run opens its window on
the screen of the server's host: only a request of the server's own tenant may ask
for one (another tenant's is ``APPLY_NO_DISPLAY``; a dry run is anyone's)."""


@router.post(
    "/v1/apply/{job_id}/browser",
    tags=["apply"],
    response_model=FormRun | FormHandedOver | FormOpening,
    responses={
        400: {"model": FormRefused, "description": "the form could not be used (its code)"},
        409: {"description": "a prefill of this job is under way (APPLY_ATTEMPT_LIVE)"},
        503: {"description": "no display for a window (APPLY_NO_DISPLAY) or no Chromium"},
    },
)
def open_form(
    home: TenantHome, screen: ServerTenant, job_id: str, body: OpenForm | None = None
) -> FormRun | FormHandedOver | FormOpening | JSONResponse:
    """Prefill the job's application form: a dry run answers with the fields filled
    and left and the screenshot artifact; a real run opens a window where the server
    runs and answers at hand-over (``watching: true``): the person submits it there.
    A form that could not be used is an error body with its code and the result."""
    given = body or OpenForm()
    result = apply_browser_runs.open_form(
        home, job_id, url=given.url, dry_run=given.dry_run, screen_of=screen
    )
    if isinstance(result, FormRun) and result.status == "form_unavailable":
        code = result.code or ""
        refused = {"error": {"code": code, "message": result.message}, **result.to_json()}
        return JSONResponse(refused, status_of(code).http)
    return result
