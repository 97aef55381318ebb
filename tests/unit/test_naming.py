"""Readable material file names: ASCII-safe, bounded, never empty."""

import re

import pytest

from jobctrl.domain.naming import MAX_PART, MAX_ROLE, ascii_words, material_file_name, short_role

SAFE = re.compile(r"^[A-Za-z0-9_-]+\.pdf$")


def test_a_resume_and_a_letter_carry_the_name_the_kind_and_the_company():
    assert material_file_name("Jane Doe", "resume", "Acme Robotics") == (
        "Jane_Doe_Resume_Acme_Robotics.pdf"
    )
    assert material_file_name("Jane Doe", "cover", "Acme Robotics") == (
        "Jane_Doe_Cover_Letter_Acme_Robotics.pdf"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Łukasz Żółć", "Lukasz_Zolc"),
        ("José Ñúñez", "Jose_Nunez"),
        ("Søren Kierkegård", "Soren_Kierkegard"),
        ("Straße Müller", "Strasse_Muller"),
        ("Đorđe Ćosić", "Dorde_Cosic"),
        ("Seán O'Brien", "Sean_OBrien"),
        ("Mary-Jane  Watson", "Mary-Jane_Watson"),
        ("  Ann\tLee\n", "Ann_Lee"),
    ],
)
def test_diacritics_are_folded_and_other_characters_dropped(name, expected):
    assert material_file_name(name, "resume", "X") == f"{expected}_Resume_X.pdf"


@pytest.mark.parametrize(
    ("company", "part"),
    [
        ("AT&T", "ATT"),
        ("Acme, Inc.", "Acme_Inc"),
        ("Zalando SE / Berlin", "Zalando_SE_Berlin"),
        ("Ünïcödé GmbH", "Unicode_GmbH"),
        ("../../etc/passwd", "etc_passwd"),
        ('a"b<c>d|e?f*g:h\\i', "a_b_c_d_e_f_g_h_i"),
    ],
)
def test_a_company_becomes_safe_words(company, part):
    name = material_file_name("Jane Doe", "resume", company)
    assert name == f"Jane_Doe_Resume_{part}.pdf"
    assert SAFE.match(name)


def test_the_role_follows_the_company():
    assert material_file_name("Jane Doe", "resume", "Acme Robotics", "Backend Engineer") == (
        "Jane_Doe_Resume_Acme_Robotics_Backend_Engineer.pdf"
    )
    assert material_file_name("Jane Doe", "cover", "Acme", "Staff Engineer") == (
        "Jane_Doe_Cover_Letter_Acme_Staff_Engineer.pdf"
    )


@pytest.mark.parametrize(
    ("role", "company", "part"),
    [
        ("Senior Backend Engineer (Payments) | Berlin", "Acme", "Senior_Backend_Engineer"),
        ("Software Engineer [m/w/d]", "Acme", "Software_Engineer"),
        ("Acme Robotics Field Engineer", "Acme Robotics", "Field_Engineer"),
        ("Acme", "Acme", "Acme"),  # a role that is only the company's name stays
        ("Site Reliability Engineer, Platform Infrastructure and Developer Tooling", "X",
         "Site_Reliability_Engineer_Platform"),
        ("(Remote)", "Acme", ""),
    ],
)  # fmt: skip
def test_a_role_is_shortened_sensibly(role, company, part):
    assert short_role(role, company) == part
    assert len(part) <= MAX_ROLE
    name = material_file_name("Jane Doe", "resume", company, role)
    assert SAFE.match(name) and name.endswith(f"_{part}.pdf" if part else f"_{company}.pdf")


def test_a_name_never_comes_out_empty():
    assert material_file_name("", "resume", "") == "Candidate_Resume.pdf"
    assert material_file_name("王伟", "cover", "株式会社") == "Candidate_Cover_Letter.pdf"
    assert material_file_name("!!!", "resume", "—") == "Candidate_Resume.pdf"


def test_each_part_is_bounded_at_a_word_boundary():
    long_name = " ".join(["Bartholomew"] * 10)
    long_company = "International Business Machines Corporation Worldwide Holdings"
    name = material_file_name(long_name, "cover", long_company)
    first, rest = name.split("_Cover_Letter_")
    assert len(first) <= MAX_PART and not first.endswith("_")
    assert first.split("_") == ["Bartholomew"] * 3
    assert len(rest) - len(".pdf") <= MAX_PART
    assert rest == "International_Business_Machines.pdf"
    assert len(material_file_name("x" * 500, "resume", "y" * 500)) <= 2 * MAX_PART + 20
    assert len(material_file_name("x" * 500, "cover", "y" * 500, "z " * 500)) <= 150


def test_only_safe_characters_ever_appear():
    for name in ["Zoë Saldaña", "Renée\u200b Fleming", "Ω Δ", "a/b\\c", "tab\there"]:
        assert SAFE.match(material_file_name(name, "resume", name))


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError):
        material_file_name("Jane Doe", "portfolio", "Acme")


def test_ascii_words_keeps_digits_and_hyphenated_words():
    assert ascii_words("Team 42 — Rock-Solid Ltd.") == ["Team", "42", "Rock-Solid", "Ltd"]
