"""Profile import from JSON Resume and RenderCV: full and minimal files, dates, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobctrl.domain.profile import Profile
from jobctrl.profile_import import (
    ProfileImportError,
    detect_format,
    load_profile_file,
    profile_from_json_resume,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "profiles"


def test_full_json_resume_converts_every_section():
    profile = load_profile_file(FIXTURES / "resume_full.json")

    assert profile.name == "Priya Raman"
    assert profile.contact.email == "priya.raman@example.com"
    assert profile.contact.phone == "+44 20 7946 0321"
    assert profile.contact.location == "London, England, GB"
    assert profile.contact.links == [
        "https://priyaraman.dev",
        "https://github.com/priyaraman",
        "https://linkedin.com/in/priya-raman",
    ]
    assert profile.summary.startswith("Platform engineer with nine years")
    assert [(x.company, x.title, x.start, x.end) for x in profile.experience] == [
        ("Northwind Analytics", "Senior Platform Engineer", "2021-04", "present"),
        ("Contoso Data", "Data Engineer", "2017-09", "2021-03"),
        ("Fabrikam", "Junior Developer", "2015", "2017"),
    ]
    assert profile.experience[0].location == "London, UK"
    # A role's summary is its first bullet, then its highlights.
    assert profile.experience[0].bullets[0] == "Own the internal developer platform."
    assert profile.experience[0].bullets[1].startswith("Cut CI time")
    assert len(profile.experience[0].bullets) == 3
    assert profile.experience[2].bullets == [
        "Maintained Django back-office apps for the retail team."
    ]
    [edu] = profile.education
    assert (edu.institution, edu.degree, edu.field, edu.start, edu.end) == (
        "University of Manchester", "BSc", "Computer Science", "2011-09", "2015-06",
    )  # fmt: skip
    assert profile.skills == [
        "Python", "Django", "FastAPI", "pytest", "Data", "PostgreSQL", "BigQuery",
        "Airflow", "Infrastructure", "Kubernetes", "Terraform", "Go",
    ]  # fmt: skip


def test_minimal_json_resume_gives_a_sparse_profile():
    profile = load_profile_file(FIXTURES / "resume_minimal.json")

    assert profile == Profile(name="Sam Minimal", contact={"email": "sam@example.org"})


def test_rendercv_yaml_converts_every_section():
    profile = load_profile_file(FIXTURES / "rendercv_cv.yaml")

    assert profile.name == "Jordan Lee"
    assert profile.contact.phone == "+1-416-555-0187"
    assert profile.contact.location == "Toronto, ON"
    assert profile.contact.links == [
        "https://jordanlee.example.com/",
        "https://linkedin.com/in/jordan-lee",
        "https://github.com/jlee-dev",
    ]
    assert profile.summary.splitlines() == [
        "Backend engineer focused on payments and reliability, six years in Python and Go.",
        "Comfortable owning services end to end, from design docs to on-call.",
    ]
    assert [(x.company, x.title, x.start, x.end) for x in profile.experience] == [
        ("Maple Payments", "Staff Software Engineer", "2022-02", "present"),
        ("Lakeside Software", "Software Engineer", "2019-05", "2022-01"),
        ("Birch Labs", "Intern", "2018", "2018"),
    ]
    assert profile.experience[0].bullets[1].startswith("Mentored five engineers")
    assert profile.experience[1].bullets == ["Built the billing API in Go and PostgreSQL."]
    assert profile.experience[2].bullets == []
    [edu] = profile.education
    assert (edu.institution, edu.degree, edu.field, edu.start, edu.end) == (
        "University of Waterloo", "BASc", "Software Engineering", "2014-09", "2019-04",
    )  # fmt: skip
    assert profile.skills == ["Python", "Go", "SQL", "PostgreSQL", "Kafka", "Kubernetes", "AWS"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("resume_full.json", "json-resume"), ("resume_minimal.json", "json-resume"),
     ("rendercv_cv.yaml", "rendercv")],
)  # fmt: skip
def test_format_is_detected_by_shape(name, expected):
    path = FIXTURES / name
    assert detect_format(path, path.read_text(encoding="utf-8")) == expected


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [("2020", "2021-07-04", ("2020", "2021-07")), ("2020-03-15", None, ("2020-03", "present")),
     ("2020-3", "Present", ("2020-03", "present")), ("Spring 2019", None, ("", ""))],
)  # fmt: skip
def test_json_resume_dates_are_normalised(start, end, expected):
    work = {"name": "Acme", "position": "Engineer", "startDate": start}
    if end is not None:
        work["endDate"] = end
    [role] = profile_from_json_resume({"work": [work]}).experience

    assert (role.start, role.end) == expected


@pytest.mark.parametrize(
    ("name", "text", "complaint"),
    [("broken.json", '{"basics": {"name": "A",}}', "not valid JSON"),
     ("broken.yaml", "cv:\n  name: [unclosed\n", "not valid YAML"),
     ("shopping.yaml", "title: Shopping list\nitems: [eggs, flour]\n", "neither"),
     ("list.json", "[1, 2, 3]", "neither"),
     ("empty.yml", "", "empty")],
)  # fmt: skip
def test_bad_files_raise_value_error_naming_the_file(tmp_path, name, text, complaint):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")

    with pytest.raises(ValueError, match=complaint) as caught:
        load_profile_file(path)

    assert name in str(caught.value)
    assert isinstance(caught.value, ProfileImportError)
    assert caught.value.code == "profile_import"


def test_unknown_fields_and_wrong_types_are_ignored(tmp_path):
    path = tmp_path / "resume.json"
    data = {
        "basics": {"name": "Ola", "profiles": "not-a-list", "pronouns": "she/her"},
        "work": [{"name": "Acme", "position": "Dev", "highlights": "not-a-list"}, "junk", {}],
        "skills": [{"name": "Rust", "keywords": None}, {"keywords": ["rust", "Zig"]}],
        "x-custom": {"anything": True},
    }
    path.write_text(json.dumps(data), encoding="utf-8")

    profile = load_profile_file(path)

    assert [(x.company, x.title, x.bullets) for x in profile.experience] == [("Acme", "Dev", [])]
    assert profile.skills == ["Rust", "Zig"]


def test_the_size_limit_counts_each_role_title_once():
    from jobctrl.domain.profile import MAX_BULLETS, MAX_LINE, MAX_PROFILE_CHARS, MAX_TEXT

    # A 300-character title and 30 bullets of 1,000 characters: 30,300 characters a role
    # (counting the title once per bullet made it 39,000, and three such roles too many).
    role = {"title": "T" * MAX_LINE, "company": "C", "bullets": ["b" * MAX_TEXT] * MAX_BULLETS}
    skills = ["k" * MAX_LINE] * 13 + ["k" * 200]  # 4,100
    full = {"summary": "s" * 5_000, "skills": skills, "experience": [role] * 3}
    assert MAX_PROFILE_CHARS == 5_000 + 4_100 + 3 * 30_300
    assert len(Profile.model_validate(full).experience) == 3, "exactly at the limit"
    # One character more, the title of a role without bullets, is over it.
    no_bullets = {"title": "T", "company": "C"}
    with pytest.raises(ValueError, match="characters of text"):
        Profile.model_validate({**full, "experience": [role] * 3 + [no_bullets]})


def test_json_resume_keeps_languages_summaries_certificates_projects_awards_and_volunteer():
    data = json.loads((FIXTURES / "resume_full.json").read_text(encoding="utf-8"))
    data["basics"]["location"] = {"city": "Berlin", "region": "Berlin", "countryCode": "DE"}
    data["certificates"] = [
        {
            "name": "CKA",
            "issuer": "The Linux Foundation",
            "date": "2022-05-01",
            "url": "https://x.example",
        }
    ]
    data["projects"] = [
        {"name": "jobctrl", "description": "A job-search pipeline.", "highlights": ["300 tests"],
         "startDate": "2023-01", "url": "https://github.com/example/jobctrl"}
    ]  # fmt: skip

    profile = profile_from_json_resume(data)

    assert profile.contact.location == "Berlin, DE"
    assert [(x.language, x.fluency) for x in profile.languages] == [("English", "Native speaker")]
    assert profile.experience[0].bullets[0] == "Own the internal developer platform."
    assert [(c.name, c.issuer, c.date) for c in profile.certifications] == [
        ("CKA", "The Linux Foundation", "2022-05")
    ]
    [project] = profile.projects
    assert (project.name, project.bullets, project.start, project.url) == (
        "jobctrl", ["300 tests"], "2023-01", "https://github.com/example/jobctrl",
    )  # fmt: skip
    assert [(a.title, a.awarder, a.date) for a in profile.awards] == [
        ("Engineering Excellence Award", "Northwind", "2022-11")
    ]
    [volunteer] = profile.volunteer
    assert (volunteer.company, volunteer.title, volunteer.start, volunteer.end) == (
        "Code Club", "Volunteer mentor", "2018-01", "present",
    )  # fmt: skip
    assert volunteer.bullets == ["Weekly Python sessions for children."]
    assert profile.answers.linkedin == "https://linkedin.com/in/priya-raman"
    assert profile.answers.github == "https://github.com/priyaraman"
