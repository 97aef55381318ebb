"""The tools that change something, none of which sends, submits or approves: add posting
URLs, start or cancel discovery, retry a failed stage, edit the profile (a new version),
regenerate or edit materials (truth-checked), prepare an application as a draft (an email
or a browser form's dry run) and record an application's outcome.

Approving materials or a message, sending an email and submitting a form stay with the
person, in jobctrl itself: there is no tool for them, and the descriptions say so
(tests/integration/test_mcp.py proves no tool reaches those functions).
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from jobctrl.app import (
    applications,
    apply,
    apply_browser_runs,
    discovery,
    jobs,
    material_edits,
    materials,
    profile_edit,
)
from jobctrl.app.activity import DiscoveryRunView
from jobctrl.app.applications import TrackedApplication
from jobctrl.app.apply_browser_runs import FormRun
from jobctrl.app.apply_views import ApplicationDetail
from jobctrl.app.discovery import DiscoveryCancelled, DiscoveryStarting
from jobctrl.app.jobs import AddedJob, RetryStarted
from jobctrl.app.material_edits import MaterialEdited
from jobctrl.app.materials import RegenerationStarted
from jobctrl.app.models import Items
from jobctrl.app.profile_edit import ProfileSaved
from jobctrl.domain.applications import Outcome
from jobctrl.domain.profile import Profile
from jobctrl.mcp.base import PERSON_ONLY, JobctrlMCP, tenant_home
from jobctrl.mcp.tools_read import JobRef, Kind

__all__ = ["TOOLS", "register"]

ACT = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
LOCAL = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


async def add_postings(
    ctx: Context,
    urls: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=2048)]],
        Field(min_length=1, max_length=50, description="The postings' URLs."),
    ],
) -> Items[AddedJob]:
    """Add job postings by URL and start preparing each (read the posting, then score it
    against the profile); a posting already added is found, not added twice."""
    added = await jobs.add_jobs(tenant_home(ctx), list(urls))
    return Items[AddedJob](items=added)


async def start_discovery(ctx: Context) -> DiscoveryRunView | DiscoveryStarting:
    """Search the configured job boards and feeds for new postings now (or join the run
    already in progress)."""
    return await discovery.start_discovery(tenant_home(ctx))


async def cancel_discovery(ctx: Context) -> DiscoveryCancelled:
    """Stop the discovery run in progress; what it found so far stays."""
    return await discovery.cancel_discovery(tenant_home(ctx))


async def retry_stage(
    ctx: Context,
    job: JobRef,
    stage: Annotated[
        str | None, Field(max_length=32, description="The failed stage; default: the first.")
    ] = None,
) -> RetryStarted:
    """Run a job's failed stage again, and the stages after it."""
    return await jobs.retry_stage(tenant_home(ctx), job, stage)


async def edit_profile(
    ctx: Context,
    profile: Annotated[
        Profile,
        Field(
            description="The whole profile (as show_profile's `profile`); the saved "
            "application answers are kept unless given."
        ),
    ],
) -> ProfileSaved:
    """Replace the person's profile with an edited one: validated whole first (a refused
    one changes nothing); a changed profile is a new version, and jobs scored on the old
    one show as stale. Keep to facts the person gave: materials may claim only these."""
    data = profile.model_dump(mode="json", exclude_unset=True)
    return await asyncio.to_thread(profile_edit.save_profile, tenant_home(ctx), data)


async def regenerate_materials(ctx: Context, job: JobRef) -> RegenerationStarted:
    """Write a new generation of a job's resume and cover letter; each is truth-checked
    against the profile. The approved generation stays until the person approves the new
    one."""
    return await materials.regenerate_materials(tenant_home(ctx), job)


async def write_cover_letter(ctx: Context, job: JobRef) -> RegenerationStarted:
    """Write the cover letter of a job whose letter was left to be asked for (or whose
    last letter the truth check refused); it is truth-checked like every letter."""
    return await materials.write_letter(tenant_home(ctx), job)


async def edit_material(
    ctx: Context,
    job: JobRef,
    kind: Kind,
    text: Annotated[
        str, Field(min_length=1, max_length=100_000, description="The edited text, whole.")
    ],
) -> MaterialEdited:
    """Save an edited resume or cover letter as a new draft: checked sentence by sentence
    against the profile (``findings`` name what the profile does not support; approval
    waits until they are gone) and rendered to PDF."""
    return await asyncio.to_thread(material_edits.edit_material, tenant_home(ctx), job, kind, text)


async def prepare_application(
    ctx: Context,
    job: JobRef,
    channel: Annotated[
        Literal["email", "browser"] | None, Field(description="How to apply.")
    ] = None,
    to: Annotated[
        list[str] | None, Field(max_length=20, description="Recipients (replace the current).")
    ] = None,
    subject: Annotated[
        str | None, Field(max_length=apply.MAX_SUBJECT, description="The email's subject.")
    ] = None,
    body: Annotated[
        str | None, Field(max_length=apply.MAX_BODY, description="The email's text.")
    ] = None,
    form_url: Annotated[
        str | None, Field(max_length=2048, description="The application form (browser).")
    ] = None,
) -> ApplicationDetail:
    """Prepare or edit a job's application as a draft: for email the exact message
    (recipients, subject, body, the approved PDFs); for a browser form, the form to
    prefill. Any change clears an approval."""
    return await asyncio.to_thread(
        apply.prepare_application,
        tenant_home(ctx),
        job,
        channel=channel,
        to=to,
        subject=subject,
        body=body,
        form_url=form_url,
    )


async def prefill_form_dry_run(
    ctx: Context,
    job: JobRef,
    url: Annotated[
        str | None, Field(max_length=2048, description="The form, when not the posting's.")
    ] = None,
) -> FormRun:
    """Fill a job's application form in a headless browser and close it: which fields
    were filled, which were left and why, and a screenshot. Nothing is submitted."""
    home = tenant_home(ctx)
    result = await asyncio.to_thread(apply_browser_runs.open_form, home, job, dry_run=True)
    assert isinstance(result, FormRun)  # a dry run always ends before answering
    return result


async def record_outcome(
    ctx: Context,
    application: Annotated[
        str, Field(min_length=1, max_length=64, description="A job id or prefix, or app-….")
    ],
    outcome: Annotated[Outcome, Field(description="What came of the application.")],
    note: Annotated[
        str | None, Field(max_length=applications.MAX_NOTE, description="Replaces the note.")
    ] = None,
    follow_up: Annotated[
        str | None, Field(max_length=10, description="A follow-up date, YYYY-MM-DD.")
    ] = None,
) -> TrackedApplication:
    """Record what came of an application (as the person told you), with a note and a
    follow-up date."""
    return await asyncio.to_thread(
        applications.set_application_outcome,
        tenant_home(ctx),
        application,
        outcome.value,
        note=note,
        follow_up=follow_up or None,
    )


TOOLS = (
    (add_postings, ACT),
    (start_discovery, ACT),
    (cancel_discovery, LOCAL),
    (retry_stage, ACT),
    (edit_profile, LOCAL),
    (regenerate_materials, ACT),
    (write_cover_letter, ACT),
    (edit_material, LOCAL),
    (prepare_application, LOCAL),
    (prefill_form_dry_run, ACT),
    (record_outcome, LOCAL),
)


def register(server: JobctrlMCP) -> None:
    """Every tool here, its description ending with what stays with the person."""
    for tool, hints in TOOLS:
        description = f"{inspect.getdoc(tool)}\n\n{PERSON_ONLY}"
        server.add_tool(tool, description=description, annotations=hints, structured_output=True)
