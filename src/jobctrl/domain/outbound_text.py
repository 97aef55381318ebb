"""The words of a follow-up or an outreach email, and the truth check of any such text.

``followup_body`` writes a short follow-up from the application (role, company, when it
went out) and one line of the profile that fits the posting; ``outreach_body`` a short
note to a contact. Both are plain text the person may edit. ``check_message`` holds a
message, line by line, to the profile like a cover letter: a greeting, a closing and the
signature may name only the company, the role and the reader; every other sentence may
claim only what the profile supports (``domain.truth``), and none may claim a connection
or referral (``domain.truth.connections``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from jobctrl.domain.facts import fact_index
from jobctrl.domain.materials import Cited
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth.claims import ClaimContext
from jobctrl.domain.truth.connections import CONNECTION, connection_claims
from jobctrl.domain.truth.document import Finding, check_sentences

__all__ = [
    "NOTE_CHARS",
    "MessageFacts",
    "check_message",
    "findings_summary",
    "followup_body",
    "followup_record",
    "outreach_body",
    "outreach_followup_body",
    "outreach_followup_record",
]

_GREETING = re.compile(r"^(?:dear|hi|hello|good (?:morning|afternoon))\b.*,\s*$", re.IGNORECASE)
_CLOSING = re.compile(
    r"^(?:kind regards|best regards|regards|best|thank you|thanks|sincerely|"
    r"many thanks|best wishes),?\s*$",
    re.IGNORECASE,
)
NOTE_CHARS = 300  # a LinkedIn-style connection note's length
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


@dataclass(frozen=True)
class MessageFacts:
    """What a message is about: the job's company and role, the reader's name (outreach),
    when the application went out (a follow-up) and the posting's text."""

    company: str
    role: str
    reader: str = ""
    applied_on: date | None = None
    posting: str = ""


def _signature(profile: Profile) -> str:
    contact = profile.contact
    return "\n".join(v for v in (profile.name, contact.email, contact.phone) if v)


def _fitting_line(profile: Profile, posting: str) -> str | None:
    """One highlight of the most recent role, the one naming most of what the posting
    names, as "As TITLE at COMPANY, I …" (None when the profile has no highlight)."""
    wanted = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9+#.]+", posting)}
    for exp in profile.experience:
        bullets = [b.strip().rstrip(".") for b in exp.bullets if b.strip()]
        if not bullets:
            continue
        best = max(
            bullets,
            key=lambda b: len(
                {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9+#.]+", b)} & wanted
            ),
        )
        verb = best[0].lower() + best[1:]
        return f"As {exp.title} at {exp.company}, I {verb}."
    return None


def followup_record(facts: MessageFacts, sequence: int) -> str:
    """The follow-up's sentence from jobctrl's own record: which application, and when."""
    day = facts.applied_on
    when = f", sent on {day.day} {day:%B %Y}" if day else ""
    again = "once more " if sequence > 1 else ""
    return (
        f"I am writing {again}to follow up on my application for the {facts.role} "
        f"position at {facts.company}{when}."
    )


def followup_body(profile: Profile, facts: MessageFacts, sequence: int) -> str:
    """A short follow-up: which application, still interested, one fitting line, thanks."""
    lines = [f"{followup_record(facts, sequence)} I am still very interested in the role."]
    fitting = _fitting_line(profile, facts.posting)
    if fitting:
        lines.append(fitting)
    lines.append(
        "I would be glad to talk about how I could help your team. Thank you for your time."
    )
    greeting = f"Dear Hiring Team at {facts.company},"
    return "\n\n".join([greeting, *lines, f"Kind regards,\n{_signature(profile)}"]) + "\n"


def outreach_body(profile: Profile, facts: MessageFacts, *, note: bool = False) -> str:
    """A short note to a contact about the job: who the writer is, why this role, a
    question. ``note``: the LinkedIn-style short form (no signature block)."""
    who = f"Dear {facts.reader}," if facts.reader else f"Dear Hiring Team at {facts.company},"
    fitting = _fitting_line(profile, facts.posting)
    lines = [
        f"I am interested in the {facts.role} position at {facts.company} and wanted to "
        "introduce myself.",
    ]
    if fitting:
        lines.append(fitting)
    lines.append("Would you be open to a short conversation about the role?")
    if note:
        text = " ".join([who, *lines, f"Thank you, {profile.name}"])
        if len(text) > NOTE_CHARS and fitting:  # a note is short: the profile line goes
            text = " ".join([who, lines[0], lines[-1], f"Thank you, {profile.name}"])
        return text
    return "\n\n".join([who, *lines, f"Kind regards,\n{_signature(profile)}"]) + "\n"


def outreach_followup_record(facts: MessageFacts) -> str:
    """A contact follow-up's sentence from jobctrl's own record: what it follows up."""
    return (
        f"I am writing to follow up on my earlier message about the {facts.role} position "
        f"at {facts.company}."
    )


def outreach_followup_body(profile: Profile, facts: MessageFacts) -> str:
    """A short follow-up to an outreach email, in its thread."""
    lines = [outreach_followup_record(facts)]
    fitting = _fitting_line(profile, facts.posting)
    if fitting:
        lines.append(fitting)
    lines.append("Would you be open to a short conversation about the role?")
    who = f"Dear {facts.reader}," if facts.reader else f"Dear Hiring Team at {facts.company},"
    return "\n\n".join([who, *lines, f"Kind regards,\n{_signature(profile)}"]) + "\n"


def _sentences(body: str) -> list[str]:
    out: list[str] = []
    for block in re.split(r"\n\s*\n|\n", body):
        text = " ".join(block.split())
        if text:
            out.extend(s for s in _SENTENCE_END.split(text) if s.strip())
    return out


def _subject_claims(
    subject: str, profile: Profile, context: ClaimContext, every_fact: list[str]
) -> list[Finding]:
    """A subject line is a few words ("Hello", "The Backend role at Acme"): it claims
    something only when neither reading supports it — as a line that claims nothing of
    the writer, nor as one held to the whole profile."""
    plain = check_sentences([Cited(text=subject, facts=[])], profile, context, where="subject")
    if not plain:
        return []
    held = check_sentences(
        [Cited(text=subject, facts=every_fact)], profile, context, where="subject"
    )
    if not held:
        return []
    return plain if len(plain) <= len(held) else held


def check_message(
    body: str,
    subject: str,
    profile: Profile,
    facts: MessageFacts,
    *,
    record: Sequence[str] = (),
    extra_aliases: dict[str, tuple[str, ...]] | None = None,
    today: date | None = None,
) -> list[Finding]:
    """Every claim of the message the profile does not support ([] when it is truthful).
    ``record``: sentences jobctrl wrote from its own records (the application's subject,
    when it went out): unchanged, they claim nothing of the profile and are not held to it
    (a connection claim is still reported)."""
    free = tuple(n for n in (facts.company, facts.role, facts.reader) if n.strip())
    context = ClaimContext(extra_aliases=extra_aliases or {}, free_names=free, today=today)
    every_fact = list(fact_index(profile))
    signature = {line.strip().lower() for line in _signature(profile).splitlines()}
    recorded = {" ".join(r.split()) for r in record}
    lines: list[Cited] = []
    findings: list[Finding] = []
    subject = re.sub(r"^(?:re:\s*)+", "", subject.strip(), flags=re.IGNORECASE)
    for i, sentence in enumerate([subject, *_sentences(body)]):
        if not sentence.strip():
            continue
        where = "subject" if i == 0 else f"body[{i - 1}]"
        for claim in connection_claims(sentence):
            findings.append(Finding(where, sentence[:300], CONNECTION, claim[:120]))
        if sentence.strip().lower() in signature or sentence in recorded:
            continue  # the person's own name and address, or jobctrl's record
        if i == 0:
            findings += _subject_claims(sentence, profile, context, every_fact)
            continue
        polite = _GREETING.match(sentence) or _CLOSING.match(sentence)
        lines.append(Cited(text=sentence, facts=[] if polite else every_fact))
    for finding in check_sentences(lines, profile, context, where="body"):
        findings.append(finding)
    return findings


def findings_summary(findings: Sequence[Finding]) -> str:
    """ "N unsupported claims: …" for an error message (the claims' own words)."""
    shown = "; ".join(f"{f.claim!r} ({f.kind})" for f in findings[:3])
    more = f" and {len(findings) - 3} more" if len(findings) > 3 else ""
    count = f"{len(findings)} unsupported claim{'s' if len(findings) != 1 else ''}"
    return f"{count}: {shown}{more}"
