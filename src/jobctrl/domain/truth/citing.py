"""Citing a person's edit: each line of an edited resume or letter is given the profile
facts it rests on, so that the truth check reads it as it reads generated text (the check
is ``document.check_resume`` / ``document.check_letter``, unchanged; nothing here repairs
or drops a line: a person's words are checked and shown, never rewritten).

- A line the edited generation had, word for word, keeps what it cited there.
- A new or changed line is split into its sentences; each cites the first set the check
  passes of: nothing (it claims nothing about the person), the facts sharing its words,
  every fact it may cite. When none passes it cites the widest, and the check then says
  what of it the profile does not support.
- A resume bullet may cite its own entry's facts and the profile's other facts, never
  another job's; an entry names the profile entry with its employer and title (its start
  date decides between two stints), a degree the entry at its school.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from jobctrl.domain.facts import (
    Fact,
    education_fact_id,
    experience_fact_id,
    fact_index,
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
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth.aliases import alias_table, fold, word_tokens
from jobctrl.domain.truth.claims import ClaimContext
from jobctrl.domain.truth.document import check_sentences
from jobctrl.domain.truth.fields import same_phrase

__all__ = ["cite_letter", "cite_resume"]

_MIN_WORD = 4  # shorter words ("the", "and", "for") tell nothing of a fact


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def _known(lines: Iterable[Cited]) -> dict[str, list[str]]:
    known: dict[str, list[str]] = {}
    for line in lines:
        known.setdefault(_key(line.text), list(line.facts))
    return known


class _Citer:
    def __init__(self, profile: Profile, context: ClaimContext, known: dict[str, list[str]]):
        self.profile = profile
        self.context = context
        self.facts = fact_index(profile)
        self.known = known
        self.aliases = alias_table(context.extra_aliases)

    def passes(self, text: str, facts: list[str]) -> bool:
        return not check_sentences([Cited(text=text, facts=facts)], self.profile, self.context)

    def sentence(self, text: str, allowed: Sequence[Fact]) -> Cited:
        words = {w for w in word_tokens(fold(text)) if len(w) >= _MIN_WORD}
        sharing = [f.id for f in allowed if words & set(word_tokens(fold(f.text)))]
        widest = [f.id for f in allowed]
        for facts in ([], sharing, widest):
            if self.passes(text, facts):
                return Cited(text=text, facts=facts)
        return Cited(text=text, facts=widest)

    def line(self, line: Cited, allowed: Sequence[Fact] | None = None) -> list[Cited]:
        """``line`` cited: as the edited generation cited it, else sentence by sentence."""
        known = self.known.get(_key(line.text))
        if known is not None:
            return [Cited(text=line.text, facts=known)]
        pool = list(self.facts.values()) if allowed is None else allowed
        return [self.sentence(s, pool) for s in summary_sentences(line.text)]

    def lines(self, lines: Iterable[Cited], allowed: Sequence[Fact] | None = None) -> list[Cited]:
        return [cited for line in lines for cited in self.line(line, allowed)]

    def experience(self, exp: TailoredExperience) -> TailoredExperience:
        at = [
            p for p in self.profile.experience if same_phrase(exp.company, p.company, self.aliases)
        ]
        titled = [p for p in at if same_phrase(exp.title, p.title, self.aliases)] or at
        dated = [p for p in titled if _key(p.start) == _key(exp.start)] or titled
        entry = experience_fact_id(dated[0]) if dated else ""
        allowed = [f for f in self.facts.values() if not self.other_job(f, entry)]
        bullets = self.lines(exp.bullets, allowed)
        return exp.model_copy(update={"fact": entry, "bullets": bullets})

    def other_job(self, fact: Fact, entry: str) -> bool:
        """A fact of another experience entry than ``entry`` (none: any is allowed)."""
        if not entry:
            return False
        parent = self.facts.get(fact.parent) if fact.parent else None
        of_job = fact.kind == "experience" or (parent is not None and parent.kind == "experience")
        return of_job and entry not in (fact.id, fact.parent)

    def education(self, edu: TailoredEducation) -> TailoredEducation:
        at = [
            p
            for p in self.profile.education
            if same_phrase(edu.institution, p.institution, self.aliases)
        ]
        same = [p for p in at if same_phrase(edu.degree, p.degree, self.aliases)] or at
        return edu.model_copy(update={"fact": education_fact_id(same[0]) if same else ""})


def cite_letter(
    letter: CoverLetter, edited: CoverLetter | None, profile: Profile, context: ClaimContext
) -> CoverLetter:
    """``letter`` (read from a person's text) with each sentence citing what it rests on;
    ``edited``: the generation the person edited (its lines keep their citations)."""
    base = [s for p in edited.paragraphs for s in p.sentences] if edited else []
    citer = _Citer(profile, context, _known(base))
    paragraphs = [Paragraph(sentences=citer.lines(p.sentences)) for p in letter.paragraphs]
    return letter.model_copy(update={"paragraphs": [p for p in paragraphs if p.sentences]})


def cite_resume(
    resume: TailoredResume, edited: TailoredResume | None, profile: Profile, context: ClaimContext
) -> TailoredResume:
    """``resume`` (read from a person's text) with each line citing what it rests on and
    each entry naming its profile entry; ``edited``: the generation the person edited."""
    base: list[Cited] = []
    if edited:
        base = [edited.headline, *edited.summary, *edited.extras]
        base += [b for exp in edited.experience for b in exp.bullets]
    citer = _Citer(profile, context, _known(base))
    headline = citer.line(resume.headline) if resume.headline.text.strip() else []
    return resume.model_copy(
        update={
            # a headline the person split into sentences stays one line
            "headline": Cited(
                text=resume.headline.text,
                facts=list(dict.fromkeys(f for h in headline for f in h.facts)),
            ),
            "summary": citer.lines(resume.summary),
            "experience": [citer.experience(e) for e in resume.experience],
            "education": [citer.education(e) for e in resume.education],
            "extras": citer.lines(resume.extras),
        }
    )
