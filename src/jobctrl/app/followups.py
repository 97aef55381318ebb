"""Follow-ups to applications with no answer (`jobctrl followups …`, `/v1/followups/…`).

An application sent or submitted with no outcome yet (or ``applied`` / ``no_answer``) is
due a follow-up ``followup.after_days`` after it went out, then as long after each
follow-up, at most ``followup.max_count`` of them; any other outcome recorded
(`applications set`) stops them. A follow-up is an email in the application's thread
(``In-Reply-To`` / ``References``: the application email's Message-ID; its subject with
"Re: "), written short from the record and one line of the profile, truth-checked, and
approved exactly and sent at most once like the application itself (``app.outbound``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from jobctrl.app.models import Timestamp, View
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
from jobctrl.domain.clock import Clock, as_utc, utcnow
from jobctrl.domain.errors import JobctrlError
from jobctrl.domain.followups import (
    OPEN_STATUSES,
    OutboundKind,
    OutboundStatus,
    awaiting_answer,
    next_followup_due,
    reply_subject,
)
from jobctrl.domain.outbound_text import MessageFacts, followup_body, followup_record
from jobctrl.home import Home
from jobctrl.stages.apply_prepare import MAX_BODY, recipients
from jobctrl.store import applications, jobs, outbound
from jobctrl.store.store import Store

__all__ = [
    "FollowupDue",
    "FollowupPanel",
    "approve_followup",
    "draft_followup",
    "followup_panel",
    "list_followups",
    "resolve_followup",
    "send_followup",
    "show_followup",
]


class FollowupPanel(View):
    """The Job page's follow-up: whether one is due now (``due``), when the next is
    (``due_at``; None once ``followup.max_count`` went out), how many went out, and the
    newest one (None before the first)."""

    job_id: str
    due: bool
    due_at: Timestamp | None
    count: int
    latest: MessageView | None


class FollowupDue(View):
    """An application a follow-up is due for: since ``due_at``; ``count`` follow-ups went
    out already."""

    job_id: str
    application_id: str
    due_at: Timestamp
    count: int


def list_followups(home: Home, *, now: datetime | None = None) -> list[FollowupDue]:
    """Every application a follow-up is due for now, longest due first."""
    store = Store.open(home)
    now = as_utc(now or utcnow())
    after_days, max_count = followup_rules(store)
    due: list[FollowupDue] = []
    for row in outbound.due_followups(store, now, after_days=after_days, max_count=max_count):
        when = next_followup_due(
            row["applied_at"],
            row["sent"],
            row["last_sent_at"],
            after_days=after_days,
            max_count=max_count,
        )
        if when is not None and when <= now:
            due.append(
                FollowupDue(
                    job_id=row["job_id"],
                    application_id=row["application_id"],
                    due_at=when,
                    count=row["sent"],
                )
            )
    return sorted(due, key=lambda d: d.due_at)


def followup_panel(home: Home, job_id: str, *, now: datetime | None = None) -> FollowupPanel | None:
    """The job's follow-up as its page shows it; None when its application did not go out
    or has an answer (nothing to follow up)."""
    store = Store.open(home)
    app = applications.get(store, job_id)
    if app is None or not awaiting_answer(app["status"], app["outcome"]):
        return None
    now = as_utc(now or utcnow())
    history = _history(store, app["id"])
    counted = [h for h in history if h["status"] in outbound.COUNTED]
    sent_at = [h["sent_at"] for h in counted if h["sent_at"]]
    after_days, max_count = followup_rules(store)
    when = next_followup_due(
        app["applied_at"],
        len(counted),
        max(sent_at) if sent_at else None,
        after_days=after_days,
        max_count=max_count,
    )
    return FollowupPanel(
        job_id=job_id,
        due=when is not None and when <= now,
        due_at=when,
        count=len(counted),
        latest=message_view(history[-1], now) if history else None,
    )


def _application(store: Store, ref: str) -> dict[str, Any]:
    job_id = jobs.resolve_job_id(store, ref)
    row = applications.get(store, job_id)
    if row is None:
        raise JobctrlError(
            f"job {job_id} has no application to follow up", code=errors.APPLY_NOT_PREPARED
        )
    return row


def _history(store: Store, application_id: str) -> list[dict[str, Any]]:
    with store.read() as conn:
        return outbound.followups_of(conn, application_id)


def _latest(store: Store, ref: str) -> dict[str, Any]:
    app = _application(store, ref)
    found = _history(store, app["id"])
    if not found:
        raise JobctrlError(
            f"job {app['job_id']} has no follow-up yet: `jobctrl followups draft JOB` first",
            code=errors.APPLY_NOT_PREPARED,
        )
    return found[-1]


def _check_awaiting(app: dict[str, Any]) -> None:
    if not awaiting_answer(app["status"], app["outcome"]):
        why = (
            f"its outcome is {app['outcome']}"
            if app["outcome"]
            else f"it is {app['status']}, not sent yet"
        )
        raise JobctrlError(
            f"no follow-up for job {app['job_id']}: {why}", code=errors.FOLLOWUP_NOT_DUE
        )


def _facts(store: Store, app: dict[str, Any]) -> MessageFacts:
    job = jobs.job_row(store, app["job_id"])
    applied = app["applied_at"]
    return MessageFacts(
        company=str(app["company"] or job.get("company") or "your company"),
        role=str(app["role"] or job.get("title") or "open"),
        applied_on=as_utc(applied).date() if applied else None,
        posting=posting_text(store, job),
    )


def _subject(app: dict[str, Any], facts: MessageFacts) -> str:
    """The application email's subject with "Re: " (its thread), or, for an application
    that went out another way, a subject of its own."""
    if app["channel"] == "email" and app["message_id"] and app["email_subject"]:
        return reply_subject(app["email_subject"])
    return f"Following up on my application: {facts.role}"


def _record(app: dict[str, Any], facts: MessageFacts, sequence: int) -> list[str]:
    return [followup_record(facts, sequence), app["email_subject"] or "", _subject(app, facts)]


def draft_followup(
    home: Home,
    ref: str,
    *,
    to: list[str] | None = None,
    body: str | None = None,
    clock: Clock | None = None,
) -> MessageView:
    """Write (or rewrite) the follow-up due for job ``ref``'s application: to its
    recipients (or ``to``), in its email's thread, the text written from the record and
    the profile (or ``body``), truth-checked. Any change clears an approval."""
    store = Store.open(home)
    now = as_utc((clock or utcnow)())
    app = _application(store, ref)
    _check_awaiting(app)
    history = _history(store, app["id"])
    current = history[-1] if history and history[-1]["status"] in OPEN_STATUSES else None
    counted = [h for h in history if h["status"] in outbound.COUNTED]
    if any(h["status"] == OutboundStatus.SENDING for h in history):
        raise JobctrlError(
            f"a follow-up of job {app['job_id']} is being sent right now",
            code=errors.APPLY_ATTEMPT_LIVE,
        )
    if any(h["status"] == OutboundStatus.UNKNOWN for h in history):
        raise JobctrlError(
            "the last follow-up may have gone out: check your Sent folder, then "
            "`jobctrl followups resolve JOB sent|not-sent`",
            code=errors.APPLY_OUTCOME_UNKNOWN,
        )
    after_days, max_count = followup_rules(store)
    sent_at = [h["sent_at"] for h in counted if h["sent_at"]]
    due = next_followup_due(
        app["applied_at"],
        len(counted),
        max(sent_at) if sent_at else None,
        after_days=after_days,
        max_count=max_count,
    )
    if current is None and (due is None or due > now):
        why = (
            f"{len(counted)} follow-ups went out already (followup.max_count)"
            if due is None
            else f"the next one is due on {due.date()}"
        )
        raise JobctrlError(
            f"no follow-up is due for job {app['job_id']}: {why}", code=errors.FOLLOWUP_NOT_DUE
        )
    sequence = int(current["sequence"]) if current else len(counted) + 1
    facts = _facts(store, app)
    profile, _ = profile_of(home)
    text = body if body is not None else (current or {}).get("email_body")
    text = text or followup_body(profile, facts, sequence)
    if not text.strip() or len(text) > MAX_BODY:
        raise JobctrlError(
            f"the body must be 1 to {MAX_BODY} characters", code=errors.INVALID_INPUT
        )
    to_list = recipients(to, (current or {}).get("email_to") or app["email_to"])
    if not to_list:
        raise JobctrlError(
            f"no address to send job {app['job_id']}'s follow-up to: add --to ADDRESS",
            code=errors.APPLY_NO_RECIPIENT,
        )
    original = app["message_id"] if app["channel"] == "email" else None
    subject = _subject(app, facts)
    truth_check(home, text, subject, facts, _record(app, facts, sequence))
    with store.write(clock=clock) as tx:
        saved = outbound.save_draft(
            tx,
            kind=OutboundKind.FOLLOWUP.value,
            channel="email",
            to=to_list,
            subject=subject,
            body=text,
            outbound_id=current["id"] if current else None,
            job_id=app["job_id"],
            application_id=app["id"],
            sequence=sequence,
            in_reply_to=original,
            references=original,
        )
    return message_view(saved, now)


def show_followup(home: Home, ref: str, *, now: datetime | None = None) -> MessageView:
    """The newest follow-up of job ``ref``'s application, with its exact email."""
    store = Store.open(home)
    return message_view(_latest(store, ref), now or utcnow())


def approve_followup(home: Home, ref: str, *, clock: Clock | None = None) -> MessageView:
    """Approve exactly the follow-up as it is now (checked again against the profile), for
    15 minutes at most; only while the application still has no answer."""
    store = Store.open(home)
    app = _application(store, ref)
    _check_awaiting(app)
    row = _latest(store, ref)
    facts = _facts(store, app)
    record = _record(app, facts, int(row["sequence"]))
    truth_check(home, row["email_body"] or "", row["email_subject"] or "", facts, record)
    approve_message(store, row, clock)
    return message_view(_latest(store, ref), (clock or utcnow)())


def send_followup(home: Home, ref: str, *, clock: Clock | None = None) -> OutboundSendView:
    """Send the approved follow-up once: ``sent``, ``unknown`` (check the Sent folder,
    then resolve) or ``failed`` with its code (nothing was sent)."""
    store = Store.open(home)
    _check_awaiting(_application(store, ref))
    return send_message(store, _latest(store, ref), clock)


def resolve_followup(
    home: Home, ref: str, resolution: str, *, clock: Clock | None = None
) -> MessageView:
    """Say what happened to a follow-up send in doubt: ``sent`` or ``not-sent``."""
    store = Store.open(home)
    resolve_message(store, _latest(store, ref), resolution, clock)
    return message_view(_latest(store, ref), (clock or utcnow)())
