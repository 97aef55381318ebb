"""Contact research's pure rules (issue 33): which pages are the company's own, the
source policy's setting and refusals, and the offline extractor on small texts."""

from __future__ import annotations

import pytest

from jobctrl.domain.contacts import (
    SourceRequest,
    on_company_site,
    page_kind,
    parse_sources,
    refusal,
)
from jobctrl.llm.contact_answers import ContactAnswer, PersonAnswer, supported_people
from jobctrl.llm.offline_contacts import extract_people


@pytest.mark.parametrize(
    ("url", "company", "posting", "own"),
    [
        ("https://acme.io/team", "Acme", "https://boards.greenhouse.io/acme/jobs/1", True),
        ("https://www.acme-robotics.com/about", "Acme Robotics", None, True),
        ("https://careers.acme.co.uk/people", "Other", "https://jobs.acme.co.uk/x", True),
        ("https://www.linkedin.com/company/acme", "Acme", None, False),
        ("https://boards.greenhouse.io/acme", "Acme", "https://boards.greenhouse.io/acme/1", False),
        ("https://acmeish.example/team", "Acme", "https://jobs.lever.co/acme/1", False),
    ],
)
def test_a_page_is_the_companys_own_by_its_domain(url, company, posting, own) -> None:
    assert on_company_site(url, company=company, posting_url=posting) is own


def test_the_policy_refuses_what_it_does_not_name_with_a_sentence() -> None:
    default = parse_sources("posting,pasted,company_pages")
    elsewhere = SourceRequest(page_kind("https://x.example/p", company="Acme", posting_url=None),
                              "https://x.example/p")  # fmt: skip
    assert "not on the company's own site" in (refusal(elsewhere, default) or "")
    assert refusal(elsewhere, [*default, "any_pages"]) is None
    assert "pasted text is not allowed" in (
        refusal(SourceRequest("pasted", "s"), ["posting"]) or ""
    )
    with pytest.raises(ValueError, match="not a source kind"):
        parse_sources("posting,linkedin")


def test_names_next_to_titles_cues_cards_and_addresses_are_read_with_their_sentence() -> None:
    text = (
        "You will report to Maria Gonzalez, our Head of Engineering.\n"
        "Questions? Reach out to Tom Becker (Technical Recruiter) at tom.becker@acme.io.\n"
        "Jane Doe\nCo-founder & CEO\n"
        "Write to priya.natarajan@acme.io or jobs@acme.io.\n"
        "Product Manager, Patient App\n"
    )
    found = {p.name: p for p in extract_people(text, company="Acme")}
    assert set(found) == {"Maria Gonzalez", "Tom Becker", "Jane Doe", "Priya Natarajan"}
    assert found["Tom Becker"].role == "recruiter"
    assert found["Tom Becker"].email == "tom.becker@acme.io"
    assert found["Maria Gonzalez"].role == "hiring_manager"
    assert found["Maria Gonzalez"].evidence.startswith("You will report to Maria Gonzalez")
    assert found["Jane Doe"].role == "founder"
    assert found["Tom Becker"].confidence > found["Priya Natarajan"].confidence


def test_a_models_answer_keeps_only_people_and_addresses_the_text_shows() -> None:
    text = "Our recruiter Jane Roe (jane@acme.io) runs the process."
    answer = ContactAnswer(people=[
        PersonAnswer(name="Jane Roe", role="recruiter", email="jane@acme.io", evidence="x"),
        PersonAnswer(name="Ghost Writer", role="founder", evidence="Ghost Writer founded it"),
        PersonAnswer(name="Jane Roe", role="recruiter", email="jroe@other.io", evidence="y"),
    ])  # fmt: skip
    kept = supported_people(answer, text)
    assert [(p.name, p.email) for p in kept] == [("Jane Roe", "jane@acme.io")]
    assert kept[0].evidence == text
