"""The truth check's document walk: every line held to the facts it cites, every structured
field to the entry it names, and old generations still readable.

Most tests stand in for the one-sentence checker (``claims.check_sentence``) with a
recorder, so they test the walk alone: what it reports itself, and what it hands the
checker. The tests marked ``real_checker`` run the real one and skip, saying so, until it
is implemented.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date

import pytest

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.errors import COVER_FABRICATION, TAILOR_FABRICATION
from jobctrl.domain.facts import Fact, education_fact_id, experience_fact_id, fact_index
from jobctrl.domain.materials import (
    Cited,
    CoverLetter,
    Paragraph,
    TailoredEducation,
    TailoredExperience,
    TailoredResume,
)
from jobctrl.domain.profile import Profile
from jobctrl.domain.truth import claims, document
from jobctrl.domain.truth.claims import ClaimContext, Unsupported
from jobctrl.domain.truth.document import (
    FabricationError,
    Finding,
    assert_letter_truthful,
    assert_resume_truthful,
    check_letter,
    check_resume,
    check_sentences,
)
from jobctrl.llm.offline import score_offline
from jobctrl.llm.offline_materials import cover_offline, tailor_offline
from tests.support.profile import TEST_PROFILE

PROFILE = Profile(**DEMO_PROFILE)
CONTEXT = ClaimContext(free_names=("Acme Logistics", "Senior Backend Engineer"))
TODAY = date(2025, 6, 1)

# A profile with diacritics, a past last role and a year-only date, for the offline writer.
SEBASTIEN = Profile(
    name="Sébastien Lefèvre-Nuñez",
    summary=(
        "Ingénieur données with seven years of experience in Python and Spark. "
        "Based in Montréal, I build pipelines that finance teams trust."
    ),
    skills=["Python", "Spark", "Airflow", "PostgreSQL", "Kubernetes", "dbt"],
    experience=[
        {
            "title": "Senior Data Engineer",
            "company": "Société Générale Québec",
            "start": "2021-03",
            "end": "2024-11",
            "location": "Montréal",
            "bullets": [
                "Rebuilt the risk data pipeline in Spark and Airflow, cutting nightly runs "
                "from 6 hours to 50 minutes.",
                "Moved 14 batch jobs to Kubernetes and dbt, saving €120k a year.",
            ],
        },
        {
            "title": "Data Engineer",
            "company": "Café Numérique",
            "start": "2017",
            "end": "2021-02",
            "bullets": ["Built PostgreSQL models for 3 million loyalty-card customers."],
        },
    ],
    education=[
        {
            "institution": "École Polytechnique de Montréal",
            "degree": "BEng",
            "field": "Génie logiciel",
            "start": "2013",
            "end": "2017",
        }
    ],
)
AGNIESZKA = Profile(
    name="Agnieszka Wąsowska-Żółć",
    summary="Frontend engineer with five years of React and TypeScript.",
    skills=["React", "TypeScript", "Next.js", "GraphQL"],
    experience=[
        {
            "title": "Frontend Engineer",
            "company": "Łódź Fintech Sp. z o.o.",
            "start": "2020-09",
            "end": "present",
            "bullets": [
                "Shipped a React and TypeScript checkout used by 2.5M customers a month.",
                "Cut bundle size by 38% with Next.js route splitting.",
            ],
        }
    ],
)
PROFILES = {
    "demo": PROFILE,
    "test": Profile(**TEST_PROFILE),
    "sebastien": SEBASTIEN,
    "agnieszka": AGNIESZKA,
}
POSTING = """Requirements

- 5+ years building backend or data services in Python.
- Experience with Kubernetes and PostgreSQL.
- Experience with React or TypeScript.
- Experience with Go.
"""

Call = tuple[str, tuple[str, ...], ClaimContext]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[Call]:
    """Stand in for the sentence checker: record each call, find nothing."""
    seen: list[Call] = []

    def stand_in(text: str, cited: Sequence[Fact], context: ClaimContext) -> list[Unsupported]:
        seen.append((text, tuple(f.id for f in cited), context))
        return []

    monkeypatch.setattr(document, "check_sentence", stand_in)
    return seen


@pytest.fixture
def real_checker() -> None:
    try:
        claims.check_sentence("Thank you.", [], ClaimContext())
    except NotImplementedError:
        pytest.skip("the sentence checker (domain/truth/claims.py) is not implemented yet")


def _facts(profile: Profile = PROFILE) -> dict[str, Fact]:
    return fact_index(profile)


def _highlight(i: int, j: int, profile: Profile = PROFILE) -> str:
    entry = experience_fact_id(profile.experience[i])
    bullet = profile.experience[i].bullets[j]
    return next(f.id for f in _facts(profile).values() if (f.parent, f.text) == (entry, bullet))


def _resume(profile: Profile = PROFILE) -> TailoredResume:
    """The profile restated, every line citing its fact."""
    facts = _facts(profile)
    summary = [Cited(text=f.text, facts=[f.id]) for f in facts.values() if f.kind == "summary"]
    return TailoredResume(
        name=profile.name,
        contact=profile.contact,
        headline=Cited(
            text=profile.experience[0].title, facts=[experience_fact_id(profile.experience[0])]
        ),
        summary=summary,
        skills=list(profile.skills),
        experience=[
            TailoredExperience(
                fact=experience_fact_id(exp),
                **exp.model_dump(exclude={"bullets"}),
                bullets=[
                    Cited(text=b, facts=[_highlight(i, j, profile)])
                    for j, b in enumerate(exp.bullets)
                ],
            )
            for i, exp in enumerate(profile.experience)
        ],
        education=[
            TailoredEducation(fact=education_fact_id(e), **e.model_dump())
            for e in profile.education
        ],
    )


def _letter(*sentences: Cited, signature: str = "Priya Raman") -> CoverLetter:
    return CoverLetter(
        company="Acme Logistics",
        role="Senior Backend Engineer",
        greeting="Dear Hiring Team at Acme Logistics,",
        paragraphs=[
            Paragraph(
                sentences=[
                    Cited(
                        text="I am writing to apply for the Senior Backend Engineer role.",
                        facts=[],
                    )
                ]
            ),
            Paragraph(sentences=list(sentences)),
        ],
        signature=signature,
    )


def _found(resume: TailoredResume, profile: Profile = PROFILE) -> set[tuple[str, str]]:
    return {(f.where, f.kind) for f in check_resume(resume, profile, CONTEXT)}


# -- structured fields, against the entry they name ---------------------------------------------


def test_a_resume_that_restates_the_profile_is_truthful(calls: list[Call]) -> None:
    assert check_resume(_resume(), PROFILE, CONTEXT) == []
    assert_resume_truthful(_resume(), PROFILE, CONTEXT)


def test_selecting_and_reordering_facts_is_truthful(calls: list[Call]) -> None:
    resume = _resume()
    resume.experience = resume.experience[:2][::-1]
    resume.experience[1].bullets = resume.experience[1].bullets[::-1][:3]
    resume.skills = ["Kafka", "Python"]
    resume.summary = resume.summary[1:]
    resume.education = []
    assert check_resume(resume, PROFILE, CONTEXT) == []


def _add_employer(r: TailoredResume) -> None:
    r.experience.append(
        TailoredExperience(fact="", title="Staff Engineer", company="Globex", start="2015")
    )


def _move_an_entry_to_another_employer(r: TailoredResume) -> None:
    r.experience[1].company = "Microsoft"


def _change_title(r: TailoredResume) -> None:
    r.experience[1].title = "Lead Software Engineer"


def _change_start(r: TailoredResume) -> None:
    r.experience[1].start = "2016-09"


def _change_start_in_another_spelling(r: TailoredResume) -> None:
    r.experience[1].start = "Sep 2016"


def _end_a_past_job_at_present(r: TailoredResume) -> None:
    r.experience[1].end = "present"


def _end_a_current_job(r: TailoredResume) -> None:
    r.experience[0].end = "2024-12"


def _claim_a_month_the_profile_does_not_give(r: TailoredResume) -> None:
    r.education[0].start = "Sep 2013"


def _add_degree(r: TailoredResume) -> None:
    r.education.append(
        TailoredEducation(fact="", institution="University of Leeds", degree="MSc", field="AI")
    )


def _upgrade_the_degree(r: TailoredResume) -> None:
    r.education[0].degree = "MSc"


def _change_the_school(r: TailoredResume) -> None:
    r.education[0].institution = "University of Cambridge"


def _change_degree_dates(r: TailoredResume) -> None:
    r.education[0].end = "2015"


def _add_skill(r: TailoredResume) -> None:
    r.skills.append("Snowflake")


def _add_a_skill_outside_any_list(r: TailoredResume) -> None:
    r.skills.append("Temporal")


def _rename(r: TailoredResume) -> None:
    r.name = "Priya R. Raman"


def _cite_a_fact_the_profile_lacks(r: TailoredResume) -> None:
    r.experience[0].bullets[0].facts = ["hl-0000000000"]


def _name_no_entry(r: TailoredResume) -> None:
    r.experience[2].fact = "exp-0000000000"


def _cite_another_entrys_highlight(r: TailoredResume) -> None:
    r.experience[1].bullets.append(
        Cited(text=PROFILE.experience[0].bullets[2], facts=[_highlight(0, 2)])
    )


def _name_another_entry(r: TailoredResume) -> None:
    r.experience[1].fact = r.experience[0].fact


FABRICATIONS: list[tuple[Callable[[TailoredResume], None], set[tuple[str, str]]]] = [
    (_add_employer, {("experience[3].company", "unknown_employer")}),
    (_move_an_entry_to_another_employer, {("experience[1].company", "unknown_employer")}),
    (_change_title, {("experience[1].title", "unknown_title")}),
    (_change_start, {("experience[1].start", "changed_dates")}),
    (_change_start_in_another_spelling, {("experience[1].start", "changed_dates")}),
    (_end_a_past_job_at_present, {("experience[1].end", "changed_dates")}),
    (_end_a_current_job, {("experience[0].end", "changed_dates")}),
    (_claim_a_month_the_profile_does_not_give, {("education[0].start", "changed_dates")}),
    (_add_degree, {("education[1]", "unknown_degree")}),
    (_upgrade_the_degree, {("education[0].degree", "unknown_degree")}),
    (_change_the_school, {("education[0].institution", "unknown_degree")}),
    (_change_degree_dates, {("education[0].end", "changed_dates")}),
    (_add_skill, {("skills[15]", "unknown_skill")}),
    (_add_a_skill_outside_any_list, {("skills[15]", "unknown_skill")}),
    (_rename, {("name", "wrong_name")}),
    (_cite_a_fact_the_profile_lacks, {("experience[0].bullets[0]", "unknown_fact")}),
    (_name_no_entry, {("experience[2]", "unknown_fact")}),
    (_cite_another_entrys_highlight, {("experience[1].bullets[4]", "wrong_entry")}),
    (_name_another_entry, {("experience[1].company", "wrong_entry")}),
]


@pytest.mark.parametrize(
    ("fabricate", "expected"), FABRICATIONS, ids=[f.__name__.lstrip("_") for f, _ in FABRICATIONS]
)
def test_each_structured_lie_is_reported_where_it_is_with_its_kind(
    calls: list[Call],
    fabricate: Callable[[TailoredResume], None],
    expected: set[tuple[str, str]],
) -> None:
    resume = _resume()
    fabricate(resume)
    assert _found(resume) == expected


def test_a_finding_names_the_line_and_the_offending_words(calls: list[Call]) -> None:
    resume = _resume()
    _change_title(resume)
    _add_skill(resume)
    assert check_resume(resume, PROFILE, CONTEXT) == [
        Finding(
            "skills[15]",
            "Snowflake",
            "unknown_skill",
            "Snowflake",
        ),
        Finding(
            "experience[1].title",
            "Lead Software Engineer at Brightwell Analytics, 2017-09 – 2021-03",
            "unknown_title",
            "Lead Software Engineer",
        ),
    ]


@pytest.mark.parametrize(
    ("start", "end"),
    [
        ("Apr 2021", "Present"),
        ("April 2021", "present"),
        ("04/2021", ""),
        ("2021-04", "Current"),
        ("2021", ""),  # the year alone says less, never more
        ("Apr 2021 – Present", ""),  # the whole range in one field, as the PDFs print it
        ("2021–present", ""),
        ("", ""),  # dates left out
    ],
)
def test_every_spelling_of_the_same_dates_is_truthful(
    calls: list[Call], start: str, end: str
) -> None:
    resume = _resume()
    resume.experience[0].start, resume.experience[0].end = start, end
    resume.experience[1].start, resume.experience[1].end = "Sep 2017", "March 2021"
    resume.education[0].start, resume.education[0].end = "2013", ""
    assert check_resume(resume, PROFILE, CONTEXT) == []


def test_case_accents_aliases_and_left_out_fields_are_not_lies(calls: list[Call]) -> None:
    resume = _resume()
    resume.name = "  priya   RAMAN "
    resume.experience[0].title = "Sr. Backend Eng."
    resume.experience[0].company = "LUMEN FREIGHT"
    resume.experience[1].title = "software  engineer"
    resume.education[0].degree = "B.Sc."
    resume.education[0].field = ""
    resume.skills = ["python", "K8s", "Postgres", "CI/CD pipelines", "EKS", "GitHub Actions"]
    assert check_resume(resume, PROFILE, CONTEXT) == []
    sebastien = _resume(SEBASTIEN)
    sebastien.name = "Sebastien Lefevre-Nunez"
    assert check_resume(sebastien, SEBASTIEN, CONTEXT) == []


def test_a_skill_is_found_by_word_not_inside_another_word(calls: list[Call]) -> None:
    resume = _resume()
    resume.skills = ["Java", "Go", "PHP"]  # "JavaScript" is not Java; no Go anywhere
    assert _found(resume) == {("skills[0]", "unknown_skill"), ("skills[1]", "unknown_skill")}


def test_config_aliases_extend_the_shipped_list(calls: list[Call]) -> None:
    resume = _resume()
    resume.skills = ["Guild reviews"]
    assert _found(resume) == {("skills[0]", "unknown_skill")}
    context = ClaimContext(extra_aliases={"design reviews": ("guild reviews",)})
    assert check_resume(resume, PROFILE, context) == []


# -- lines, each against the facts it cites ----------------------------------------------------


def test_each_line_goes_to_the_sentence_checker_with_its_facts_and_their_parents(
    calls: list[Call],
) -> None:
    check_resume(_resume(), PROFILE, CONTEXT)
    lumen = experience_fact_id(PROFILE.experience[0])
    by_text = {text: cited for text, cited, _ in calls}
    assert by_text[PROFILE.experience[0].title] == (lumen,)  # the headline
    assert by_text[PROFILE.experience[0].bullets[2]] == (_highlight(0, 2), lumen)
    summary = [f.id for f in _facts().values() if f.kind == "summary"]
    assert [by_text[f.text] for f in _facts().values() if f.kind == "summary"] == [
        (s,) for s in summary
    ]
    # the caller's context, with the profile's facts: the words a line may use uncited
    texts = tuple(f.text for f in _facts().values() if f.kind != "name")
    assert all(context == replace(CONTEXT, profile=texts) for _, _, context in calls)
    bullets = sum(len(e.bullets) for e in PROFILE.experience)
    assert len(calls) == 1 + len(summary) + bullets


def test_the_sentence_checkers_findings_are_reported_at_their_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    long = "Led platform teams of 40 people " + "and more " * 60

    def stand_in(text: str, cited: Sequence[Fact], context: ClaimContext) -> list[Unsupported]:
        return [Unsupported("quantity", "40 people " * 30)] if "40 people" in text else []

    monkeypatch.setattr(document, "check_sentence", stand_in)
    resume = _resume()
    resume.experience[0].bullets[3] = Cited(text=long, facts=[_highlight(0, 3)])
    [finding] = check_resume(resume, PROFILE, CONTEXT)
    assert (finding.where, finding.kind) == ("experience[0].bullets[3]", "quantity")
    assert len(finding.sentence) == document.MAX_SENTENCE and finding.sentence.endswith("…")
    assert finding.sentence.startswith("Led platform teams of 40 people and more")
    assert len(finding.claim) == document.MAX_CLAIM and finding.claim.startswith("40 people")


def test_a_letter_is_walked_greeting_to_signature(calls: list[Call]) -> None:
    lumen = experience_fact_id(PROFILE.experience[0])
    evidence = Cited(text="At Lumen Freight I built a Kafka pipeline.", facts=[_highlight(0, 2)])
    letter = _letter(evidence)
    assert check_letter(letter, PROFILE, CONTEXT) == []
    assert [(text, cited) for text, cited, _ in calls] == [
        ("Dear Hiring Team at Acme Logistics,", ()),
        ("I am writing to apply for the Senior Backend Engineer role.", ()),
        (evidence.text, (_highlight(0, 2), lumen)),
        ("Kind regards,", ()),
    ]


def test_a_letter_for_another_job_or_signed_by_another_name_is_caught(
    calls: list[Call],
) -> None:
    letter = _letter(signature="Priya Raman, PhD")
    letter.company = "Globex"
    letter.paragraphs[1].sentences.append(Cited(text="I know Rust.", facts=["sk-0000000000"]))
    found = {(f.where, f.kind, f.claim) for f in check_letter(letter, PROFILE, CONTEXT)}
    assert found == {
        ("company", "name", "Globex"),
        ("signature", "wrong_name", "Priya Raman, PhD"),
        ("paragraphs[1].sentences[0]", "unknown_fact", "sk-0000000000"),
    }


def test_other_generated_lines_are_checked_as_answers(calls: list[Call]) -> None:
    lines = [
        Cited(text="Yes.", facts=[]),
        Cited(text="Nine years.", facts=["sum-0000000000"]),
    ]
    assert [(f.where, f.kind) for f in check_sentences(lines, PROFILE, CONTEXT)] == [
        ("answers[1]", "unknown_fact")
    ]
    assert check_sentences(lines[:1], PROFILE, CONTEXT, where="questions") == []


# -- old generations, the error ----------------------------------------------------------------


def test_old_plain_string_generations_load_and_are_held_to_citing_nothing(
    calls: list[Call],
) -> None:
    resume = TailoredResume.model_validate(
        {
            "name": "Priya Raman",
            "headline": "Senior Backend Engineer",
            "summary": "Backend engineer with nine years of experience.",
            "skills": ["Python"],
            "experience": [
                {
                    "title": "Senior Backend Engineer",
                    "company": "Lumen Freight",
                    "start": "2021-04",
                    "end": "present",
                    "bullets": ["Built an event pipeline on Kafka."],
                }
            ],
            "education": [{"institution": "University of Leeds", "degree": "BSc"}],
        }
    )
    letter = CoverLetter.model_validate(
        {
            "company": "Acme Logistics",
            "role": "Senior Backend Engineer",
            "greeting": "Dear Hiring Team,",
            "paragraphs": ["I built an event pipeline.", "Thank you."],
            "signature": "Priya Raman",
        }
    )
    assert resume.summary == [
        Cited(text="Backend engineer with nine years of experience.", facts=[])
    ]
    assert letter.paragraph_texts() == ["I built an event pipeline.", "Thank you."]
    # Their entries name no fact; their lines cite nothing (so claim nothing).
    assert {(f.where, f.kind) for f in check_resume(resume, PROFILE, CONTEXT)} == {
        ("experience[0]", "unknown_fact"),
        ("education[0]", "unknown_fact"),
    }
    assert {cited for _, cited, _ in calls} == {()}
    assert check_letter(letter, PROFILE, CONTEXT) == []


def test_a_refusal_is_a_non_retryable_coded_error_without_generated_text(
    calls: list[Call],
) -> None:
    resume = _resume()
    _add_employer(resume)
    _add_skill(resume)
    with pytest.raises(FabricationError) as caught:
        assert_resume_truthful(resume, PROFILE, CONTEXT)
    error = caught.value
    assert (error.code, error.retryable) == (TAILOR_FABRICATION, False)
    assert "unknown_employer" in error.message and "unknown_skill" in error.message
    assert "2 unsupported claims" in error.message
    assert "Globex" not in error.message and "Snowflake" not in error.message
    assert {f.kind for f in error.findings} == {"unknown_employer", "unknown_skill"}

    with pytest.raises(FabricationError) as caught:
        assert_letter_truthful(_letter(signature="Someone Else"), PROFILE, CONTEXT)
    assert (caught.value.code, caught.value.retryable) == (COVER_FABRICATION, False)
    assert caught.value.message.startswith("cover letter is not supported")
    assert "Someone" not in caught.value.message


# -- the offline writer's documents ------------------------------------------------------------


def _offline(key: str) -> tuple[Profile, TailoredResume, CoverLetter, ClaimContext]:
    profile = PROFILES[key]
    report = score_offline("Senior Engineer", POSTING, profile, today=TODAY)
    context = ClaimContext(free_names=("Acme", "Senior Engineer"), today=TODAY)
    resume = tailor_offline(profile, report, "Senior Engineer", "Acme")
    letter = cover_offline(profile, report, "Senior Engineer", "Acme")
    return profile, resume, letter, context


@pytest.mark.parametrize("key", sorted(PROFILES))
def test_the_offline_writers_documents_pass_the_walk(calls: list[Call], key: str) -> None:
    profile, resume, letter, context = _offline(key)
    assert check_resume(resume, profile, context) == []
    assert check_letter(letter, profile, context) == []
    # Written the way the PDFs print dates, the resume still passes.
    for exp in resume.experience:
        exp.start, exp.end = _as_printed(exp.start, exp.end)
    assert check_resume(resume, profile, context) == []


def _as_printed(start: str, end: str) -> tuple[str, str]:
    """ "2021-03" / "present" as the PDFs print them: "Mar 2021" / "Present"."""
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    def month_year(value: str) -> str:
        if len(value) == 7 and value[4] == "-":
            return f"{months[int(value[5:]) - 1]} {value[:4]}"
        return value

    return month_year(start), "Present" if end.lower() in ("", "present") else month_year(end)


@pytest.mark.parametrize("key", sorted(PROFILES))
def test_the_offline_writers_documents_pass_the_real_checker(real_checker: None, key: str) -> None:
    profile, resume, letter, context = _offline(key)
    assert check_resume(resume, profile, context) == []
    assert check_letter(letter, profile, context) == []


def test_a_letter_claiming_years_a_title_an_employer_and_a_team_is_refused(
    real_checker: None,
) -> None:
    lie = Cited(
        text="With five years as Principal Engineer at Microsoft, I have led platform teams "
        "of 40 people.",
        facts=[_highlight(0, 3)],  # the mentoring highlight it pretends to restate
    )
    findings = check_letter(_letter(lie), PROFILE, CONTEXT)
    assert findings and {f.where for f in findings} == {"paragraphs[1].sentences[0]"}
    claimed = " ".join(f.claim for f in findings)
    assert "Microsoft" in claimed and "40" in claimed
    with pytest.raises(FabricationError) as caught:
        assert_letter_truthful(_letter(lie), PROFILE, CONTEXT)
    assert "Microsoft" not in caught.value.message
