"""Contact research and contacts over HTTP (issue 33): the same ``app.contact_research``
and ``app.contacts`` functions as `jobctrl contacts`, every route acting for the tenant
the router resolves."""

from __future__ import annotations

from fastapi import Query, Response
from pydantic import BaseModel, ConfigDict, Field

from jobctrl.api.deps import TenantHome, tenant_router
from jobctrl.app import contact_research, contacts
from jobctrl.app.contact_research import CandidateView, Confirmed, Dismissed, ResearchTask
from jobctrl.app.contacts import ContactDetail, ContactView, JobPeople, Removed
from jobctrl.app.models import Items
from jobctrl.domain.contacts import MAX_SOURCES, PASTE_LIMIT, ContactRole

__all__ = ["router"]

ROLE_PATTERN = "^(" + "|".join(r.value for r in ContactRole) + ")$"


class StartResearch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sources: list[str] = Field(
        default_factory=list,
        max_length=MAX_SOURCES,
        description="Pages to read: the company's own team or about pages (another site "
        "only when contacts.sources allows any_pages).",
    )
    paste: str | None = Field(None, max_length=PASTE_LIMIT, description="Text to read.")
    request_id: str | None = Field(
        None, alias="requestId", max_length=64, description="A new run for the same sources."
    )
    wait: bool = Field(False, description="Answer when the run has ended.")


class CandidateIds(BaseModel):
    model_config = ConfigDict(extra="forbid")
    candidate_ids: list[str] = Field(alias="candidateIds", min_length=1, max_length=200)


class NewContact(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=200)
    company: str | None = Field(None, max_length=200)
    job_id: str | None = Field(None, alias="jobId", max_length=64)
    role: str = Field("team_member", pattern=ROLE_PATTERN)
    email: str | None = Field(None, max_length=320)
    note: str | None = Field(None, max_length=2000)


router = tenant_router()


@router.post("/v1/jobs/{job_id}/contacts/research", tags=["contacts"], response_model=ResearchTask)
async def start_research(
    home: TenantHome, job_id: str, body: StartResearch | None = None
) -> ResearchTask:
    """Start (or join) a research run for the job's contacts over the sources given and
    allowed (as `jobctrl contacts research`); 403 for a source the policy refuses."""
    body = body or StartResearch()
    return await contact_research.research(
        home, job_id, urls=body.sources, paste=body.paste, request_id=body.request_id,
        wait=body.wait,
    )  # fmt: skip


@router.get("/v1/jobs/{job_id}/contacts", tags=["contacts"], response_model=JobPeople)
def job_people(home: TenantHome, job_id: str) -> JobPeople:
    """The job's People: its newest research run, candidates and contacts."""
    return contacts.job_people(home, job_id)


@router.get(
    "/v1/jobs/{job_id}/contacts/candidates", tags=["contacts"], response_model=Items[CandidateView]
)
def job_candidates(home: TenantHome, job_id: str) -> Items[CandidateView]:
    """The people research found for the job (as `jobctrl contacts candidates`)."""
    return contact_research.job_candidates(home, job_id)


@router.get("/v1/contacts/research/{task_id}", tags=["contacts"], response_model=ResearchTask)
def research_task(home: TenantHome, task_id: str) -> ResearchTask:
    """One research run: its sources' outcomes and its candidates."""
    return contact_research.research_task(home, task_id)


@router.post("/v1/contacts/candidates/confirm", tags=["contacts"], response_model=Confirmed)
def confirm(home: TenantHome, body: CandidateIds) -> Confirmed:
    """Keep the candidates as contacts of their job's company (as `contacts confirm`)."""
    return contact_research.confirm(home, body.candidate_ids)


@router.post("/v1/contacts/candidates/dismiss", tags=["contacts"], response_model=Dismissed)
def dismiss(home: TenantHome, body: CandidateIds) -> Dismissed:
    """Dismiss the candidates (as `contacts dismiss`)."""
    return contact_research.dismiss(home, body.candidate_ids)


@router.get("/v1/contacts", tags=["contacts"], response_model=Items[ContactView])
def list_contacts(
    home: TenantHome, company: str | None = Query(None, max_length=200)
) -> Items[ContactView]:
    """The contacts you keep, by company then name (as `jobctrl contacts`)."""
    return contacts.list_contacts(home, company)


@router.get(
    "/v1/contacts/export",
    tags=["contacts"],
    response_class=Response,
    response_model=None,
    responses={200: {"content": {"text/csv": {}}}},
)
def export(
    home: TenantHome,
    fmt: str = Query("csv", alias="format", pattern="^csv$"),
    company: str | None = Query(None, max_length=200),
) -> Response:
    """The contacts as CSV, as a download (as `jobctrl contacts export --format csv`)."""
    return Response(
        contacts.export_csv(home, company),
        media_type="text/csv",
        headers={"Content-Disposition": 'attachment; filename="contacts.csv"'},
    )


@router.post("/v1/contacts", tags=["contacts"], response_model=ContactDetail)
def add_contact(home: TenantHome, body: NewContact) -> ContactDetail:
    """Keep someone you know as a contact (as `jobctrl contacts add`)."""
    return contacts.add_contact(
        home, name=body.name, company=body.company, role=body.role, email=body.email,
        job=body.job_id, note=body.note,
    )  # fmt: skip


@router.get("/v1/contacts/{contact_id}", tags=["contacts"], response_model=ContactDetail)
def show_contact(home: TenantHome, contact_id: str) -> ContactDetail:
    """One contact with its jobs, evidence, sources and notes."""
    return contacts.show_contact(home, contact_id)


@router.delete("/v1/contacts/{contact_id}", tags=["contacts"], response_model=Removed)
def remove_contact(home: TenantHome, contact_id: str) -> Removed:
    """Delete the contact with its attributes and candidates (as `contacts remove`)."""
    return contacts.remove_contact(home, contact_id)
