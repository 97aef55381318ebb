"""The contact_research lane: what a model is asked about a page's people, and the
candidates code keeps of its answer (issue 33).

The model reads one source's text and names the people in it with their role, title,
email and the sentence it read them from. Code keeps only what the text supports: a
person whose name is not in the text is dropped (no invented people), an email not in
the text is dropped, and evidence that is not a sentence of the text is replaced by the
sentence naming the person. The offline extractor answers in the same shape, so a paid and
a free run store the same candidates.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from jobctrl.domain.contacts import EVIDENCE_LIMIT, ContactRole
from jobctrl.llm.offline_contacts import FoundPerson, extract_people, role_of

__all__ = [
    "CONTACTS_SYSTEM",
    "ContactAnswer",
    "PersonAnswer",
    "contacts_prompt",
    "offline_answer",
    "supported_people",
]

TEXT_LIMIT = 24_000  # characters of a source sent to a model

CONTACTS_SYSTEM = (
    "You read one web page or pasted text about a job and name the real people in it "
    "who could be contacted about the job: recruiters, hiring managers, founders and team "
    "members. For each, give the name exactly as written, the role (recruiter, "
    "hiring_manager, founder or team_member), the title as written, the email address "
    "only when the text shows it, and the sentence of the text you read them from. Name "
    "only people the text names; never guess a name or an email address. Shared "
    "mailboxes (jobs@, careers@) are not people."
)


class PersonAnswer(BaseModel):
    name: str = Field(description="The person's name exactly as the text writes it.")
    role: str = Field(description="recruiter, hiring_manager, founder or team_member.")
    title: str = Field(default="", description="Their title as written, if any.")
    email: str = Field(default="", description="Their email, only if the text shows it.")
    evidence: str = Field(description="The sentence of the text that names them.")
    confidence: float | None = Field(default=None, description="Leave empty.")


class ContactAnswer(BaseModel):
    people: list[PersonAnswer] = Field(default_factory=list)


def contacts_prompt(text: str, *, company: str | None, source: str) -> str:
    return (
        f"Company: {company or 'unknown'}\nSource: {source}\n\n"
        f"Text:\n{text[:TEXT_LIMIT]}\n\nName the people in this text."
    )


def offline_answer(text: str, company: str | None = None) -> ContactAnswer:
    """The offline extractor's people, in the lane's answer shape."""
    return ContactAnswer(
        people=[
            PersonAnswer(
                name=p.name, role=p.role, title=p.title or "", email=p.email or "",
                evidence=p.evidence, confidence=p.confidence,
            )
            for p in extract_people(text, company=company)
        ]
    )  # fmt: skip


def _flat(text: str) -> str:
    """Words only, lower case: "Jane Doe — Recruiter" is in "Jane Doe\nRecruiter"."""
    return " ".join(re.findall(r"[\w@.+-]+", text.lower()))


def _sentence_naming(text: str, name: str) -> str:
    for line in text.splitlines():
        if name.lower() in line.lower():
            for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
                if name.lower() in sentence.lower():
                    return " ".join(sentence.split())[:EVIDENCE_LIMIT]
    return name


def _spelled_by(email: str | None, name: str) -> bool:
    """``jane.doe@…`` spells Jane Doe (a name read from an address the text shows)."""
    local = re.split(r"[._-]", (email or "").split("@")[0].lower())
    return bool(email) and local[: len(name.split())] == name.lower().split()


def supported_people(answer: ContactAnswer, text: str) -> list[FoundPerson]:
    """The answer's people that ``text`` supports, each once, most confident first."""
    flat = _flat(text)
    roles = {r.value for r in ContactRole}
    kept: dict[str, FoundPerson] = {}
    for person in answer.people:
        name = " ".join(person.name.split())
        email = person.email.strip() or None
        if email and _flat(email) not in flat:
            email = None
        if len(name) < 3 or not (_flat(name) in flat or _spelled_by(email, name)):
            continue  # a name the text does not show: never kept
        evidence = " ".join(person.evidence.split())
        if not evidence or _flat(evidence) not in flat:
            evidence = _sentence_naming(text, name)
        role = person.role if person.role in roles else role_of(person.title or "")
        confidence = person.confidence if person.confidence is not None else 0.8
        found = FoundPerson(
            name=name, role=role, title=person.title.strip() or None, email=email,
            evidence=evidence[:EVIDENCE_LIMIT], confidence=round(float(confidence), 2),
        )  # fmt: skip
        kept.setdefault(name.lower(), found)
    return sorted(kept.values(), key=lambda p: (-p.confidence, p.name))
