"""The tools for the people behind a posting and the messages to them (issue 33's app
functions): research a job's contacts, read them, and draft outreach and follow-up emails
(truth-checked like every draft). Approving and sending a message stay with the person:
no tool here approves, sends or resolves one.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Annotated, Literal

from mcp.server.mcpserver import Context
from mcp_types import ToolAnnotations
from pydantic import Field

from jobctrl.app import apply, contact_research, contacts, followups, outreach
from jobctrl.app.contact_research import ResearchTask
from jobctrl.app.contacts import ContactView, JobPeople
from jobctrl.app.followups import FollowupDue
from jobctrl.app.models import Items
from jobctrl.app.outbound import MessageView
from jobctrl.mcp.base import PERSON_ONLY, JobctrlMCP, tenant_home
from jobctrl.mcp.tools_read import READ, JobRef

__all__ = ["TOOLS", "register"]

ContactRef = Annotated[
    str, Field(min_length=1, max_length=64, description="A contact id or its prefix.")
]
Recipients = Annotated[
    list[str] | None, Field(max_length=20, description="Recipients (replace the current).")
]
Body = Annotated[str | None, Field(max_length=apply.MAX_BODY, description="The text.")]
DRAFT = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
RESEARCH = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)


async def research_contacts(
    ctx: Context,
    job: JobRef,
    urls: Annotated[
        list[Annotated[str, Field(max_length=2048)]],
        Field(max_length=10, description="Pages to read besides the posting (team pages)."),
    ] = [],  # noqa: B006  # a schema default; never mutated
    paste: Annotated[
        str | None, Field(max_length=50_000, description="Text the person pasted to read.")
    ] = None,
) -> ResearchTask:
    """Start finding the people behind a job's posting (the hiring manager, the
    recruiter) on the posting and the pages given; the run's candidates show in
    job_people once it has ended. Only sources the research policy allows are read."""
    return await contact_research.research(tenant_home(ctx), job, urls=urls, paste=paste)


async def job_people(ctx: Context, job: JobRef) -> JobPeople:
    """The people of one job: its newest research run, the candidates found (with
    their evidence) and the contacts kept."""
    return await asyncio.to_thread(contacts.job_people, tenant_home(ctx), job)


async def list_contacts(
    ctx: Context,
    company: Annotated[
        str | None, Field(max_length=200, description="Only this company's contacts.")
    ] = None,
) -> Items[ContactView]:
    """The person's contacts, with the jobs each one is linked to."""
    return await asyncio.to_thread(contacts.list_contacts, tenant_home(ctx), company)


async def list_followups(ctx: Context) -> Items[FollowupDue]:
    """Applications a follow-up is due for now, longest due first."""
    due = await asyncio.to_thread(followups.list_followups, tenant_home(ctx))
    return Items[FollowupDue](items=due)


async def draft_outreach(
    ctx: Context,
    contact: ContactRef,
    job: JobRef,
    channel: Annotated[
        Literal["email", "note"] | None,
        Field(description="An email, or a note for the person to copy (e.g. into LinkedIn)."),
    ] = None,
    to: Recipients = None,
    subject: Annotated[
        str | None, Field(max_length=apply.MAX_SUBJECT, description="The subject.")
    ] = None,
    body: Body = None,
) -> MessageView:
    """Write (or edit) a message to a contact about a job: the parts given, else what the
    open draft has, else what jobctrl writes from the record and the profile; checked
    against the profile like every draft. Any change clears an approval."""
    return await asyncio.to_thread(
        outreach.draft_outreach,
        tenant_home(ctx),
        contact,
        job,
        channel=channel,
        to=to,
        subject=subject,
        body=body,
    )


async def draft_followup(
    ctx: Context, job: JobRef, to: Recipients = None, body: Body = None
) -> MessageView:
    """Write (or rewrite) the follow-up due for a job's application, in its email's
    thread: the text given, else written from the record and the profile;
    truth-checked. Any change clears an approval."""
    return await asyncio.to_thread(
        followups.draft_followup, tenant_home(ctx), job, to=to, body=body
    )


TOOLS = (
    (research_contacts, RESEARCH),
    (job_people, READ),
    (list_contacts, READ),
    (list_followups, READ),
    (draft_outreach, DRAFT),
    (draft_followup, DRAFT),
)


def register(server: JobctrlMCP) -> None:
    """Every tool here, its description ending with what stays with the person."""
    for tool, hints in TOOLS:
        description = f"{inspect.getdoc(tool)}\n\n{PERSON_ONLY}"
        server.add_tool(tool, description=description, annotations=hints, structured_output=True)
