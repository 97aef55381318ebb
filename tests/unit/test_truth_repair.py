"""Repair instead of refusal (issue 27): a document keeps what its check supports.

Each place the check flags is repaired and only those: a sentence removed, the headline or
a summary sentence replaced by the closest supported one, a changed field restored from
the entry it names, an invented entry removed with its bullets; the repaired document is
checked again and is clean. Over the whole truth corpus: every planted lie is gone from
the repaired document, and a truthful document is left as it was.
"""

from __future__ import annotations

import json

import pytest

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.facts import education_fact_id, experience_fact_id, profile_facts
from jobctrl.domain.materials import (
    Cited,
    CoverLetter,
    Paragraph,
    TailoredEducation,
    TailoredExperience,
    TailoredResume,
)
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth.claims import ClaimContext
from jobctrl.domain.truth.document import check_letter, check_resume
from jobctrl.domain.truth.repair import (
    PLAIN_GREETING,
    reason,
    repair_letter,
    repair_lines,
    repair_resume,
)
from tests.unit.truth_corpus import evaluate
from tests.unit.truth_corpus.corpus import load_profile
from tests.unit.truth_corpus.evaluate import FABRICATIONS, TRUTHFUL, context, document

PROFILE = Profile(**DEMO_PROFILE)
CONTEXT = ClaimContext(free_names=("Acme Logistics", "Senior Backend Engineer"))
FACTS = profile_facts(PROFILE)
NOW, BEFORE = PROFILE.experience[0], PROFILE.experience[1]


def _id(prefix: str) -> str:
    """The id of the first fact whose text starts with ``prefix``."""
    return next(f.id for f in FACTS if f.text.startswith(prefix))


KAFKA = _id("Built an event pipeline on Kafka")
MENTORED = _id("Mentored four engineers")
SUMMARY = _id("Backend engineer with nine years")
OWNING = _id("I like owning systems")


def _entry(exp, *bullets: Cited, **changed: str) -> TailoredExperience:
    fields = {"title": exp.title, "company": exp.company, "start": exp.start, "end": exp.end}
    return TailoredExperience(
        fact=experience_fact_id(exp), bullets=list(bullets), **{**fields, **changed}
    )


def _resume(**changed) -> TailoredResume:
    edu = PROFILE.education[0]
    base = {
        "name": PROFILE.name,
        "headline": Cited(text="Senior Backend Engineer", facts=[experience_fact_id(NOW)]),
        "summary": [
            Cited(
                text="Backend engineer with nine years of experience building Python services "
                "and data pipelines.",
                facts=[SUMMARY],
            )
        ],
        "skills": ["Python", "Kafka"],
        "experience": [
            _entry(
                NOW,
                Cited(
                    text="Built an event pipeline on Kafka that processes 12 million carrier "
                    "updates a day.",
                    facts=[KAFKA],
                ),
                Cited(
                    text="Mentored four engineers and ran the backend guild's design reviews.",
                    facts=[MENTORED],
                ),
            ),
            _entry(BEFORE),
        ],
        "education": [TailoredEducation(fact=education_fact_id(edu), **edu.model_dump())],
    }
    return TailoredResume(**{**base, **changed})


def test_a_truthful_resume_is_left_as_it_is():
    resume = _resume()
    repaired = repair_resume(resume, PROFILE, CONTEXT)
    assert repaired.document == resume and repaired.changes == () and repaired.share == 0.0


def test_an_unsupported_bullet_is_removed_and_its_neighbours_kept():
    lie = Cited(text="Negotiated a 40 million pound contract with Microsoft.", facts=[KAFKA])
    resume = _resume()
    resume.experience[0].bullets.insert(1, lie)

    repaired = repair_resume(resume, PROFILE, CONTEXT)

    bullets = [b.text for b in repaired.document.experience[0].bullets]
    assert lie.text not in bullets and len(bullets) == 2
    assert [(c.where, c.action) for c in repaired.changes] == [
        ("experience[0].bullets[1]", "removed")
    ]
    assert repaired.changes[0].reasons and repaired.removed == 1
    assert repaired.share == pytest.approx(1 / repaired.lines)
    assert check_resume(repaired.document, PROFILE, CONTEXT) == []


def test_a_lying_headline_and_summary_sentence_are_replaced_by_supported_ones():
    resume = _resume(
        headline=Cited(text="Principal Engineer at Google", facts=[experience_fact_id(NOW)]),
        summary=[Cited(text="Backend engineer with 15 years at Amazon.", facts=[SUMMARY])],
    )

    repaired = repair_resume(resume, PROFILE, CONTEXT)

    doc = repaired.document
    assert doc.headline.text == NOW.title and doc.headline.facts == [experience_fact_id(NOW)]
    assert [s.facts for s in doc.summary] == [[SUMMARY]], "the closest summary sentence"
    assert {c.action for c in repaired.changes} == {"replaced"}
    assert check_resume(doc, PROFILE, CONTEXT) == []


def test_a_changed_title_and_dates_on_a_real_entry_are_restored_from_the_profile():
    resume = _resume()
    resume.experience[1] = _entry(BEFORE, title="Staff Engineer", start="2015-01")

    repaired = repair_resume(resume, PROFILE, CONTEXT)

    entry = repaired.document.experience[1]
    assert (entry.title, entry.start, entry.end) == (BEFORE.title, BEFORE.start, BEFORE.end)
    assert [c.action for c in repaired.changes] == ["restored"]
    assert repaired.removed == 0, "a restored field keeps its line"
    assert check_resume(repaired.document, PROFILE, CONTEXT) == []


def test_an_invented_employer_is_removed_with_its_bullets():
    fake = TailoredExperience(
        fact=experience_fact_id(NOW),
        title="Staff Engineer",
        company="Hooli",
        start="2014-01",
        end="2016-01",
        bullets=[Cited(text="Built Hooli's search.", facts=[KAFKA])],
    )
    resume = _resume()
    resume.experience.append(fake)

    repaired = repair_resume(resume, PROFILE, CONTEXT)

    assert [e.company for e in repaired.document.experience] == [NOW.company, BEFORE.company]
    assert repaired.removed == 2, "the entry and its bullet"
    assert check_resume(repaired.document, PROFILE, CONTEXT) == []


def test_a_letter_keeps_its_true_sentences_and_gets_a_plain_greeting():
    letter = CoverLetter(
        company="Acme Logistics",
        role="Senior Backend Engineer",
        greeting="Dear Acme team, I worked at Google for ten years,",
        paragraphs=[
            Paragraph(
                sentences=[
                    Cited(text="I built an event pipeline on Kafka.", facts=[KAFKA]),
                    Cited(text="I led a team of 40 engineers at Amazon.", facts=[MENTORED]),
                ]
            ),
            Paragraph(sentences=[Cited(text="I won a Turing Award.", facts=[SUMMARY])]),
        ],
        signature="Someone Else",
    )

    repaired = repair_letter(
        letter, PROFILE, CONTEXT, company="Acme Logistics", role="Senior Backend Engineer"
    )

    doc = repaired.document
    assert doc.greeting == PLAIN_GREETING and doc.signature == PROFILE.name
    assert [[s.text for s in p.sentences] for p in doc.paragraphs] == [
        ["I built an event pipeline on Kafka."]
    ], "an emptied paragraph goes"
    assert repaired.removed == 3  # the greeting and two sentences
    assert check_letter(doc, PROFILE, CONTEXT) == []


def test_other_lines_keep_only_what_is_supported():
    lines = [
        Cited(text="I built an event pipeline on Kafka.", facts=[KAFKA]),
        Cited(text="I hold a PhD from MIT.", facts=[SUMMARY]),
    ]
    kept, changes = repair_lines(lines, PROFILE, CONTEXT)
    assert kept == lines[:1] and [c.where for c in changes] == ["answers[1]"]


def test_each_reason_reads_as_plain_words():
    assert "employer" in reason("unknown_employer")
    assert reason("a_kind_added_later")  # never empty


# -- the corpus ------------------------------------------------------------------------------


def test_every_planted_lie_is_repaired_out_of_its_document():
    unclean, kept_lies = [], []
    for case in FABRICATIONS:
        doc, repaired = document(case), evaluate.repaired(case.id)
        if not repaired.clean:
            unclean.append(case.id)
            continue
        recheck = (
            check_resume(repaired.document, load_profile(case.profile), context(case.profile))
            if isinstance(repaired.document, TailoredResume)
            else check_letter(repaired.document, load_profile(case.profile), context(case.profile))
        )
        if recheck:
            kept_lies.append(case.id)
        assert repaired.changes, f"{case.id}: a lie was found, so something was repaired"
        assert json.dumps(repaired.document.model_dump()) != json.dumps(doc.model_dump())
    assert unclean == [] and kept_lies == []


def test_a_truthful_corpus_document_is_never_touched():
    touched = [c.id for c in TRUTHFUL if evaluate.repaired(c.id).changes]
    assert touched == []


def test_changed_contact_details_and_a_moved_role_are_put_back():
    contact = PROFILE.contact.model_copy(
        update={
            "email": "someone.else@example.org",
            "links": [*PROFILE.contact.links, "https://evil.example/phish"],
        }
    )
    resume = _resume(contact=contact)
    resume.experience[1] = _entry(BEFORE, location="San Francisco")

    found = check_resume(resume, PROFILE, CONTEXT)
    assert {f.kind for f in found} == {"changed_contact", "changed_location"}
    repaired = repair_resume(resume, PROFILE, CONTEXT, found)

    doc = repaired.document
    assert doc.contact.email == PROFILE.contact.email
    assert doc.contact.links == PROFILE.contact.links
    assert doc.experience[1].location == BEFORE.location
    assert repaired.removed == 0 and check_resume(doc, PROFILE, CONTEXT) == []
    # Leaving a detail out is no claim.
    shorter = _resume(contact=PROFILE.contact.model_copy(update={"phone": "", "links": []}))
    assert check_resume(shorter, PROFILE, CONTEXT) == []


def test_another_employer_on_a_cited_real_role_is_restored_not_removed():
    resume = _resume()
    resume.experience[1] = _entry(BEFORE, company=NOW.company)

    repaired = repair_resume(resume, PROFILE, CONTEXT)

    entry = repaired.document.experience[1]
    assert (entry.company, entry.title) == (BEFORE.company, BEFORE.title)
    assert repaired.removed == 0 and [c.action for c in repaired.changes] == ["restored"]
