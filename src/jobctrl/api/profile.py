"""The profile over HTTP: ``GET /v1/profile`` (the whole profile and its version, as
`jobctrl profile show --json`), ``PUT /v1/profile`` (the Profile page's save: a new
version), ``POST /v1/profile/import?filename=NAME`` (a resume file as the request body,
imported as `jobctrl profile import` would), and the saved application answers:
``GET /v1/profile/answers`` and ``PATCH /v1/profile/answers`` (the same ``app.answers``
functions the Settings page's form calls; config.yaml is edited in place with its comments
kept)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import Body, Query, Request
from fastapi.responses import HTMLResponse

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.api.pages import render_page
from jobctrl.app import answers, configuration, profile_edit
from jobctrl.app.answers import AnswersChanged, SavedAnswers
from jobctrl.app.configuration import ProfileView
from jobctrl.app.models import dump
from jobctrl.app.profile import ProfileImported
from jobctrl.app.profile_edit import MAX_UPLOAD_BYTES, ProfileSaved
from jobctrl.domain.errors import INVALID_INPUT, JobctrlError

__all__ = ["router"]


router = tenant_router()
"""``/v1/profile`` and ``/v1/profile/answers``."""


@router.get("/profile", response_class=HTMLResponse, include_in_schema=False)
def profile_page(home: TenantHome) -> HTMLResponse:
    """The Profile page: every part of the profile, editable; a resume file to start from;
    the saved answers."""
    return render_page(
        "profile.html",
        nav="profile",
        profile=dump(configuration.show_profile(home)),
        answers=dump(answers.answer_rows(home)),
    )


@router.get("/v1/profile", tags=["profile"], response_model=ProfileView)
def show_profile(home: TenantHome) -> ProfileView:
    """The whole current profile and its version."""
    return configuration.show_profile(home)


@router.put("/v1/profile", tags=["profile"], response_model=ProfileSaved)
def save_profile(
    home: TenantHome,
    profile: Annotated[
        dict[str, Any],
        Body(examples=[{"name": "Ada Example", "skills": ["Python"], "experience": []}]),
    ],
) -> ProfileSaved:
    """Replace the profile (config.yaml's ``profile:`` shape; the saved answers are kept
    unless given): validated whole first, a refused one changes nothing; a changed profile
    is a new version."""
    return profile_edit.save_profile(home, profile)


@router.post("/v1/profile/import", tags=["profile"], response_model=ProfileImported)
async def import_profile(
    home: TenantHome,
    request: Request,
    filename: Annotated[str, Query(max_length=200, examples=["my-resume.pdf"])],
) -> ProfileImported:
    """Import a resume file sent as the request body (PDF, DOCX, Markdown, text, JSON
    Resume or RenderCV; the file name's suffix says which), replacing the profile and
    keeping the saved answers."""
    content = bytearray()
    async for chunk in request.stream():
        content += chunk
        if len(content) > MAX_UPLOAD_BYTES:
            raise JobctrlError(
                f"{filename}: a resume file may be at most {MAX_UPLOAD_BYTES // 2**20} MB",
                code=INVALID_INPUT,
            )
    return await asyncio.to_thread(profile_edit.import_uploaded, home, filename, bytes(content))


@router.get("/v1/profile/answers", tags=["profile"], response_model=SavedAnswers)
def saved_answers(home: TenantHome) -> SavedAnswers:
    """The saved application answers (unanswered ones empty)."""
    return SavedAnswers(answers=answers.saved_answers(home))


@router.patch("/v1/profile/answers", tags=["profile"], response_model=AnswersChanged)
def change_answers(
    home: TenantHome,
    changes: Annotated[
        dict[str, Any],
        Body(examples=[{"notice_period": "3 months", "needs_sponsorship": False}]),
    ],
) -> AnswersChanged:
    """Change saved answers (all validated, with the whole config, before any is
    written; a refused value changes nothing). ``null``/``""``/``[]`` clears one."""
    return answers.change_answers(home, changes)
