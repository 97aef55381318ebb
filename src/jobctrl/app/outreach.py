"""Outreach to a contact about a job (`jobctrl outreach … CONTACT --job JOB`,
`/v1/outreach/{contact}/…`): an email, or a short note the person copies.

A draft is grounded in the posting and the profile (who the writer is, one line of the
profile that fits the posting, a question) and truth-checked like a letter: no claim the
profile does not support, no connection or referral nobody recorded. An email is approved
exactly and sent at most once through the application's own send (``app.outbound``), at
most ``outreach.max_per_day`` a UTC day (checked under the submit intent), so nobody
sends a burst from their own account by accident. A note is never sent by jobctrl: the
person copies it (``outreach show``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jobctrl.app.outbound import (
    MessageView,
    OutboundSendView,
    approve_message,
    followup_rules,
    message_view,
    posting_text,
    profile_of,
    resolve_message,
    send_message,
    truth_check,
)
from jobctrl.domain import errors
from jobctrl.domain.clock import Clock, utcnow
from jobctrl.domain.errors import JobctrlError, NotFoundError
from jobctrl.domain.followups import (
    OPEN_STATUSES,
    OutboundKind,
    OutboundStatus,
    next_followup_due,
    reply_subject,
)
from jobctrl.domain.outbound_text import (
    NOTE_CHARS,
    MessageFacts,
    outreach_body,
    outreach_followup_body,
    outreach_followup_record,
)
from jobctrl.home import Home
from jobctrl.stages.apply_prepare import MAX_BODY, MAX_SUBJECT, checked_text, recipients
from jobctrl.store import contacts, jobs, outbound
from jobctrl.store.store import Store

__all__ = [
    "CHANNELS",
    "approve_outreach",
    "draft_outreach",
    "job_outreach",
    "resolve_outreach",
    "send_outreach",
    "show_outreach",
]

CHANNELS = ("email", "note")


def _contact(store: Store, contact_id: str) -> contacts.ContactRow:
    """The contact (``CONTACTS``' table), or a clear refusal."""
    found = contacts.contact_rows(store, contact_ids=[contact_id.strip()])
    if not found:
        raise NotFoundError(f"no contact {contact_id}", code=errors.CONTACT_NOT_FOUND)
    return found[0]


def _latest(store: Store, contact_id: str, job_id: str) -> dict[str, Any] | None:
    with store.read() as conn:
        return outbound.latest(
            conn, OutboundKind.OUTREACH.value, contact_id=contact_id, job_id=job_id
        )


def _require(store: Store, contact_ref: str, job_ref: str) -> dict[str, Any]:
    contact = _contact(store, contact_ref)
    job_id = jobs.resolve_job_id(store, job_ref)
    row = _latest(store, contact.contact_id, job_id)
    if row is None:
        raise JobctrlError(
            f"no outreach to contact {contact.contact_id} about job {job_id} yet: "
            "`jobctrl outreach draft CONTACT --job JOB` first",
            code=errors.APPLY_NOT_PREPARED,
        )
    return row


def _facts(store: Store, contact: contacts.ContactRow, job: dict[str, Any]) -> MessageFacts:
    return MessageFacts(
        company=str(job.get("company") or contact.company),
        role=str(job.get("title") or "open"),
        reader=contact.name,
        posting=posting_text(store, job),
    )


def _followed_up(store: Store, history: list[dict[str, Any]], now: datetime) -> None:
    """A sent outreach email may be followed up like an application: ``followup.after_days``
    after the last one went out, at most ``followup.max_count`` follow-ups."""
    after_days, max_count = followup_rules(store)
    sent = [h for h in history if h["status"] in outbound.COUNTED]
    last = max((h["sent_at"] for h in sent if h["sent_at"]), default=None)
    due = next_followup_due(
        history[0]["sent_at"], len(sent) - 1, last, after_days=after_days, max_count=max_count
    )
    if due is None or due > now:
        when = "no more follow-ups (followup.max_count)" if due is None else f"due {due.date()}"
        raise JobctrlError(
            f"the outreach to contact {history[0]['contact_id']} about job "
            f"{history[0]['job_id']} was sent: its follow-up is {when}",
            code=errors.FOLLOWUP_NOT_DUE,
        )


def draft_outreach(
    home: Home,
    contact_ref: str,
    job_ref: str,
    *,
    channel: str | None = None,
    to: list[str] | None = None,
    subject: str | None = None,
    body: str | None = None,
    clock: Clock | None = None,
) -> MessageView:
    """Write (or edit) the outreach to the contact about the job: the given parts, else
    what the open draft has, else what jobctrl writes. Truth-checked; any change clears an
    approval. Once the email went out, a draft is its follow-up (in its thread, when one
    is due, as for applications); a send in doubt is resolved first."""
    store = Store.open(home)
    now = (clock or utcnow)()
    contact = _contact(store, contact_ref)
    job_id = jobs.resolve_job_id(store, job_ref)
    job = jobs.job_row(store, job_id)
    with store.read() as conn:
        history = outbound.thread(
            conn, OutboundKind.OUTREACH.value, contact_id=contact.contact_id, job_id=job_id
        )
    current = history[-1] if history else None
    if current is not None and current["status"] not in OPEN_STATUSES | {OutboundStatus.SENT}:
        raise JobctrlError(
            f"the outreach to contact {contact.contact_id} about job {job_id} is "
            f"{current['status']}: resolve it first",
            code=errors.APPLY_OUTCOME_UNKNOWN,
        )
    if current is not None and current["status"] == OutboundStatus.SENT:
        _followed_up(store, history, now)
        current = None  # a new message: the follow-up
    first = history[0] if history and history[0]["status"] in outbound.COUNTED else None
    sequence = int(current["sequence"]) if current else len(history) + 1 if first else 1
    chosen = "email" if first else channel or (current or {}).get("channel") or "email"
    if chosen not in CHANNELS:
        raise JobctrlError("--channel must be email or note", code=errors.INVALID_INPUT)
    facts = _facts(store, contact, job)
    profile, _ = profile_of(home)
    note = chosen == "note"
    same_channel = current is not None and current["channel"] == chosen
    if first is not None:
        default_body = outreach_followup_body(profile, facts)
        default_subject = reply_subject(first["email_subject"] or "")
        record = [outreach_followup_record(facts), first["email_subject"] or ""]
    else:
        default_body = outreach_body(profile, facts, note=note)
        default_subject = f"The {facts.role} role at {facts.company}"
        record = []
    text = checked_text(
        body, (current or {}).get("email_body") if same_channel else None, default_body,
        NOTE_CHARS if note else MAX_BODY, "body",
    )  # fmt: skip
    line = ""
    if not note:
        line = checked_text(
            subject, (current or {}).get("email_subject") if same_channel else None,
            default_subject, MAX_SUBJECT, "subject",
        )  # fmt: skip
    to_list: list[str] = []
    if not note:
        earlier = (current or {}).get("email_to") or (first or {}).get("email_to") or None
        to_list = recipients(to, earlier) or ([contact.email] if contact.email else [])
        if not to_list:
            raise JobctrlError(
                f"contact {contact.contact_id} has no email address: add --to ADDRESS, or "
                "write a note to copy (--channel note)",
                code=errors.APPLY_NO_RECIPIENT,
            )
    truth_check(home, text, line, facts, record=record)
    original = first["message_id"] if first else None
    with store.write(clock=clock) as tx:
        saved = outbound.save_draft(
            tx,
            kind=OutboundKind.OUTREACH.value,
            channel=chosen,
            to=to_list,
            subject=line,
            body=text,
            outbound_id=current["id"] if current else None,
            job_id=job_id,
            contact_id=contact.contact_id,
            sequence=sequence,
            in_reply_to=original,
            references=original,
        )
    return message_view(saved, now)


def job_outreach(home: Home, job_id: str) -> dict[str, MessageView]:
    """The newest message to each contact about the job, by contact id (the Job page)."""
    store = Store.open(home)
    with store.read() as conn:
        found = outbound.thread(conn, OutboundKind.OUTREACH.value, job_id=job_id)
    now = utcnow()
    newest = {row["contact_id"]: row for row in found}  # the thread is oldest first
    return {contact: message_view(row, now) for contact, row in newest.items()}


def show_outreach(home: Home, contact_ref: str, job_ref: str) -> MessageView:
    """The outreach to the contact about the job, with its exact text."""
    return message_view(_require(Store.open(home), contact_ref, job_ref), utcnow())


def _email_only(row: dict[str, Any]) -> None:
    if row["channel"] != "email":
        raise JobctrlError(
            "a note is never sent by jobctrl: copy it from `jobctrl outreach show` and send "
            "it yourself",
            code=errors.INVALID_INPUT,
        )


def approve_outreach(
    home: Home, contact_ref: str, job_ref: str, *, clock: Clock | None = None
) -> MessageView:
    """Approve exactly the outreach email as it is now (checked again), for 15 minutes."""
    store = Store.open(home)
    row = _require(store, contact_ref, job_ref)
    _email_only(row)
    contact = _contact(store, contact_ref)
    facts = _facts(store, contact, jobs.job_row(store, row["job_id"]))
    truth_check(home, row["email_body"] or "", row["email_subject"] or "", facts, record=())
    approve_message(store, row, clock)
    return message_view(_require(store, contact_ref, job_ref), (clock or utcnow)())


def send_outreach(
    home: Home, contact_ref: str, job_ref: str, *, clock: Clock | None = None
) -> OutboundSendView:
    """Send the approved outreach email once, within today's ``outreach.max_per_day``."""
    store = Store.open(home)
    row = _require(store, contact_ref, job_ref)
    _email_only(row)
    return send_message(store, row, clock)


def resolve_outreach(
    home: Home, contact_ref: str, job_ref: str, resolution: str, *, clock: Clock | None = None
) -> MessageView:
    """Say what happened to an outreach send in doubt: ``sent`` or ``not-sent``."""
    store = Store.open(home)
    resolve_message(store, _require(store, contact_ref, job_ref), resolution, clock)
    return message_view(_require(store, contact_ref, job_ref), (clock or utcnow)())
