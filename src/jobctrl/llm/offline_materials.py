"""The built-in offline materials provider: a tailored resume and cover letter, no model.

Both are extractive and deterministic. The resume keeps every fact of the profile and only
reorders: experience stays most-recent first, as in the profile; each role's bullets are
ordered by how many matched requirements quote them as evidence (ties keep profile order)
and cut to the best ``MAX_BULLETS``; skills the report matched come first. The headline is
the most recent title the person held, never the posting's title.

Both cite by construction (``domain.facts``): each bullet cites its highlight, each summary
sentence its summary fact, the headline and each entry the experience entry it is, each
education entry its own fact, each extra line (languages on one line, then each
certification and award) the facts it lists. So the result passes ``domain.truth``'s
checks.

The cover letter quotes the profile's own bullets as evidence for up to three matched
requirements (each sentence citing the highlight it quotes, its experience entry and the
skills it names), names a missing must-have honestly only when asked to (the setting
``materials.mention_gaps``, off by default: else it says nothing of gaps), and is trimmed to
``max_words`` by dropping evidence first. The sentences about the role and politeness cite
nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jobctrl.domain.facts import (
    Fact,
    education_fact_id,
    experience_fact_id,
    profile_facts,
    summary_sentences,
)
from jobctrl.domain.materials import (
    Cited,
    CoverLetter,
    Paragraph,
    TailoredEducation,
    TailoredExperience,
    TailoredResume,
)
from jobctrl.domain.profile import Experience, Profile
from jobctrl.domain.scoring import RequirementFit, ScoreReport
from jobctrl.domain.truth.document import profile_text
from jobctrl.domain.vocabulary import GENERIC_TERMS, TERMS, WORD_LEFT, WORD_RIGHT, term_for

__all__ = ["MAX_BULLETS", "MAX_EVIDENCE_SENTENCES", "cover_offline", "tailor_offline"]

MAX_BULLETS = 5  # per role, after ordering by evidence
MAX_EVIDENCE_SENTENCES = 3

_BULLET_REF = re.compile(r"^experience\[(\d+)\]\.bullets\[(\d+)\]$")
_SKILL_REF = re.compile(r"^skills\[(\d+)\]$")
_PRESENT = frozenset({"", "present", "current", "now", "today", "ongoing"})
# First words that read as "I <verb> ..." once lowercased; anything else is quoted as is.
_VERBS = frozenset(
    """built led ran wrote made drove grew won set cut taught brought began took gave kept held
    found rebuilt rewrote oversaw sold spent chose build lead run write make drive grow own
    design develop maintain manage mentor ship deliver create scale migrate automate reduce
    improve support deploy launch""".split()  # noqa: SIM905
)


_LEADS = ("You ask for {terms}:", "For {terms},", "And for {terms},")


def _matched(report: ScoreReport) -> list[RequirementFit]:
    return [fit for fit in report.requirements if fit.matched]


def _bullet_evidence(report: ScoreReport) -> dict[tuple[int, int], int]:
    """(experience index, bullet index) -> how many matched requirements quote that bullet."""
    counts: dict[tuple[int, int], int] = {}
    for fit in _matched(report):
        refs = {e.ref for e in fit.evidence}
        for ref in refs:
            match = _BULLET_REF.match(ref)
            if match:
                key = (int(match.group(1)), int(match.group(2)))
                counts[key] = counts.get(key, 0) + 1
    return counts


def _skill_order(profile: Profile, report: ScoreReport) -> list[str]:
    labels = {t.casefold() for fit in _matched(report) for t in fit.matched_terms}
    quoted = {
        int(m.group(1))
        for fit in _matched(report)
        for e in fit.evidence
        if (m := _SKILL_REF.match(e.ref))
    }

    def matched(i: int, skill: str) -> bool:
        if i in quoted or skill.casefold() in labels:
            return True
        term = term_for(skill)
        return term is not None and term.label.casefold() in labels

    ranked = sorted(enumerate(profile.skills), key=lambda p: (not matched(*p), p[0]))
    return [skill for _, skill in ranked]


@dataclass(frozen=True)
class _FactIds:
    """The ids of the profile's facts, looked up by what the writer quotes."""

    summary: dict[str, str]  # sentence -> id
    skills: dict[str, str]  # casefolded skill -> id
    highlights: dict[tuple[str, str], str]  # (entry id, bullet) -> id

    @classmethod
    def of(cls, profile: Profile) -> _FactIds:
        facts = profile_facts(profile)
        return cls(
            summary={f.text: f.id for f in facts if f.kind == "summary"},
            skills={f.text.casefold(): f.id for f in facts if f.kind == "skill"},
            highlights={(f.parent or "", f.text): f.id for f in facts if f.kind == "highlight"},
        )

    def highlight(self, exp: Experience, bullet: str) -> list[str]:
        found = self.highlights.get((experience_fact_id(exp), bullet.strip()))
        return [found] if found else []

    def skill(self, term: str) -> str | None:
        """The id of the profile skill ``term`` is (by name, or by the vocabulary's alias)."""
        if term.casefold() in self.skills:
            return self.skills[term.casefold()]
        wanted = term_for(term)
        for skill, fact in self.skills.items():
            if wanted is not None and term_for(skill) == wanted:
                return fact
        return None


def _line(text: str, *facts: str) -> Cited:
    return Cited(text=text, facts=list(dict.fromkeys(f for f in facts if f)))


def _extras(facts: list[Fact]) -> list[Cited]:
    """Languages on one line, then a line per certification and per award, each citing
    its facts, worded as the facts are."""
    languages = [f for f in facts if f.kind == "language"]
    lines = [
        _line("Languages: " + ", ".join(f.text for f in languages), *(f.id for f in languages))
    ]
    lines += [_line(f.text, f.id) for f in facts if f.kind in ("certification", "award")]
    return lines[1:] if not languages else lines


def tailor_offline(
    profile: Profile, report: ScoreReport, job_title: str | None, company: str | None
) -> TailoredResume:
    """The profile's own facts, reordered for the posting the report scored.

    ``job_title`` and ``company`` are part of the provider interface; the offline resume
    does not use them, so it never claims the posting's title.
    """
    ids = _FactIds.of(profile)
    evidence = _bullet_evidence(report)
    experience: list[TailoredExperience] = []
    for i, exp in enumerate(profile.experience):
        order = sorted(range(len(exp.bullets)), key=lambda j: (-evidence.get((i, j), 0), j))
        bullets = [exp.bullets[j] for j in order if exp.bullets[j].strip()]
        experience.append(
            TailoredExperience(
                fact=experience_fact_id(exp),
                title=exp.title,
                company=exp.company,
                start=exp.start,
                end=exp.end,
                location=exp.location,
                bullets=[_line(b, *ids.highlight(exp, b)) for b in bullets[:MAX_BULLETS]],
            )
        )
    latest = profile.experience[0] if profile.experience else None
    return TailoredResume(
        name=profile.name,
        contact=profile.contact.model_copy(deep=True),
        headline=_line(latest.title, experience_fact_id(latest)) if latest else _line(""),
        summary=[_line(s, ids.summary.get(s, "")) for s in summary_sentences(profile.summary)],
        skills=_skill_order(profile, report),
        experience=experience,
        education=[
            TailoredEducation(fact=education_fact_id(e), **e.model_dump())
            for e in profile.education
        ],
        extras=_extras(profile_facts(profile)),
    )


# -- the cover letter ------------------------------------------------------------------------


def _join(items: list[str], word: str = "and") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def _in_first_person(bullet: str) -> str:
    text = bullet.strip().rstrip(".;")
    first, _, rest = text.partition(" ")
    verb = first.lower() in _VERBS or (first.lower().endswith("ed") and len(first) > 3)
    if verb and first.isalpha() and first[0].isupper() and first[1:].islower():
        return f"I {first.lower()} {rest}".rstrip() + "."
    return f"my work included this: {text}."


def _named_terms(
    fit: RequirementFit, bullet: str, ids: _FactIds, known: set[str]
) -> tuple[list[str], list[str]]:
    """Up to three of the terms ``fit`` matched that the sentence may name, and the skill
    facts it cites for them: a term the quoted bullet states needs none, a profile skill
    cites that skill, any other term is left out (no fact would back it)."""
    terms: list[str] = []
    skills: list[str] = []
    for term in dict.fromkeys(fit.matched_terms):
        if term.casefold() not in known or any(c.isdigit() for c in term):
            continue
        vocabulary = term_for(term)
        in_bullet = vocabulary.pattern.search(bullet) if vocabulary else None
        in_bullet = in_bullet or re.search(
            WORD_LEFT + re.escape(term) + WORD_RIGHT, bullet, re.IGNORECASE
        )
        skill = None if in_bullet else ids.skill(term)
        if in_bullet or skill:
            terms.append(term)
            skills += [skill] if skill else []
        if len(terms) == 3:
            break
    return terms, skills


def _evidence_sentences(profile: Profile, report: ScoreReport, ids: _FactIds) -> list[Cited]:
    known = {t.label.casefold() for t in TERMS} | {s.casefold() for s in profile.skills}
    fits = sorted(_matched(report), key=lambda fit: fit.kind != "must")  # stable: musts first
    used: set[tuple[int, int]] = set()
    sentences: list[Cited] = []
    for fit in fits:
        refs = [m for e in fit.evidence if (m := _BULLET_REF.match(e.ref))]
        spots = [(int(m.group(1)), int(m.group(2))) for m in refs]
        spots = [
            (i, j)
            for i, j in spots
            if (i, j) not in used
            and i < len(profile.experience)
            and j < len(profile.experience[i].bullets)
        ]
        if not spots:
            continue
        i, j = spots[0]
        used.add((i, j))
        exp = profile.experience[i]
        bullet = exp.bullets[j]
        terms, skills = _named_terms(fit, bullet, ids, known)
        cites = [*ids.highlight(exp, bullet), experience_fact_id(exp), *skills]
        body = _in_first_person(bullet)
        if terms:
            lead = _LEADS[min(len(sentences), len(_LEADS) - 1)].format(terms=_join(terms))
            sentences.append(_line(f"{lead} at {exp.company} {body}", *cites))
        else:
            sentences.append(_line(f"At {exp.company}, {body}", *cites))
        if len(sentences) >= MAX_EVIDENCE_SENTENCES:
            break
    if not sentences:  # nothing matched: the most recent role's lead bullet still speaks
        for exp in profile.experience:
            bullet = next((b for b in exp.bullets if b.strip()), "")
            if bullet:
                cites = [*ids.highlight(exp, bullet), experience_fact_id(exp)]
                sentences.append(_line(f"At {exp.company}, {_in_first_person(bullet)}", *cites))
                break
    return sentences


def _gap_sentence(profile: Profile, report: ScoreReport) -> str:
    corpus = profile_text(profile)
    for fit in report.requirements:
        if fit.matched or fit.kind != "must":
            continue
        missing = [
            t.label
            for t in TERMS
            if t.key not in GENERIC_TERMS
            and t.pattern.search(fit.requirement)
            and not t.pattern.search(corpus)
            and not any(c.isdigit() for c in t.label)
        ][:2]
        if missing:
            it = "them" if len(missing) > 1 else "it"
            return (
                f"I have not yet worked with {_join(missing, 'or')}, and I would welcome "
                f"the chance to learn {it} on the job."
            )
    return ""


def _intro(profile: Profile, role: str, company: str, *, full: bool) -> list[Cited]:
    what = f"the {role} role" if role else "this role"
    lines = [_line(f"I am writing to apply for {what}" + (f" at {company}." if company else "."))]
    if full and profile.experience:
        exp = profile.experience[0]
        article = "an" if exp.title[:1].lower() in "aeiou" else "a"
        if exp.end.strip().lower() in _PRESENT:
            text = f"I currently work as {article} {exp.title} at {exp.company}."
        else:
            text = f"Most recently I worked as {article} {exp.title} at {exp.company}."
        lines.append(_line(text, experience_fact_id(exp)))
    return lines


def _fit(paragraphs: list[Paragraph], budget: int) -> list[Paragraph]:
    """Cut words from the end until ``budget`` words remain (the last resort); a cut
    sentence keeps its citations (it says less, never more)."""
    out: list[Paragraph] = []
    for paragraph in paragraphs:
        kept: list[Cited] = []
        for sentence in paragraph.sentences:
            words = sentence.text.split()
            if budget <= 0:
                break
            if len(words) > budget:
                cut = " ".join(words[:budget]).rstrip(",;:") + "…"
                kept.append(sentence.model_copy(update={"text": cut}))
                budget = 0
                break
            kept.append(sentence)
            budget -= len(words)
        if kept:
            out.append(Paragraph(sentences=kept))
        if budget <= 0:
            break
    return out


def cover_offline(
    profile: Profile,
    report: ScoreReport,
    job_title: str | None,
    company: str | None,
    *,
    max_words: int = 350,
    mention_gaps: bool = False,
) -> CoverLetter:
    """A short letter that backs each claim with a line from the profile; with
    ``mention_gaps`` (the setting ``materials.mention_gaps``) it also names one missing
    must-have, else it says nothing of what the person lacks."""
    company_name = (company or "").strip()
    role = (job_title or "").strip()
    greeting = f"Dear Hiring Team at {company_name}," if company_name else "Dear Hiring Team,"
    evidence = _evidence_sentences(profile, report, _FactIds.of(profile))
    gap = _gap_sentence(profile, report) if mention_gaps else ""
    closing_paragraph = Paragraph(
        sentences=[
            _line("Thank you for considering my application."),
            _line(f"I would be glad to talk about how I could help {company_name or 'your team'}."),
        ]
    )

    def letter(n_evidence: int, with_gap: bool, full_intro: bool) -> CoverLetter:
        paragraphs = [Paragraph(sentences=_intro(profile, role, company_name, full=full_intro))]
        if n_evidence:
            paragraphs.append(Paragraph(sentences=evidence[:n_evidence]))
        if with_gap and gap:
            paragraphs.append(Paragraph(sentences=[_line(gap)]))
        paragraphs.append(closing_paragraph)
        return CoverLetter(
            company=company_name,
            role=role,
            greeting=greeting,
            paragraphs=paragraphs,
            signature=profile.name,
        )

    # Preference order: drop evidence sentences first, then the gap line, then the intro's
    # second sentence, then the last evidence sentence.
    first = min(1, len(evidence))
    options = [(n, True, True) for n in range(len(evidence), first - 1, -1)]
    options += [(first, False, True), (first, False, False), (0, False, False)]
    for n, with_gap, full_intro in options:
        candidate = letter(n, with_gap, full_intro)
        if candidate.word_count() <= max_words:
            return candidate
    shortest = letter(0, False, False)
    budget = max_words - len(shortest.greeting.split()) - len(shortest.closing.split())
    return shortest.model_copy(update={"paragraphs": _fit(shortest.paragraphs, budget)})
