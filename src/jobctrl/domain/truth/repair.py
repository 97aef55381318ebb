"""Repair instead of refusal: a generated document keeps what its check supports, repaired
at the places the check names (``Finding.where``), and only there:

- a sentence (bullet, summary sentence, extra, letter sentence, answer) or a skill is
  removed; the headline or a summary sentence is replaced by the closest profile sentence
  that passes (an unused summary sentence; for the headline an entry's title too);
- a field is restored from the profile entry the document names (title, employer, dates,
  place of a real entry; the name and contact details; a letter's employer and role); an
  entry the profile does not have (or cannot be told) is removed with its bullets;
- a letter's greeting or closing that claims something becomes a plain one.

The result is checked again whole and whatever is still flagged is removed: nothing that
failed the check is kept. Each ``Change`` (removed, replaced or restored, with its
findings) is for the person to read. ``share`` (removed or replaced lines) is what the
stage compares with ``truth.max_dropped_share`` before it asks the model once to repair.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TypeVar

from jobctrl.domain.facts import Fact, education_fact_id, experience_fact_id, fact_index
from jobctrl.domain.materials import (
    Cited,
    CoverLetter,
    Paragraph,
    TailoredEducation,
    TailoredExperience,
    TailoredResume,
)
from jobctrl.domain.profile import Contact, Education, Experience, Profile
from jobctrl.domain.truth.aliases import alias_table, fold, word_tokens
from jobctrl.domain.truth.changes import (
    Action,
    Change,
    Repaired,
    has_substance,
    letter_lines,
    reason,
    resume_lines,
)
from jobctrl.domain.truth.claims import ClaimContext, check_sentence
from jobctrl.domain.truth.document import (
    Finding,
    check_letter,
    check_resume,
    check_sentences,
)
from jobctrl.domain.truth.fields import same_phrase

__all__ = [
    "DEFAULT_MAX_DROPPED_SHARE",
    "Change",
    "Repaired",
    "has_substance",
    "letter_lines",
    "reason",
    "repair_letter",
    "repair_lines",
    "repair_resume",
    "resume_lines",
]

DEFAULT_MAX_DROPPED_SHARE = 0.30
PLAIN_GREETING = "Dear Hiring Team,"
PLAIN_CLOSING = "Kind regards,"
_ROUNDS = 3  # re-checks after the first repair (each removes what is still flagged)

D = TypeVar("D", TailoredResume, CoverLetter)


def _by_where(findings: Sequence[Finding]) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        grouped[f.where].append(f)
    return grouped


def _under(grouped: dict[str, list[Finding]], prefix: str) -> list[Finding]:
    """The findings at ``prefix`` or inside it (``experience[0]`` holds ``.title``)."""
    return [
        f
        for where, found in grouped.items()
        if where == prefix or where.startswith((prefix + ".", prefix + "["))
        for f in found
    ]


def _entry_findings(grouped: dict[str, list[Finding]], where: str) -> list[Finding]:
    """The findings about an entry itself (employer, title, dates, place), not bullets'."""
    return [f for f in _under(grouped, where) if ".bullets[" not in f.where]


class _Repair:
    """One repair round's bookkeeping: the changes and the count of lines removed."""

    def __init__(self, profile: Profile, context: ClaimContext) -> None:
        self.profile = profile
        self.context = context
        self.facts = fact_index(profile)
        self.aliases = alias_table(context.extra_aliases)
        self.changes: list[Change] = []
        self.removed = 0
        self.shown_elsewhere: set[str] = set()  # entries a flagged entry would duplicate

    def change(
        self,
        where: str,
        sentence: str,
        action: Action,
        findings: Sequence[Finding],
        replacement: str = "",
        lines: int = 1,
    ) -> None:
        self.changes.append(Change(where, sentence, action, tuple(findings), replacement))
        if action != "restored":
            self.removed += lines

    def supported(self, text: str, facts: Sequence[str]) -> bool:
        cited = [self.facts[f] for f in facts if f in self.facts]
        cited += [self.facts[p] for f in cited if f.parent and (p := f.parent) in self.facts]
        return not check_sentence(text, cited, self.context)

    def lines(
        self, where: str, lines: Sequence[Cited], grouped: dict[str, list[Finding]]
    ) -> list[Cited]:
        """The lines of the list at ``where`` that nothing was found in."""
        kept: list[Cited] = []
        for i, line in enumerate(lines):
            found = grouped.get(f"{where}[{i}]")
            if found:
                self.change(f"{where}[{i}]", line.text, "removed", found)
            else:
                kept.append(line)
        return kept

    def closest(self, line: Cited, candidates: Sequence[Fact], used: set[str]) -> Cited | None:
        """The candidate fact closest to ``line`` that passes the check restated as itself,
        citing itself: one the line cited first, then the one sharing most of its words,
        then the profile's order (the newest entry first); None when none is left."""
        words = set(word_tokens(fold(line.text)))
        cited = set(line.facts)

        def rank(item: tuple[int, Fact]) -> tuple[bool, float, int]:
            order, fact = item
            theirs = set(word_tokens(fold(fact.text)))
            return (fact.id in cited, len(words & theirs) / (len(theirs) or 1), -order)

        for _, fact in sorted(enumerate(candidates), key=rank, reverse=True):
            text = _headline_text(fact, self.profile)
            if fold(text) in used:
                continue
            if self.supported(text, [fact.id]):
                return Cited(text=text, facts=[fact.id])
        return None


def _headline_text(fact: Fact, profile: Profile) -> str:
    """A fact as a line: an entry as its title, any other fact as written."""
    if fact.kind == "experience":
        for exp in profile.experience:
            if fact.text.startswith(f"{exp.title} at {exp.company}"):
                return exp.title
    return fact.text


def _held_experience(r: _Repair, exp: TailoredExperience) -> tuple[Experience, str] | None:
    """The profile entry a resume entry is: the one it cites, else the only one at its
    employer with its title (or the only one at its employer)."""
    for held in r.profile.experience:
        if experience_fact_id(held) == exp.fact:
            return held, exp.fact
    at = [p for p in r.profile.experience if same_phrase(exp.company, p.company, r.aliases)]
    titled = [p for p in at if same_phrase(exp.title, p.title, r.aliases)]
    one = titled if len(titled) == 1 else at if len(at) == 1 else []
    return (one[0], experience_fact_id(one[0])) if one else None


def _held_education(r: _Repair, edu: TailoredEducation) -> tuple[Education, str] | None:
    """The profile's education entry a resume's is: the one it cites, else the only one
    at its institution."""
    for held in r.profile.education:
        if education_fact_id(held) == edu.fact:
            return held, edu.fact
    at = [p for p in r.profile.education if same_phrase(edu.institution, p.institution, r.aliases)]
    return (at[0], education_fact_id(at[0])) if len(at) == 1 else None


def _experience(
    r: _Repair, i: int, exp: TailoredExperience, grouped: dict[str, list[Finding]]
) -> TailoredExperience | None:
    where = f"experience[{i}]"
    said = f"{exp.title} at {exp.company}"
    entry_found = _entry_findings(grouped, where)
    if entry_found:
        held = _held_experience(r, exp)
        # Another employer named on an entry that cites none of the profile's: not this work.
        wrong_employer = any(
            f.kind in ("unknown_employer", "wrong_entry") and f.where == f"{where}.company"
            for f in entry_found
        ) and (held is None or held[1] != exp.fact or exp.fact in r.shown_elsewhere)
        if held is None or wrong_employer:
            r.change(where, said, "removed", _under(grouped, where), lines=1 + len(exp.bullets))
            return None
        entry, fact_id = held
        restored = f"{entry.title} at {entry.company}"
        r.change(where, said, "restored", entry_found, replacement=restored)
        exp = exp.model_copy(
            update={
                "fact": fact_id,
                "title": entry.title,
                "company": entry.company,
                "start": entry.start,
                "end": entry.end,
                "location": entry.location if exp.location.strip() else "",
            }
        )
    bullets = r.lines(f"{where}.bullets", exp.bullets, grouped)
    return exp.model_copy(update={"bullets": bullets})


def _education(
    r: _Repair, i: int, edu: TailoredEducation, grouped: dict[str, list[Finding]]
) -> TailoredEducation | None:
    where = f"education[{i}]"
    found = _under(grouped, where)
    if not found:
        return edu
    said = " in ".join(x for x in (edu.degree, edu.field) if x.strip()) or edu.institution
    held = _held_education(r, edu)
    whole = any(f.where == where and f.kind == "unknown_degree" for f in found)
    if held is None or whole:
        r.change(where, said, "removed", found)
        return None
    entry, fact_id = held
    r.change(where, said, "restored", found, replacement=entry.degree or entry.institution)
    return TailoredEducation(fact=fact_id, **entry.model_dump())


def _contact(contact: Contact, grouped: dict[str, list[Finding]], r: _Repair) -> Contact:
    """The resume's contact details with each changed one put back as the profile has it,
    and each link the profile does not have left out."""
    held = r.profile.contact
    update: dict[str, object] = {}
    for part in ("email", "phone", "location"):
        if found := grouped.get(f"contact.{part}"):
            said, real = getattr(contact, part), getattr(held, part)
            r.change(f"contact.{part}", said, "restored", found, replacement=real)
            update[part] = real
    links = []
    for i, link in enumerate(contact.links):
        if found := grouped.get(f"contact.links[{i}]"):
            r.change(f"contact.links[{i}]", link, "restored", found)
        else:
            links.append(link)
    update["links"] = links
    return contact.model_copy(update=update)


def _one_resume_round(
    resume: TailoredResume, findings: Sequence[Finding], r: _Repair
) -> TailoredResume:
    grouped = _by_where(findings)
    update: dict[str, object] = {}
    if grouped.get("name"):
        r.change("name", resume.name, "restored", grouped["name"], replacement=r.profile.name)
        update["name"] = r.profile.name
    if any(where.startswith("contact.") for where in grouped):
        update["contact"] = _contact(resume.contact, grouped, r)
    summary_facts = [f for f in r.facts.values() if f.kind == "summary"]
    used = {fold(line.text) for line in resume.summary}
    if found := grouped.get("headline"):
        entries = [f for f in r.facts.values() if f.kind == "experience"]
        better = r.closest(resume.headline, entries + summary_facts, used)
        r.change(
            "headline", resume.headline.text, "replaced" if better else "removed", found,
            replacement=better.text if better else "",
        )  # fmt: skip
        update["headline"] = better or Cited(text="", facts=[])
    summary: list[Cited] = []
    for i, line in enumerate(resume.summary):
        found = grouped.get(f"summary[{i}]")
        if not found:
            summary.append(line)
            continue
        better = r.closest(line, summary_facts, used | {fold(s.text) for s in summary})
        r.change(
            f"summary[{i}]", line.text, "replaced" if better else "removed", found,
            replacement=better.text if better else "",
        )  # fmt: skip
        if better:
            summary.append(better)
    update["summary"] = summary
    skills = []
    for i, skill in enumerate(resume.skills):
        if found := grouped.get(f"skills[{i}]"):
            r.change(f"skills[{i}]", skill, "removed", found)
        else:
            skills.append(skill)
    update["skills"] = skills
    r.shown_elsewhere = {
        e.fact
        for i, e in enumerate(resume.experience)
        if not _entry_findings(grouped, f"experience[{i}]")
    }
    update["experience"] = [
        kept
        for i, exp in enumerate(resume.experience)
        if (kept := _experience(r, i, exp, grouped)) is not None
    ]
    update["education"] = [
        held
        for i, edu in enumerate(resume.education)
        if (held := _education(r, i, edu, grouped)) is not None
    ]
    update["extras"] = r.lines("extras", resume.extras, grouped)
    return resume.model_copy(update=update)


def _one_letter_round(
    letter: CoverLetter,
    findings: Sequence[Finding],
    r: _Repair,
    company: str,
    role: str,
) -> CoverLetter:
    grouped = _by_where(findings)
    update: dict[str, object] = {}
    for field, held in (("company", company), ("role", role)):
        if (found := grouped.get(field)) and held.strip():
            said = getattr(letter, field)
            r.change(field, said, "restored", found, replacement=held)
            update[field] = held
    for field, plain in (("greeting", PLAIN_GREETING), ("closing", PLAIN_CLOSING)):
        if found := grouped.get(field):
            r.change(field, getattr(letter, field), "replaced", found, replacement=plain)
            update[field] = plain
    if found := grouped.get("signature"):
        r.change("signature", letter.signature, "restored", found, replacement=r.profile.name)
        update["signature"] = r.profile.name
    paragraphs = []
    for i, paragraph in enumerate(letter.paragraphs):
        kept = r.lines(f"paragraphs[{i}].sentences", paragraph.sentences, grouped)
        if kept:
            paragraphs.append(Paragraph(sentences=kept))
    update["paragraphs"] = paragraphs
    return letter.model_copy(update=update)


def _repair(
    document: D,
    findings: Sequence[Finding],
    lines: int,
    round_: Callable[[D, Sequence[Finding], _Repair], D],
    check: Callable[[D], list[Finding]],
    r: _Repair,
) -> Repaired[D]:
    if not findings:
        return Repaired(document, (), lines, 0)
    for _ in range(_ROUNDS):
        document = round_(document, findings, r)
        findings = check(document)
        if not findings:
            break
    return Repaired(document, tuple(r.changes), lines, r.removed, tuple(findings))


def repair_resume(
    resume: TailoredResume,
    profile: Profile,
    context: ClaimContext,
    findings: Sequence[Finding] | None = None,
) -> Repaired[TailoredResume]:
    """``resume`` with every place its check flags repaired (``findings``: its check's,
    when the caller has them already)."""
    if findings is None:
        findings = check_resume(resume, profile, context)
    return _repair(
        resume,
        findings,
        resume_lines(resume),
        _one_resume_round,
        lambda doc: check_resume(doc, profile, context),
        _Repair(profile, context),
    )


def repair_letter(
    letter: CoverLetter,
    profile: Profile,
    context: ClaimContext,
    findings: Sequence[Finding] | None = None,
    *,
    company: str = "",
    role: str = "",
) -> Repaired[CoverLetter]:
    """``letter`` with every place its check flags repaired; ``company`` and ``role`` are
    the job's (a changed one is restored to them)."""
    if findings is None:
        findings = check_letter(letter, profile, context)
    return _repair(
        letter,
        findings,
        letter_lines(letter),
        lambda doc, found, r: _one_letter_round(doc, found, r, company, role),
        lambda doc: check_letter(doc, profile, context),
        _Repair(profile, context),
    )


def repair_lines(
    lines: Sequence[Cited], profile: Profile, context: ClaimContext, where: str = "answers"
) -> tuple[list[Cited], tuple[Change, ...]]:
    """Other generated lines (answers, drafts): those the check supports, and what was
    removed."""
    r = _Repair(profile, context)
    kept = r.lines(where, lines, _by_where(check_sentences(lines, profile, context, where)))
    return kept, tuple(r.changes)
