"""Saved application answers: read from config.yaml, bounded like the rest of the profile,
facts of kind "answer" with stable ids, and kept by a profile import."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from jobctrl.app.profile import import_profile
from jobctrl.config import Config, load_config, template_text
from jobctrl.domain.facts import answer_facts, fact_index, profile_facts
from jobctrl.domain.profile import MAX_ANSWERS, Answers, Profile, SavedAnswer
from jobctrl.profile_import import keep_saved_answers
from jobctrl.store import profiles
from jobctrl.store.store import Store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "profiles"

ANSWERS_YAML = """
work_authorised: yes
work_authorisation: EU citizen, no restrictions
needs_sponsorship: no
notice_period: 3 months
salary_expectation: 85000
pronouns: she/her
how_did_you_hear: Company website
linkedin: https://linkedin.com/in/ada
questions:
  - question: Are you comfortable working in a hybrid setup?
    answer: yes
  - question: Years of Python?
    answer: 8
"""


def _answers() -> Answers:
    return Answers.model_validate(yaml.safe_load(ANSWERS_YAML))


def test_answers_read_as_a_person_writes_them_in_yaml():
    answers = _answers()

    assert answers.work_authorised is True
    assert answers.needs_sponsorship is False
    assert answers.willing_to_relocate is None  # not answered: left for the person
    assert answers.salary_expectation == "85000"
    assert answers.questions[0] == SavedAnswer(
        question="Are you comfortable working in a hybrid setup?", answer="Yes"
    )
    assert answers.questions[1].answer == "8"


def test_the_template_documents_every_answer_and_validates():
    data = yaml.safe_load(template_text())
    documented = set(data["profile"]["answers"])

    assert documented == set(Answers.model_fields)
    assert Config.model_validate(data).profile.answers.is_empty()


@pytest.mark.parametrize(
    "answers",
    [
        {"questions": [{"question": f"q{i}", "answer": "a"} for i in range(MAX_ANSWERS + 1)]},
        {"notice_period": "x" * 301},
        {"questions": [{"question": "q", "answer": "x" * 1_001}]},
        {"favourite_colour": "blue"},  # unknown keys are typos, refused like elsewhere
    ],
)
def test_answers_are_bounded_like_the_rest_of_the_profile(answers):
    with pytest.raises(ValidationError):
        Profile.model_validate({"answers": answers})


def test_answers_count_toward_the_profiles_total_text():
    long = [{"question": "q" * 300, "answer": "a" * 1_000} for _ in range(MAX_ANSWERS)]  # 65k
    role = {"title": "t", "company": "c", "bullets": ["b" * 1_000] * 30}  # 30,001
    rest = {"summary": "s" * 5_000, "experience": [role]}

    Profile.model_validate({**rest, "answers": {"questions": long[:-1]}})
    with pytest.raises(ValidationError, match="characters of text"):
        Profile.model_validate({**rest, "answers": {"questions": long}})


def test_each_given_answer_is_a_fact_of_kind_answer():
    facts = answer_facts(_answers())
    texts = [f.text for f in facts]

    assert {f.kind for f in facts} == {"answer"}
    assert all(f.id.startswith("ans-") for f in facts)
    assert "Authorised to work: yes" in texts
    assert "Needs visa sponsorship: no" in texts
    assert "Notice period: 3 months" in texts
    # A saved question's fact is its answer alone: the question's words support nothing.
    assert "Yes" in texts and not any("hybrid" in t for t in texts)
    assert not any(t.startswith("Willing to relocate") for t in texts)  # unanswered
    assert len({f.id for f in facts}) == len(facts)


def test_answer_fact_ids_are_stable_and_change_with_the_answer():
    profile = Profile(name="Ada", answers=_answers())
    ids = {f.text: f.id for f in profile_facts(profile)}
    again = {f.text: f.id for f in profile_facts(Profile.model_validate(profile.model_dump()))}
    changed = _answers().model_copy(update={"notice_period": "1 month"})
    moved = {f.text: f.id for f in answer_facts(changed)}

    assert ids == again
    assert ids["Notice period: 3 months"] not in moved.values()
    assert ids["Pronouns: she/her"] == moved["Pronouns: she/her"]
    assert set(answer_facts(_answers())) <= set(fact_index(profile).values())


def test_a_profile_without_answers_has_no_answer_facts():
    assert [f for f in profile_facts(Profile(name="Ada")) if f.kind == "answer"] == []


def test_keep_saved_answers_replaces_the_rest_and_keeps_the_answers():
    current = Profile(name="Old Name", skills=["Cobol"], answers=_answers())
    imported = Profile(name="New Name", skills=["Python"])

    merged = keep_saved_answers(imported, current)

    assert (merged.name, merged.skills) == ("New Name", ["Python"])
    assert merged.answers == current.answers


def test_profile_import_keeps_the_saved_answers_in_config_yaml(home):
    path = home.config_path
    data = yaml.safe_load(path.read_text())
    data["profile"]["answers"] = yaml.safe_load(ANSWERS_YAML)
    path.write_text(yaml.safe_dump(data))

    result = import_profile(home, FIXTURES / "resume_full.json")

    profile = load_config(home).profile
    assert profile.name == "Priya Raman"
    # The resume's LinkedIn and GitHub profiles replace the saved ones; the rest is kept.
    expected = _answers().model_copy(
        update={
            "linkedin": "https://linkedin.com/in/priya-raman",
            "github": "https://github.com/priyaraman",
        }
    )
    assert profile.answers == expected
    assert result.answers_kept == len(answer_facts(expected))


def test_saved_answers_make_a_new_profile_version_and_none_keep_the_old(home):
    store = Store.open(home)
    try:
        plain = Profile(name="Ada")
        before = profiles.version_of(store, plain)
        assert profiles.version_of(store, Profile.model_validate(plain.model_dump())) == before
        with_answers = plain.model_copy(update={"answers": _answers()})
        assert profiles.version_of(store, with_answers) != before
    finally:
        store.dispose()
