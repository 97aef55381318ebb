"""The browser extension's routes (issue 32): pairing with a one-time code, saving a
posting from the person's browser, a page's status, and the jobs waiting for the
browser. An extension token opens only the last three (api/security.py); the pairing
route needs none (its code is the credential)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from jobctrl.api.deps import EXTENSION_STATE, TenantHome, tenant_router
from jobctrl.app import captures
from jobctrl.app import extension as app_extension
from jobctrl.app.captures import BrowserTasks, Capture, CaptureSaved, CaptureStatus
from jobctrl.app.extension import Paired, PairingCode
from jobctrl.domain.errors import FORBIDDEN, PAYLOAD_TOO_LARGE, JobctrlError
from jobctrl.domain.extension import (
    CAPTURE_BODY_LIMIT,
    CAPTURE_DESCRIPTION_LIMIT,
    CAPTURE_HTML_LIMIT,
    extension_origin,
)

__all__ = ["router"]

router = tenant_router(tags=["extension"])


class PairBody(BaseModel):
    code: str = Field(min_length=4, max_length=32, description="The code `extension pair` showed.")
    name: str | None = Field(None, max_length=64, description="A name for this extension.")


class CodeBody(BaseModel):
    name: str | None = Field(None, max_length=64, description="A name for the extension.")


class CaptureBody(BaseModel):
    """What the extension read on the page (only ``url`` is required)."""

    model_config = ConfigDict(extra="forbid")
    url: str = Field(min_length=1, max_length=2048, description="The posting's URL.")
    html: str | None = Field(
        None, max_length=CAPTURE_HTML_LIMIT, description="The page's HTML (sanitised here)."
    )
    jsonld: Any = Field(None, description="The page's JobPosting JSON-LD (object, list or text).")
    title: str | None = Field(None, max_length=2000)
    company: str | None = Field(None, max_length=2000)
    location: str | None = Field(None, max_length=2000)
    description: str | None = Field(
        None, max_length=CAPTURE_DESCRIPTION_LIMIT, description="The description as read."
    )


@router.post("/v1/extension/pair", response_model=Paired)
def pair(home: TenantHome, request: Request, body: PairBody) -> Paired:
    """Trade a one-time pairing code for the extension's own token (shown once), scoped
    to captures, their status and tasks. A used, expired or unknown code: 403."""
    origin = request.headers.get("origin")
    return app_extension.pair(
        home, body.code, body.name, origin if extension_origin(origin) else None
    )


@router.post("/v1/extension/codes", status_code=201, response_model=PairingCode)
def pairing_code(home: TenantHome, body: CodeBody | None = None) -> PairingCode:
    """A one-time pairing code for the browser extension (ten minutes, one use), as
    `jobctrl extension pair` shows it (the Settings page's button). An extension's own
    token cannot ask for one."""
    return app_extension.make_code(home, body.name if body else None)


async def _bounded_body(request: Request, limit: int) -> bytes:
    too_large = JobctrlError(
        f"the page sent is too large to save (more than {limit // (1024 * 1024)} MB)",
        code=PAYLOAD_TOO_LARGE,
    )
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise too_large
    return bytes(data)


@router.post(
    "/v1/captures",
    status_code=201,
    response_model=CaptureSaved,
    responses={413: {"description": "The body is over 2 MB"}},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": CaptureBody.model_json_schema()}},
        }
    },
)
async def save_capture(home: TenantHome, request: Request) -> CaptureSaved:
    """Save the posting on the person's page (needs the extension's token): the job is
    created as `add` creates one, or found, and prepared from this snapshot without
    fetching; a job waiting for the browser continues. ``created``: this call made it.
    413 over 2 MB; 422 a field too long (a description over 100,000 characters)."""
    name = request.scope.get("state", {}).get(EXTENSION_STATE)
    if name is None:
        raise JobctrlError(
            "send the browser extension's token (jobctrl extension pair)", code=FORBIDDEN
        )
    data = await _bounded_body(request, CAPTURE_BODY_LIMIT)
    try:
        body = CaptureBody.model_validate_json(data or b"{}")
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False, include_input=False)) from None
    saved = await captures.save_capture(home, Capture(**body.model_dump()), name)
    await asyncio.to_thread(app_extension.seen, home, name)
    return saved


@router.get("/v1/captures/status", response_model=CaptureStatus)
def capture_status(
    home: TenantHome, url: str = Query(min_length=1, max_length=2048)
) -> CaptureStatus:
    """Whether jobctrl has the posting at ``url``: its job, score and next action."""
    return captures.capture_status(home, url)


@router.get("/v1/extension/tasks", response_model=BrowserTasks)
def browser_tasks(home: TenantHome) -> BrowserTasks:
    """The jobs waiting for the person's browser (their site refused a robot): the
    extension opens each in a background tab at human pace and posts it back. None while
    the queue is stopped (`jobctrl extension tasks --stop`)."""
    return captures.browser_tasks(home)
