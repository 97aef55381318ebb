"""Posting extraction: JSON-LD shapes, main-text fallback, and structure-keeping text."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest

from jobctrl.demo.postings import generate_postings
from jobctrl.demo.site import demo_pages
from jobctrl.fetch.extract import extract_posting, html_fragment_to_text

BASE = "http://127.0.0.1:8000"
PAGES = demo_pages()


def _extract(name: str) -> Any:
    path = f"/jobs/{name}.html"
    return extract_posting(PAGES[path], BASE + path)


def _page(ld: Any | None, body: str = "", head: str = "") -> str:
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>' if ld else ""
    return f"<html><head>{head}{script}</head><body>{body}</body></html>"


LONG_BODY = """
<header><nav><a href="/">Home</a> <a href="/jobs">Jobs</a></nav></header>
<main><article>
<h1>Warehouse Systems Analyst</h1>
<p>Location: Leipzig, Germany</p>
<h2>About us</h2>
<p>Hafenkran Systems builds the software that runs forty automated warehouses across central
Europe, from the conveyor controllers up to the planning dashboards used every morning.</p>
<h2>Requirements</h2>
<ul><li>Experience with SQL and reporting tools.</li><li>Knowledge of warehouse processes.</li>
<li>Good communication in English and German.</li></ul>
<h2>Nice to have</h2>
<ul><li>Python scripting.</li></ul>
<p><a href="/apply/wsa-7">Apply now</a></p>
</article></main>
<footer>Imprint</footer>
"""


@pytest.mark.parametrize(
    ("name", "title", "company", "location", "method"),
    [
        ("harborline-senior-backend-engineer", "Senior Backend Engineer (Python)",
         "Harborline Freight", "Rotterdam, Zuid-Holland, NL", "json-ld"),
        ("quillstack-platform-engineer", "Platform Engineer", "Quillstack",
         "Remote (United States, Canada)", "json-ld"),
        ("fernbank-data-engineer", "Data Engineer", "Fernbank Energy",
         "Wellington Place, Leeds, United Kingdom", "json-ld"),
        ("tallow-pine-product-designer", "Senior Product Designer", "Tallow & Pine",
         "Portland, OR, US", "json-ld"),
        ("meridian-ml-research-scientist", "Machine Learning Research Scientist",
         "Meridian Bioworks", "Boston, MA, US; Cambridge, GB", "json-ld"),
        ("kestrel-engineering-manager", "Engineering Manager, Payouts", "Kestrel Payments",
         "Berlin, Germany", "main-text"),
    ],
)  # fmt: skip
def test_each_demo_page_extracts_title_company_location(
    name: str, title: str, company: str, location: str, method: str
) -> None:
    posting = _extract(name)
    assert (posting.title, posting.company, posting.location) == (title, company, location)
    assert posting.method == method
    assert len(posting.description) > 300
    assert "- " in posting.description


def test_graph_page_resolves_organisation_reference_and_salary() -> None:
    posting = _extract("fernbank-data-engineer")
    assert posting.company == "Fernbank Energy"
    assert posting.salary is not None
    assert (posting.salary.min, posting.salary.max) == (55000, 68000)
    assert (posting.salary.currency, posting.salary.period) == ("GBP", "YEAR")
    assert posting.date_posted == "2025-05-28"
    assert posting.valid_through == "2099-08-15"


def test_telecommute_posting_is_remote_with_apply_action_url() -> None:
    posting = _extract("quillstack-platform-engineer")
    assert posting.remote is True
    assert posting.apply_url == "https://jobs.quillstack.example/apply/platform-engineer"


def test_on_site_posting_is_not_remote() -> None:
    assert _extract("harborline-senior-backend-engineer").remote is False


def test_salary_range_and_relative_apply_url_made_absolute() -> None:
    posting = _extract("harborline-senior-backend-engineer")
    assert posting.salary is not None
    assert posting.salary.model_dump() == {
        "min": 80000.0,
        "max": 100000.0,
        "currency": "EUR",
        "period": "YEAR",
    }
    assert posting.apply_url == f"{BASE}/jobs/harborline-senior-backend-engineer.html#apply"


def test_plain_number_salary_gives_equal_min_and_max() -> None:
    salary = _extract("meridian-ml-research-scientist").salary
    assert salary is not None
    assert (salary.min, salary.max, salary.currency) == (190000, 190000, "USD")


def test_html_escaped_description_becomes_plain_text_with_bullets() -> None:
    posting = _extract("tallow-pine-product-designer")
    assert "&lt;" not in posting.description and "<p>" not in posting.description
    assert posting.description.startswith("Tallow & Pine makes solid-wood furniture")
    assert "\n- Expert in Figma, including prototyping and component libraries." in (
        posting.description
    )


def test_description_keeps_headings_on_own_lines_and_bullets() -> None:
    lines = _extract("harborline-senior-backend-engineer").description.splitlines()
    assert "Requirements" in lines
    assert "Nice to have" in lines
    req = lines.index("Requirements")
    assert (
        lines[req + 2]
        == "- 5+ years of professional experience building backend systems in Python."
    )


def test_malformed_json_ld_falls_back_to_main_text() -> None:
    broken = '<script type="application/ld+json">{"@type": "JobPosting", "title": </script>'
    page = LONG_BODY.replace("<main>", broken + "<main>")
    posting = extract_posting(
        _page(None, body=page, head='<meta property="og:site_name" content="Hafenkran">'),
        "https://hafenkran.example/jobs/wsa",
    )
    assert posting.method == "main-text"
    assert posting.title == "Warehouse Systems Analyst"
    assert posting.company == "Hafenkran"
    assert "- Experience with SQL and reporting tools." in posting.description


def test_one_malformed_block_does_not_hide_a_good_one() -> None:
    good = {"@context": "https://schema.org", "@type": "JobPosting", "title": "Barista"}
    doc = (
        '<html><head><script type="application/ld+json">{"broken": </script>'
        f'<script type="application/ld+json">{json.dumps(good)}</script></head>'
        "<body><p>Pour coffee.</p></body></html>"
    )
    posting = extract_posting(doc, "https://cafe.example/jobs/1")
    assert (posting.method, posting.title) == ("json-ld", "Barista")


def test_page_without_json_ld_uses_main_text() -> None:
    head = '<meta property="og:site_name" content="Hafenkran Systems">'
    posting = extract_posting(_page(None, LONG_BODY, head).encode(), "https://h.example/jobs/x")
    assert posting.method == "main-text"
    assert posting.company == "Hafenkran Systems"
    assert posting.location == "Leipzig, Germany"
    assert posting.apply_url == "https://h.example/apply/wsa-7"
    lines = posting.description.splitlines()
    assert "Requirements" in lines and "- Python scripting." in lines
    assert not any(line.startswith(("#", "*")) for line in lines)


def test_json_ld_variants_list_type_string_org_and_address_string() -> None:
    ld = [
        {"@type": "BreadcrumbList", "itemListElement": []},
        {
            "@type": ["JobPosting", "Thing"],
            "title": "Cook &amp; Chef",
            "hiringOrganization": "Bistro Nord",
            "jobLocation": [{"@type": "Place", "address": "Hamburg, Germany"}],
            "description": "Cook for 60 guests.\n• Knife skills\n• Food safety certificate",
            "baseSalary": {"@type": "MonetaryAmount", "currency": "EUR", "value": "3,200"},
        },
    ]
    posting = extract_posting(_page(ld), "https://bistro.example/jobs/cook")
    assert posting.title == "Cook & Chef"
    assert posting.company == "Bistro Nord"
    assert posting.location == "Hamburg, Germany"
    assert posting.description == "Cook for 60 guests.\n- Knife skills\n- Food safety certificate"
    assert posting.salary is not None and posting.salary.min == 3200.0


def test_json_ld_without_description_reads_main_text_but_keeps_json_ld_fields() -> None:
    ld = {"@type": "JobPosting", "title": "Warehouse Systems Analyst", "datePosted": "2025-01-02"}
    posting = extract_posting(_page(ld, LONG_BODY), "https://h.example/jobs/x")
    assert posting.method == "json-ld"
    assert posting.date_posted == "2025-01-02"
    assert "- Knowledge of warehouse processes." in posting.description


def test_company_falls_back_to_og_site_name() -> None:
    head = '<meta property="og:site_name" content="Acme Careers">'
    posting = extract_posting(_page({"@type": "JobPosting", "title": "X"}, "", head), BASE)
    assert posting.company == "Acme Careers"


def test_declared_charset_is_honoured_for_bytes() -> None:
    ld = {"@type": "JobPosting", "title": "Kellner", "hiringOrganization": {"name": "Café Würz"}}
    page = '<meta charset="iso-8859-1">' + _page(ld)
    posting = extract_posting(page.encode("iso-8859-1"), BASE)
    assert posting.company == "Café Würz"


def test_empty_page_gives_method_none() -> None:
    assert extract_posting(b"", BASE).method == "none"
    assert extract_posting("   ", BASE).method == "none"


def test_fragment_converter_structure() -> None:
    fragment = (
        "<p>Intro <b>bold</b>\n text.</p><h3>Requirements</h3>"
        "<ul><li><p>Python</p></li><li>SQL<ul><li>PostgreSQL</li></ul></li><li></li></ul>"
        "<p><strong>Nice to have:</strong></p><ol><li>Go</li></ol>tail<br>line"
    )
    assert html_fragment_to_text(fragment) == (
        "Intro bold text.\n\nRequirements\n\n- Python\n- SQL\n- PostgreSQL\n\n"
        "Nice to have:\n\n- Go\n\ntail\nline"
    )
    escaped = html.escape("<ul><li>A &amp; B</li></ul>")
    assert html_fragment_to_text(escaped) == "- A & B"


def test_generated_benchmark_pages_all_extract() -> None:
    pages = generate_postings(40, seed=3)
    results = [extract_posting(body, BASE + path) for path, body in pages.items()]
    assert {r.method for r in results} == {"json-ld", "main-text"}
    assert sum(r.method == "main-text" for r in results) == 4
    for posting in results:
        assert posting.title and posting.company and posting.location
        assert "\n- " in posting.description


def test_json_ld_without_place_leaves_remote_unknown_and_reads_location_label() -> None:
    ld = {"@type": "JobPosting", "title": "Analyst", "description": "<p>Numbers.</p>"}
    posting = extract_posting(_page(ld, "<p>Location: Porto, Portugal</p>"), BASE)
    assert posting.remote is None
    assert posting.location == "Porto, Portugal"


def test_malformed_json_ld_fields_fall_back_to_the_page() -> None:
    """Wrong-typed JSON-LD (a number for the company, no title, a date that is not one)
    does not win over the page: the page's heading and site name stand in."""
    ld = {
        "@context": "https://schema.org",
        "@type": "JobPosting",
        "hiringOrganization": 42,
        "datePosted": "not-a-date",
        "validThrough": "2027-01-31",
        "description": "<p>Build the data platform.</p>",
    }
    head = '<meta property="og:site_name" content="Fernbank">'
    posting = extract_posting(_page(ld, "<h1>Senior Data Engineer</h1>", head), BASE + "/j")
    assert posting.title == "Senior Data Engineer"
    assert posting.company == "Fernbank"
    assert posting.date_posted is None
    assert posting.valid_through == "2027-01-31"
    assert posting.method == "json-ld"
