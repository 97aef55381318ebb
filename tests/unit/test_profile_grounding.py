"""A model's reading of a resume is held to the resume's text: what the text says is kept
(in any spelling of a date, across a hyphenated line break or a date column read into a
bullet), what it does not say is dropped and listed."""

from __future__ import annotations

from pathlib import Path

from jobctrl.domain.profile import Contact, Education, Experience
from jobctrl.profile_import import read_profile_file
from jobctrl.profile_import.grounding import Dropped, ResumeFields, ground, unplaced_lines

RESUMES = Path(__file__).resolve().parents[1] / "fixtures" / "resumes"

TEXT = """Ada Example
ada@example.org · +49 30 1234-5678 · Berlin
https://github.com/ada-example
Experience
Acme GmbH, Senior Engineer Berlin Sept 2019 – present
• Cut the nightly batch from 6 hours to 40 minutes by rewriting it in Go and
  PostgreSQL, saving €12k a month
• Led the migration of 40 services to Kuber-
netes
Initech, Engineer 03/2016 – 08/2019
Education
TU Berlin, MSc Computer Science 2014 – 2016
Skills: Python, Go, PostgreSQL
"""


def fields(**changes: object) -> ResumeFields:
    base = ResumeFields(
        name="Ada Example",
        contact=Contact(
            email="ada@example.org",
            phone="+49 30 12345678",
            location="Berlin",
            links=["github.com/ada-example/"],
        ),
        skills=["Python", "Go", "PostgreSQL"],
        experience=[
            Experience(
                title="Senior Engineer",
                company="Acme GmbH",
                start="Sep 2019",
                end="present",
                location="Berlin",
                bullets=[
                    "Cut the nightly batch from 6 hours to 40 minutes by rewriting it in Go "
                    "and PostgreSQL, saving €12k a month",
                    "Led the migration of 40 services to Kubernetes",
                ],
            ),
            Experience(title="Engineer", company="Initech", start="2016-03", end="2019-08"),
        ],
        education=[
            Education(
                institution="TU Berlin",
                degree="MSc",
                field="Computer Science",
                start="2014",
                end="2016",
            )
        ],
    )
    return base.model_copy(update=changes)


def test_what_the_text_says_is_kept_in_any_spelling():
    grounded = ground(fields(), TEXT)

    assert grounded.dropped == []
    role = grounded.profile.experience[0]
    assert (role.start, role.end) == ("2019-09", "present")  # "Sep 2019" normalised
    assert role.bullets[1] == "Led the migration of 40 services to Kubernetes"
    assert grounded.profile.contact.links == ["github.com/ada-example/"]
    assert grounded.profile.answers.github == "https://github.com/ada-example"


def test_an_invented_employer_bullet_date_and_skill_are_dropped_and_listed():
    invented = fields(
        skills=["Python", "Rust"],
        experience=[
            fields()
            .experience[0]
            .model_copy(
                update={
                    "start": "2018-09",  # the text says September 2019
                    "bullets": [
                        "Led the migration of 40 services to Kubernetes",
                        "Mentored twelve engineers across three teams",
                    ],
                }
            ),
            Experience(title="Staff Engineer", company="Globex", start="2012", end="2014"),
        ],
    )

    grounded = ground(invented, TEXT)

    assert grounded.dropped == [
        Dropped("experience[0].start", "2018-09"),
        Dropped("experience[0].bullets[1]", "Mentored twelve engineers across three teams"),
        Dropped("experience[1]", "Staff Engineer at Globex (2012 – 2014)"),
        Dropped("skills[1]", "Rust"),
    ]
    assert [r.company for r in grounded.profile.experience] == ["Acme GmbH"]
    assert grounded.profile.experience[0].bullets == [
        "Led the migration of 40 services to Kubernetes"
    ]
    assert grounded.profile.experience[0].start == ""
    assert grounded.profile.skills == ["Python"]


def test_a_phone_with_digits_the_text_lacks_and_a_month_for_a_year_are_dropped():
    grounded = ground(
        fields(
            contact=Contact(email="ada@example.org", phone="+1 30 12345678"),
            education=[Education(institution="TU Berlin", start="2014-10", end="2016")],
        ),
        TEXT,
    )

    assert Dropped("contact.phone", "+1 30 12345678") in grounded.dropped
    assert Dropped("education[0].start", "2014-10") in grounded.dropped
    assert grounded.profile.education[0].end == "2016"


def test_a_real_pdf_read_faithfully_loses_nothing_to_its_date_column():
    """The classic layout reads its date column into the middle of bullets ("… 99.97%
    June 2023 – present" / "uptime 2 years 10 months"): a faithful reading still holds."""
    parsed = read_profile_file(RESUMES / "rendercv_classic.pdf")
    faithful = ResumeFields.model_validate(parsed.profile.model_dump(exclude={"answers"}))

    grounded = ground(faithful, parsed.text)

    assert grounded.dropped == []
    assert grounded.profile.model_dump(exclude={"answers"}) == faithful.model_dump()
    left = unplaced_lines(grounded.profile, parsed.text)
    assert "Each section title is arbitrary." in left
    assert not any("99.97%" in line for line in left)
