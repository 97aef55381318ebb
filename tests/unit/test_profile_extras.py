"""The profile's languages, certifications, projects, awards and volunteer roles (issue 28):
bounded, loaded from older profiles by default, facts with stable ids, cited in the
offline resume's extras and read by the truth check."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from jobctrl.demo.profile import DEMO_PROFILE
from jobctrl.domain.facts import fact_index, profile_facts
from jobctrl.domain.materials import Cited
from jobctrl.domain.profile import MAX_LANGUAGES, Profile
from jobctrl.domain.truth.claims import ClaimContext
from jobctrl.domain.truth.document import check_resume
from jobctrl.llm.offline import score_offline
from jobctrl.llm.offline_materials import tailor_offline

TODAY = date(2025, 6, 1)
TITLE = "Senior Backend Engineer"
DESCRIPTION = "Requirements\n\n- 5+ years of Python.\n- Kubernetes.\n- German.\n"
CONTEXT = ClaimContext(free_names=("Acme", TITLE), today=TODAY)
EXTRAS = {
    "languages": [
        {"language": "German", "fluency": "native"},
        {"language": "English", "fluency": "C1"},
        {"language": "Spanish"},
    ],
    "certifications": [
        {
            "name": "Certified Kubernetes Administrator (CKA)",
            "issuer": "The Linux Foundation",
            "date": "2022-05",
            "url": "https://training.linuxfoundation.org/cka",
        }
    ],
    "projects": [
        {
            "name": "jobctrl",
            "description": "A durable job-search pipeline.",
            "url": "https://github.com/example/jobctrl",
            "start": "2023",
            "bullets": ["Wrote 300 tests against real services."],
        }
    ],
    "awards": [{"title": "Hackathon winner", "awarder": "PyCon DE", "date": "2019"}],
    "volunteer": [
        {
            "title": "Mentor",
            "company": "Code Club",
            "start": "2019",
            "end": "present",
            "bullets": ["Taught Python to 40 children."],
        }
    ],
}
PROFILE = Profile(**DEMO_PROFILE, **EXTRAS)


def test_an_older_profile_without_the_new_parts_loads_with_them_empty():
    profile = Profile(**DEMO_PROFILE)
    assert (profile.languages, profile.certifications, profile.projects) == ([], [], [])
    assert (profile.awards, profile.volunteer) == ([], [])


def test_the_new_lists_are_bounded():
    too_many = [{"language": f"Language {i}"} for i in range(MAX_LANGUAGES + 1)]
    with pytest.raises(ValidationError, match="languages"):
        Profile(languages=too_many)
    projects = [{"name": f"p{i}", "description": "x" * 999} for i in range(50)]
    awards = [{"title": "a", "summary": "y" * 999} for _ in range(50)]
    with pytest.raises(ValidationError, match="at most 100,000"):
        Profile(projects=projects, awards=awards)


def test_each_part_is_a_fact_of_its_own_kind_with_a_content_derived_id():
    facts = profile_facts(PROFILE)
    by_kind = {f.kind: [x.text for x in facts if x.kind == f.kind] for f in facts}
    assert by_kind["language"] == ["German (native)", "English (C1)", "Spanish"]
    assert by_kind["certification"] == [
        "Certified Kubernetes Administrator (CKA), The Linux Foundation, 2022-05"
    ]
    assert by_kind["project"] == ["jobctrl, 2023: A durable job-search pipeline."]
    assert by_kind["award"] == ["Hackathon winner, PyCon DE, 2019"]
    assert by_kind["volunteer"] == ["Mentor at Code Club (volunteer), 2019 – present"]
    index = fact_index(PROFILE)
    parents = {index[f.parent].kind for f in facts if f.kind == "highlight" and f.parent}
    assert parents == {"experience", "project", "volunteer"}
    # Reordering keeps ids; an edit gives a new one.
    reordered = PROFILE.model_copy(update={"languages": PROFILE.languages[::-1]})
    assert set(fact_index(reordered)) == set(index)
    edited = Profile(**{**PROFILE.model_dump(), "awards": [{"title": "Hackathon runner-up"}]})
    assert set(fact_index(edited)) != set(index)


def test_a_volunteer_role_is_not_an_experience_entry():
    kinds = {f.text: f.kind for f in profile_facts(PROFILE)}
    assert kinds["Mentor at Code Club (volunteer), 2019 – present"] == "volunteer"
    assert "Code Club" not in {e.company for e in PROFILE.experience}


def test_the_offline_resume_lists_languages_certifications_and_awards_and_passes_the_check():
    report = score_offline(TITLE, DESCRIPTION, PROFILE, today=TODAY)
    resume = tailor_offline(PROFILE, report, TITLE, "Acme")
    index = fact_index(PROFILE)
    assert [e.text for e in resume.extras] == [
        "Languages: German (native), English (C1), Spanish",
        "Certified Kubernetes Administrator (CKA), The Linux Foundation, 2022-05",
        "Hackathon winner, PyCon DE, 2019",
    ]
    assert [index[f].kind for f in resume.extras[0].facts] == ["language"] * 3
    assert check_resume(resume, PROFILE, CONTEXT) == []


def test_the_truth_check_refuses_a_language_or_date_the_facts_do_not_state():
    report = score_offline(TITLE, DESCRIPTION, PROFILE, today=TODAY)
    resume = tailor_offline(PROFILE, report, TITLE, "Acme")
    languages, cka = resume.extras[0].facts, resume.extras[1].facts
    lying = resume.model_copy(
        update={
            "extras": [
                Cited(text="Languages: German (native), French (fluent)", facts=languages),
                Cited(text="Certified Kubernetes Administrator (CKA), 2018", facts=cka),
            ]
        }
    )
    claims = {(f.where, f.claim) for f in check_resume(lying, PROFILE, CONTEXT)}
    assert claims == {("extras[0]", "French"), ("extras[1]", "2018")}
