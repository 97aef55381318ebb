"""The contacts the person keeps (issue 33): listed (by company), shown, added by hand,
removed (with their attributes and the candidates they came from), exported as CSV, and
the People of one job (its research runs, candidates and contacts) for the Job page.

Contacts are personal data of third parties: they stay in the tenant's store, and no
event, log line or workflow history holds more of them than an id.
"""

from __future__ import annotations

import csv
import io

from jobctrl.app.contact_research import (
    CandidateView,
    ResearchTask,
    candidate_view,
    task_view,
)
from jobctrl.app.models import Items, Timestamp, View
from jobctrl.domain.clock import as_utc
from jobctrl.domain.contacts import ContactRole
from jobctrl.domain.errors import CONTACT_NOT_FOUND, INVALID_INPUT, JobctrlError, NotFoundError
from jobctrl.domain.mail import email_address
from jobctrl.home import Home
from jobctrl.store import contact_research, contacts, jobs
from jobctrl.store.contacts import ContactRow
from jobctrl.store.store import Store

__all__ = [
    "ContactDetail",
    "ContactView",
    "JobPeople",
    "Removed",
    "add_contact",
    "export_csv",
    "job_people",
    "list_contacts",
    "remove_contact",
    "show_contact",
]

NAME_LIMIT = 200
EXPORT_COLUMNS = ("contact_id", "name", "role", "company", "email", "jobs", "origin", "created_at")


class ContactView(View):
    contact_id: str
    name: str
    role: str
    company: str
    email: str | None
    jobs: list[str]
    origin: str  # research | added
    created_at: Timestamp


class ContactDetail(ContactView):
    evidence: list[str]
    sources: list[str]
    notes: list[str]


class Removed(View):
    contact_id: str
    removed: bool


class JobPeople(View):
    job_id: str
    company: str | None
    research: ResearchTask | None  # the newest run
    candidates: list[CandidateView]
    contacts: list[ContactView]


def contact_view(row: ContactRow) -> ContactView:
    return ContactView(
        contact_id=row.contact_id, name=row.name, role=row.role, company=row.company,
        email=row.email, jobs=row.jobs, origin=row.origin, created_at=as_utc(row.created_at),
    )  # fmt: skip


def list_contacts(home: Home, company: str | None = None) -> Items[ContactView]:
    store = Store.open(home)
    rows = contacts.contact_rows(store, company=company)
    return Items[ContactView](items=[contact_view(r) for r in rows])


def _row(store: Store, contact_id: str) -> ContactRow:
    rows = contacts.contact_rows(store, contact_ids=[contact_id.strip()])
    if not rows:
        raise NotFoundError(f"no contact {contact_id}", code=CONTACT_NOT_FOUND)
    return rows[0]


def show_contact(home: Home, contact_id: str) -> ContactDetail:
    row = _row(Store.open(home), contact_id)
    return ContactDetail(
        **contact_view(row).model_dump(by_alias=False),
        evidence=row.attributes.get("evidence", []),
        sources=row.attributes.get("source", []),
        notes=row.attributes.get("note", []),
    )


def add_contact(
    home: Home,
    *,
    name: str,
    company: str | None = None,
    role: str = ContactRole.TEAM_MEMBER.value,
    email: str | None = None,
    job: str | None = None,
    note: str | None = None,
) -> ContactDetail:
    """Keep someone the person knows: for a company, or for a job (its company)."""
    store = Store.open(home)
    name = " ".join(name.split())[:NAME_LIMIT]
    if not name:
        raise JobctrlError("a contact needs a name", code=INVALID_INPUT)
    if role not in {r.value for r in ContactRole}:
        roles = ", ".join(r.value for r in ContactRole)
        raise JobctrlError(f"the role must be one of {roles}", code=INVALID_INPUT)
    job_id = jobs.resolve_job_id(store, job) if job else None
    if job_id and not company:
        company = str(jobs.job_row(store, job_id).get("company") or "")
    company = " ".join((company or "").split())[:NAME_LIMIT]
    if not company:
        raise JobctrlError(
            "name the company (--company) or a job of it (--job)", code=INVALID_INPUT
        )
    if email:
        try:
            email = email_address(email)
        except ValueError as exc:
            raise JobctrlError(str(exc), code=INVALID_INPUT) from None
    contact_id = contacts.add_contact(
        store, company=company, name=name, role=role, email=email or None, job_id=job_id,
        note=(note or "").strip()[:2000] or None,
    )  # fmt: skip
    return show_contact(home, contact_id)


def remove_contact(home: Home, contact_id: str) -> Removed:
    """Delete the contact, its attributes and the candidates it came from."""
    store = Store.open(home)
    _row(store, contact_id)
    return Removed(contact_id=contact_id, removed=contacts.remove_contact(store, contact_id))


def export_csv(home: Home, company: str | None = None) -> str:
    """The contacts as CSV (one row each; a contact's jobs separated by spaces)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for row in contacts.contact_rows(Store.open(home), company=company):
        values = [
            row.contact_id, row.name, row.role, row.company, row.email or "",
            " ".join(row.jobs), row.origin, as_utc(row.created_at).isoformat(),
        ]  # fmt: skip
        writer.writerow([_safe_cell(v) for v in values])
    return out.getvalue()


def _safe_cell(value: str) -> str:
    """A cell a spreadsheet will not run as a formula (a page's text may start with =)."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def job_people(home: Home, ref: str) -> JobPeople:
    """The People of one job: its newest research run, its candidates, its contacts."""
    store = Store.open(home)
    job_id = jobs.resolve_job_id(store, ref)
    job = jobs.job_row(store, job_id)
    tasks = contact_research.tasks_of_job(store, job_id, limit=1)
    candidates = contact_research.candidate_rows(store, job_id=job_id)
    company = str(job.get("company") or "") or None
    kept = contacts.contact_rows(store, job_id=job_id)
    if company:  # the company's contacts serve this job too
        seen = {r.contact_id for r in kept}
        kept += [
            r for r in contacts.contact_rows(store, company=company) if r.contact_id not in seen
        ]
    return JobPeople(
        job_id=job_id,
        company=company,
        research=task_view(store, tasks[0]) if tasks else None,
        candidates=[candidate_view(c) for c in candidates],
        contacts=[contact_view(r) for r in kept],
    )
