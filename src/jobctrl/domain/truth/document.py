"""The truth check every generated document must pass, whichever provider wrote it: a walk
over a tailored resume, a cover letter or Apply's answers that holds each line to the
profile facts it cites (``domain.facts``), and only those.

- Each ``Cited`` line: a cited id the profile lacks is ``unknown_fact``; the sentence goes
  to ``claims.check_sentence`` with the facts it cites plus their parents (a highlight's
  experience entry), which reports every claim those facts do not support.
- Structured fields are checked against the entry they name:
  - ``wrong_name``: the name (or a letter's signature) is not the profile's (case,
    whitespace and diacritics aside);
  - an experience entry's ``fact`` must be one of the profile's experience entries
    (``unknown_fact`` when it is not, ``wrong_entry`` when it names another kind of fact);
    ``unknown_employer`` when its company is none of the profile's (``wrong_entry`` when
    it is another entry's); ``unknown_title`` when the title, by alias, is not that
    entry's; ``changed_dates`` when start or end differ once any spelling is normalised
    ("Mar 2021" = "2021-03" = "03/2021"; "Present" = "" = "present"; a year alone may
    stand for its month, never the reverse; dates left out are no claim);
  - a bullet may cite highlights (and the entry) of its own entry only: ``wrong_entry``;
  - an education entry likewise: ``unknown_degree`` when its institution, degree or field
    (each may be left out) is not that entry's, ``changed_dates`` for its dates;
  - ``unknown_skill``: a listed skill that is neither a profile skill nor found in any
    fact's text, by alias ("Postgres" is PostgreSQL, "CI/CD pipelines" is found in "a
    CI/CD pipeline");
  - a letter's greeting and closing cite nothing, so they may name only the job's company
    and role (``context.free_names``); its ``company`` and ``role`` fields must be those
    (``name`` when they are not).

A ``Finding`` names the place (``experience[0].bullets[2]``), the line it came from and the
offending words. Findings are domain data for the person (``jobctrl show``, the Job page);
``FabricationError``'s message carries only counts and kinds, never generated text.

The checker is domain code: it reads the profile's facts, the claim checker
(``domain.truth.claims``) and the field comparisons (``domain.truth.fields``, over the alias
list, ``domain.truth.quantities`` and the shared vocabulary), never the offline scorer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from jobctrl.domain.errors import (
    COVER_FABRICATION,
    PROVIDER_INVALID_OUTPUT,
    TAILOR_FABRICATION,
    StageError,
)
from jobctrl.domain.facts import Fact, education_fact_id, experience_fact_id, fact_index
from jobctrl.domain.materials import (
    Cited,
    CoverLetter,
    TailoredEducation,
    TailoredExperience,
    TailoredResume,
)
from jobctrl.domain.profile import Contact, Education, Experience, Profile
from jobctrl.domain.truth.aliases import alias_table
from jobctrl.domain.truth.claims import ClaimContext, check_sentence
from jobctrl.domain.truth.fields import (
    SkillEvidence,
    changed_dates,
    degree_changes,
    person_name_key,
    same_phrase,
)

__all__ = [
    "MAX_CLAIM",
    "MAX_SENTENCE",
    "FabricationError",
    "Finding",
    "assert_letter_truthful",
    "assert_resume_truthful",
    "check_letter",
    "check_resume",
    "check_sentences",
    "profile_text",
    "refusal",
]

MAX_SENTENCE = 300  # characters of a finding's line
MAX_CLAIM = 120  # characters of its offending words


@dataclass(frozen=True)
class Finding:
    """One unsupported claim."""

    where: str  # "headline", "experience[0].bullets[2]", "paragraphs[1].sentences[0]", …
    sentence: str  # the line it came from, cut to MAX_SENTENCE characters
    kind: str  # a claims.ClaimKind, or wrong_name, unknown_employer, unknown_title,
    # changed_dates, unknown_degree, unknown_skill, unknown_fact, wrong_entry
    claim: str  # the offending words, cut to MAX_CLAIM characters


class FabricationError(StageError):
    """A document claims what its cited facts do not support (never retried: the same
    generation would fail the same way; a regenerate is a new attempt)."""

    def __init__(
        self, code: str, findings: list[Finding], *, repair_requested: bool = False
    ) -> None:
        if not findings:  # "not supported (0 unsupported claims)" is no reason: ``refusal``
            raise ValueError("a fabrication names at least one unsupported claim")
        kinds = list(dict.fromkeys(f.kind for f in findings))
        shown = ", ".join(kinds[:3]) + (" and more" if len(kinds) > 3 else "")
        count = f"{len(findings)} unsupported claim{'s' if len(findings) != 1 else ''}"
        what = "cover letter" if code == COVER_FABRICATION else "tailored resume"
        super().__init__(
            code,
            f"{what} is not supported by the profile: {shown} ({count})",
            retryable=False,
        )
        self.findings = tuple(findings)
        self.repair_requested = repair_requested  # the one repair request was made


def refusal(code: str, findings: Sequence[Finding], *, repair_requested: bool) -> StageError:
    """Why a document the check could not keep is refused: its unsupported claims
    (``FabricationError``), or, when it found none, that what was written says nothing of
    the person (no role, no summary, no sentence citing the profile): an unusable answer,
    never "a fabrication of 0 claims". Not retried automatically; a person's retry asks
    again."""
    if findings:
        return FabricationError(code, list(findings), repair_requested=repair_requested)
    what = "cover letter" if code == COVER_FABRICATION else "tailored resume"
    return StageError(
        PROVIDER_INVALID_OUTPUT,
        f"the {what} written says nothing from the profile (no role, no summary); "
        "nothing was saved",
    )


# -- the walk --------------------------------------------------------------------------------


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _finding(where: str, sentence: str, kind: str, claim: str) -> Finding:
    return Finding(where, _cut(sentence, MAX_SENTENCE), kind, _cut(claim, MAX_CLAIM))


class _Walk:
    """One document's check: the profile's facts, the context and the findings so far."""

    def __init__(self, profile: Profile, context: ClaimContext) -> None:
        self.profile = profile
        self.aliases = alias_table(context.extra_aliases)
        self.facts = fact_index(profile)
        # A sentence's content words may come from anywhere in the profile (claims.py).
        texts = tuple(f.text for f in self.facts.values() if f.kind != "name")
        self.context = context if context.profile else replace(context, profile=texts)
        self.findings: list[Finding] = []

    def add(self, where: str, sentence: str, kind: str, claim: str) -> None:
        self.findings.append(_finding(where, sentence, kind, claim))

    def cited(self, where: str, line: Cited) -> list[Fact]:
        """The line's cited facts (an unknown id is reported) plus their parents."""
        found: dict[str, Fact] = {}
        for fact_id in dict.fromkeys(line.facts):
            fact = self.facts.get(fact_id)
            if fact is None:
                self.add(where, line.text, "unknown_fact", fact_id)
                continue
            found.setdefault(fact.id, fact)
        for fact in list(found.values()):
            parent = self.facts.get(fact.parent) if fact.parent else None
            if parent is not None:
                found.setdefault(parent.id, parent)
        return list(found.values())

    def line(self, where: str, line: Cited) -> list[Fact]:
        """Check one cited line; its cited facts (with parents) for the caller's own rules."""
        cited = self.cited(where, line)
        if line.text.strip():
            for claim in check_sentence(line.text, cited, self.context):
                self.add(where, line.text, claim.kind, claim.claim)
        return cited

    def uncited(self, where: str, text: str) -> None:
        """A line that cites nothing (greeting, closing): politeness and the free names."""
        self.line(where, Cited(text=text, facts=[]))

    def lines(self, where: str, lines: Iterable[Cited]) -> None:
        for i, line in enumerate(lines):
            self.line(f"{where}[{i}]", line)

    def same(self, said: str, held: str) -> bool:
        """Two spellings of one title, employer or school, by alias."""
        return same_phrase(said, held, self.aliases)

    def name(self, where: str, name: str) -> None:
        if person_name_key(name) != person_name_key(self.profile.name):
            self.add(where, name, "wrong_name", name)

    # -- resume fields

    def experience(self, i: int, exp: TailoredExperience) -> None:
        where = f"experience[{i}]"
        said = _entry_text(exp.title, exp.company, exp.start, exp.end)
        entry = None
        if not any(self.same(exp.company, p.company) for p in self.profile.experience):
            self.add(f"{where}.company", said, "unknown_employer", exp.company)
        elif entry := self._entry(where, said, exp.fact, "experience"):
            if not self._against_entry(where, said, exp, entry):
                entry = None  # named another employer's entry: its bullets are not judged by it
        else:  # no entry named: held to the profile's entries at that company
            self._against_company(where, said, exp)
        for j, bullet in enumerate(exp.bullets):
            spot = f"{where}.bullets[{j}]"
            cited = self.line(spot, bullet)
            if entry is None:
                continue
            for fact in cited:
                other = (fact.kind == "highlight" and fact.parent != entry.id) or (
                    fact.kind == "experience" and fact.id != entry.id
                )
                if other:
                    self.add(spot, bullet.text, "wrong_entry", fact.text)

    def _entry(self, where: str, said: str, fact_id: str, kind: str) -> Fact | None:
        fact = self.facts.get(fact_id)
        if fact is None:
            self.add(where, said, "unknown_fact", fact_id or "(no fact cited)")
            return None
        if fact.kind != kind:
            self.add(where, said, "wrong_entry", f"{fact_id} is a {fact.kind}, not {kind}")
            return None
        return fact

    def _against_entry(self, where: str, said: str, exp: TailoredExperience, entry: Fact) -> bool:
        """Title and dates against the named entry; False when it is another employer's."""
        held = next(p for p in self.profile.experience if _is_entry(p, entry))
        if not self.same(exp.company, held.company):
            self.add(f"{where}.company", said, "wrong_entry", exp.company)
            return False
        if not self.same(exp.title, held.title):
            self.add(f"{where}.title", said, "unknown_title", exp.title)
        for part, claim in changed_dates(exp.start, exp.end, held.start, held.end, open_end=True):
            self.add(f"{where}.{part}", said, "changed_dates", claim)
        if exp.location.strip() and not self.same(exp.location, held.location):
            self.add(f"{where}.location", said, "changed_location", exp.location)
        return True

    def contact(self, contact: Contact) -> None:
        """The resume's contact details: each one given must be the profile's (leaving one
        out is no claim); a link must be one of the profile's links."""
        held = self.profile.contact
        for part in ("email", "phone", "location"):
            said = getattr(contact, part)
            if said.strip() and _contact_key(part, said) != _contact_key(part, getattr(held, part)):
                self.add(f"contact.{part}", said, "changed_contact", said)
        links = {_contact_key("link", link) for link in held.links}
        for i, link in enumerate(contact.links):
            if link.strip() and _contact_key("link", link) not in links:
                self.add(f"contact.links[{i}]", link, "changed_contact", link)

    def _against_company(self, where: str, said: str, exp: TailoredExperience) -> None:
        at = [p for p in self.profile.experience if self.same(exp.company, p.company)]
        titled = [p for p in at if self.same(exp.title, p.title)]
        if not titled:
            self.add(f"{where}.title", said, "unknown_title", exp.title)
            return
        changes = [changed_dates(exp.start, exp.end, p.start, p.end, open_end=True) for p in titled]
        if all(changes):
            for part, claim in changes[0]:
                self.add(f"{where}.{part}", said, "changed_dates", claim)

    def education(self, i: int, edu: TailoredEducation) -> None:
        where = f"education[{i}]"
        said = _education_text(edu)
        fact = self.facts.get(edu.fact)
        if fact is not None and fact.kind == "education":
            held = next(p for p in self.profile.education if _is_entry(p, fact))
        else:  # no entry named: an entry it matches, or none (a degree not held)
            same = [p for p in self.profile.education if not degree_changes(edu, p, self.aliases)]
            if not same:
                self.add(where, said, "unknown_degree", said)
                return
            self._entry(where, said, edu.fact, "education")  # reports the citation
            held = same[0]
        for part, claim in degree_changes(edu, held, self.aliases):
            self.add(f"{where}.{part}", said, "unknown_degree", claim)
        for part, claim in changed_dates(edu.start, edu.end, held.start, held.end, open_end=False):
            self.add(f"{where}.{part}", said, "changed_dates", claim)

    def skills(self, skills: Sequence[str]) -> None:
        texts = [f.text for f in self.facts.values() if f.kind != "name"]
        held = SkillEvidence(
            [f.text for f in self.facts.values() if f.kind == "skill"], texts, self.aliases
        )
        for i, skill in enumerate(skills):
            if skill.strip() and not held.supported(skill):
                self.add(f"skills[{i}]", skill, "unknown_skill", skill)


def check_resume(resume: TailoredResume, profile: Profile, context: ClaimContext) -> list[Finding]:
    """Every claim of ``resume`` its cited facts do not support; [] when it is truthful.
    Contact details must be the profile's; the order of things is not checked."""
    walk = _Walk(profile, context)
    walk.name("name", resume.name)
    walk.contact(resume.contact)
    if resume.headline.text.strip():
        walk.line("headline", resume.headline)
    walk.lines("summary", resume.summary)
    walk.skills(resume.skills)
    for i, exp in enumerate(resume.experience):
        walk.experience(i, exp)
    for i, edu in enumerate(resume.education):
        walk.education(i, edu)
    walk.lines("extras", resume.extras)
    return walk.findings


def check_letter(letter: CoverLetter, profile: Profile, context: ClaimContext) -> list[Finding]:
    """Every claim of ``letter`` its cited facts do not support; [] when it is truthful."""
    walk = _Walk(profile, context)
    free = [n for n in context.free_names if n.strip()]
    for field, value in (("company", letter.company), ("role", letter.role)):
        if free and value.strip() and not any(walk.same(value, n) for n in free):
            walk.add(field, value, "name", value)
    walk.uncited("greeting", letter.greeting)
    for i, paragraph in enumerate(letter.paragraphs):
        walk.lines(f"paragraphs[{i}].sentences", paragraph.sentences)
    walk.uncited("closing", letter.closing)
    walk.name("signature", letter.signature)
    return walk.findings


def check_sentences(
    lines: Sequence[Cited], profile: Profile, context: ClaimContext, where: str = "answers"
) -> list[Finding]:
    """Any other generated lines (Apply's answers): each held to its cited facts."""
    walk = _Walk(profile, context)
    walk.lines(where, lines)
    return walk.findings


def assert_resume_truthful(resume: TailoredResume, profile: Profile, context: ClaimContext) -> None:
    """Raise ``FabricationError`` (``TAILOR_FABRICATION``) unless ``resume`` is truthful."""
    findings = check_resume(resume, profile, context)
    if findings:
        raise FabricationError(TAILOR_FABRICATION, findings)


def assert_letter_truthful(letter: CoverLetter, profile: Profile, context: ClaimContext) -> None:
    """Raise ``FabricationError`` (``COVER_FABRICATION``) unless ``letter`` is truthful."""
    findings = check_letter(letter, profile, context)
    if findings:
        raise FabricationError(COVER_FABRICATION, findings)


def profile_text(profile: Profile) -> str:
    """The profile's own words a skill may be found in (not company names or contact)."""
    parts = [profile.summary, *profile.skills]
    for exp in profile.experience:
        parts.extend([exp.title, *exp.bullets])
    for edu in profile.education:
        parts.extend([edu.degree, edu.field])
    return "\n".join(p for p in parts if p.strip())


# -- entries ---------------------------------------------------------------------------------


def _contact_key(part: str, value: str) -> str:
    """A contact detail as compared: a phone by its digits, a link without its scheme,
    ``www.`` and trailing slash, anything else without case and extra spaces."""
    text = " ".join(value.split()).casefold()
    if part == "phone":
        return "".join(ch for ch in text if ch.isdigit())
    if part == "link":
        text = text.removeprefix("https://").removeprefix("http://").removeprefix("www.")
        return text.rstrip("/")
    return text


def _is_entry(held: Experience | Education, fact: Fact) -> bool:
    if isinstance(held, Experience):
        return experience_fact_id(held) == fact.id
    return education_fact_id(held) == fact.id


def _entry_text(title: str, company: str, start: str, end: str) -> str:
    text = f"{title} at {company}"
    when = " – ".join(x for x in (start, end) if x.strip())
    return f"{text}, {when}" if when else text


def _education_text(edu: TailoredEducation) -> str:
    what = " in ".join(x for x in (edu.degree, edu.field) if x.strip())
    text = f"{what} at {edu.institution}" if what else edu.institution
    when = " – ".join(x for x in (edu.start, edu.end) if x.strip())
    return f"{text}, {when}" if when else text
