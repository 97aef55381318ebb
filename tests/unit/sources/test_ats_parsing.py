"""ATS parsers read each provider's published response shape into DiscoveredPostings.

The payloads below follow the providers' public API shapes (field names as published) and are
also replayed by the loopback integration tests in tests/integration/sources.
"""

from __future__ import annotations

import html
from datetime import timedelta
from typing import Any

import pytest

from jobctrl.domain.errors import (
    DETAIL_UNSAFE_URL,
    ENRICH_HTTP_CLIENT_ERROR,
    ENRICH_HTTP_NOT_FOUND,
    ENRICH_HTTP_SERVER_ERROR,
    ENRICH_INVALID_URL,
    ENRICH_RATE_LIMITED,
    ENRICH_TIMEOUT,
    ENRICH_TOO_LARGE,
    ENRICH_UNREACHABLE,
    ENRICH_UNSUPPORTED_CONTENT,
    SOURCE_CONFIG,
    SOURCE_MALFORMED,
    SOURCE_NOT_FOUND,
    SOURCE_RATE_LIMITED,
    SOURCE_UNAVAILABLE,
    StageError,
)
from jobctrl.domain.posting import SalaryRange
from jobctrl.sources import ashby, greenhouse, lever, recruitee, smartrecruiters, workable
from jobctrl.sources._http import as_source_error, salary_period
from jobctrl.sources.base import KINDS, SourceConfig, SourceError
from jobctrl.sources.registry import SOURCE_TYPES, make_source

# -- provider payloads ------------------------------------------------------------------------

_GH_CONTENT = html.escape(
    "<p>Acme builds <strong>payments</strong> infrastructure.</p>"
    "<h3>What you will do</h3><ul><li>Design APIs</li><li>Run Postgres at scale</li></ul>"
    "<h3>Requirements</h3><ul><li>5+ years of Python</li><li>Kubernetes</li></ul>"
)

GREENHOUSE_BOARD: dict[str, Any] = {
    "jobs": [
        {
            "id": 4012345,
            "internal_job_id": 3900001,
            "title": "Senior Backend Engineer",
            "absolute_url": "https://boards.greenhouse.io/acme/jobs/4012345",
            "company_name": "Acme Payments",
            "location": {"name": "Berlin, Germany"},
            "updated_at": "2025-03-04T10:15:00-05:00",
            "first_published": "2025-02-20T09:00:00-05:00",
            "requisition_id": "ENG-42",
            "content": _GH_CONTENT,
            "departments": [{"id": 11, "name": "Engineering", "child_ids": [], "parent_id": None}],
            "offices": [{"id": 7, "name": "Berlin", "location": "Berlin, Germany"}],
            "metadata": [
                {"id": 1, "name": "Employment Type", "value": "Full-time", "value_type": "single"}
            ],
            "data_compliance": [{"type": "gdpr", "requires_consent": False}],
        },
        {
            "id": 4012346,
            "title": "Data Analyst",
            "absolute_url": "https://boards.greenhouse.io/acme/jobs/4012346",
            "location": {"name": "Remote - US"},
            "updated_at": "2025-03-01T12:00:00-05:00",
            "content": html.escape("<p>Own our dashboards.</p>"),
            "departments": [],
            "offices": [],
            "metadata": None,
        },
        # Missing optional fields: no location, content, departments, offices or dates.
        {
            "id": 4012347,
            "title": "Office Manager",
            "absolute_url": "https://boards.greenhouse.io/acme/jobs/4012347",
        },
        {"id": 4012348, "title": "", "absolute_url": "https://boards.greenhouse.io/acme/jobs/1"},
        {"id": 4012349, "title": "No URL"},
        "not a job",
    ],
    "meta": {"total": 6},
}

LEVER_POSTINGS: list[dict[str, Any]] = [
    {
        "id": "5ac21346-8e0c-4494-8e7a-3eb92ff77902",
        "text": "Platform Engineer",
        "hostedUrl": "https://jobs.lever.co/leverdemo/5ac21346-8e0c-4494-8e7a-3eb92ff77902",
        "applyUrl": "https://jobs.lever.co/leverdemo/5ac21346-8e0c-4494-8e7a-3eb92ff77902/apply",
        "categories": {
            "commitment": "Full-time",
            "department": "Engineering",
            "location": "Remote - EU",
            "team": "Platform",
            "allLocations": ["Remote - EU", "Lisbon"],
        },
        "workplaceType": "remote",
        "createdAt": 1700000000000,
        "country": "PT",
        "description": "<div>We run the <b>platform</b> everyone deploys to.</div>",
        "descriptionPlain": "We run the platform everyone deploys to.\n",
        "lists": [
            {"text": "What you'll do", "content": "<li>Own CI/CD</li><li>Improve Terraform</li>"},
            {"text": "Requirements", "content": "<li>Go or Python</li><li>AWS</li>"},
        ],
        "additional": "<div>We offer <i>flexible</i> hours.</div>",
        "additionalPlain": "We offer flexible hours.\n",
        "salaryRange": {
            "currency": "EUR",
            "interval": "per-year-salary",
            "min": 70000,
            "max": 90000,
        },
        "salaryDescriptionPlain": "Plus equity.",
    },
    {
        "id": "0f6a2a7c-1111-4b8e-9d55-2a1d1e3b2c01",
        "text": "Account Executive",
        "hostedUrl": "https://jobs.lever.co/leverdemo/0f6a2a7c-1111-4b8e-9d55-2a1d1e3b2c01",
        "applyUrl": "https://jobs.lever.co/leverdemo/0f6a2a7c-1111-4b8e-9d55-2a1d1e3b2c01/apply",
        "categories": {"commitment": "Full-time", "location": "New York", "team": "Sales"},
        "workplaceType": "hybrid",
        "createdAt": 1701234567890,
        "descriptionPlain": "Close deals.\n\n- Hit quota\n- Build pipeline",
        "lists": [],
    },
    {
        "id": "77777777-2222-4b8e-9d55-2a1d1e3b2c02",
        "text": "Warehouse Associate",
        "hostedUrl": "https://jobs.lever.co/leverdemo/77777777-2222-4b8e-9d55-2a1d1e3b2c02",
        "categories": {"location": "Austin, TX"},
        "workplaceType": "on-site",
    },
    {"id": "no-url", "text": "Ghost", "categories": {}},
    {"id": "no-title", "hostedUrl": "https://jobs.lever.co/leverdemo/no-title"},
]

ASHBY_BOARD: dict[str, Any] = {
    "apiVersion": "1",
    "jobs": [
        {
            "id": "8f3b2a10-5d4c-4c1e-9a7b-0a1b2c3d4e5f",
            "title": "Product Designer",
            "location": "San Francisco",
            "secondaryLocations": [
                {"location": "New York", "address": {"postalAddress": {"addressLocality": "NYC"}}}
            ],
            "department": "Design",
            "team": "Product Design",
            "isListed": True,
            "isRemote": False,
            "workplaceType": "Hybrid",
            "descriptionHtml": "<p>Shape our app.</p><h2>You have</h2><ul><li>Figma</li></ul>",
            "descriptionPlain": "Shape our app.\n\nYou have\n\n- Figma",
            "publishedAt": "2025-01-15T18:30:00.000+00:00",
            "employmentType": "FullTime",
            "jobUrl": "https://jobs.ashbyhq.com/ashbydemo/8f3b2a10-5d4c-4c1e-9a7b-0a1b2c3d4e5f",
            "applyUrl": "https://jobs.ashbyhq.com/ashbydemo/8f3b2a10-5d4c-4c1e-9a7b-0a1b2c3d4e5f/application",
            "compensation": {
                "compensationTierSummary": "$150K – $190K • Offers Equity",
                "scrapeableCompensationSalarySummary": "$150K - $190K",
                "compensationTiers": [],
                "summaryComponents": [
                    {
                        "compensationType": "EquityPercentage",
                        "interval": "NONE",
                        "currencyCode": None,
                        "minValue": 0.1,
                        "maxValue": 0.2,
                    },
                    {
                        "compensationType": "Salary",
                        "interval": "1 YEAR",
                        "currencyCode": "USD",
                        "minValue": 150000,
                        "maxValue": 190000,
                    },
                ],
            },
        },
        {
            "id": "11111111-5d4c-4c1e-9a7b-0a1b2c3d4e5f",
            "title": "Support Engineer",
            "location": "Remote",
            "isListed": True,
            "isRemote": True,
            "descriptionPlain": "Help customers.",
            "publishedAt": "2025-02-01T08:00:00.000+00:00",
            "employmentType": "PartTime",
            "jobUrl": "https://jobs.ashbyhq.com/ashbydemo/11111111-5d4c-4c1e-9a7b-0a1b2c3d4e5f",
        },
        {
            "id": "22222222-unlisted",
            "title": "Secret Role",
            "isListed": False,
            "jobUrl": "https://jobs.ashbyhq.com/ashbydemo/22222222-unlisted",
        },
        {"id": "33333333-no-url", "title": "Broken", "isListed": True},
    ],
}

WORKABLE_ACCOUNT: dict[str, Any] = {
    "name": "Workable Demo Co",
    "description": "<p>We make things.</p>",
    "jobs": [
        {
            "title": "Machine Learning Engineer",
            "shortcode": "A1B2C3D4E5",
            "code": "ML-7",
            "employment_type": "Full-time",
            "telecommuting": True,
            "department": "Research",
            "url": "https://apply.workable.com/j/A1B2C3D4E5",
            "shortlink": "https://apply.workable.com/j/A1B2C3D4E5",
            "application_url": "https://apply.workable.com/j/A1B2C3D4E5/apply",
            "published_on": "2025-03-10",
            "created_at": "2025-03-09",
            "country": "Germany",
            "city": "Munich",
            "state": "Bavaria",
            "education": "",
            "experience": "Mid-Senior level",
            "function": "Engineering",
            "industry": "Computer Software",
            "locations": [
                {
                    "country": "Germany",
                    "countryCode": "DE",
                    "city": "Munich",
                    "region": "Bavaria",
                    "hidden": False,
                },
                {
                    "country": "Germany",
                    "countryCode": "DE",
                    "city": "Hamburg",
                    "region": "Hamburg",
                    "hidden": True,
                },
            ],
            "description": "<p>Train models.</p><p><strong>Requirements</strong></p>"
            "<ul><li>PyTorch</li><li>MLOps</li></ul>",
        },
        {
            "title": "Store Manager",
            "shortcode": "F6G7H8I9J0",
            "employment_type": "Part-time",
            "telecommuting": False,
            "department": "",
            "shortlink": "https://apply.workable.com/j/F6G7H8I9J0",
            "created_at": "2025-03-01",
            "country": "Greece",
            "city": "Athens",
            "state": "",
            "locations": [],
        },
        {"title": "No links", "shortcode": "XXXX"},
    ],
}

SMARTRECRUITERS_PAGE: dict[str, Any] = {
    "offset": 0,
    "limit": 100,
    "totalFound": 3,
    "content": [
        {
            "id": "744000012345678",
            "name": "Field Service Technician",
            "uuid": "3f2a0e4c-1111-2222-3333-444455556666",
            "refNumber": "REF123",
            "company": {"identifier": "SmartDemo", "name": "Smart Demo Inc."},
            "releasedDate": "2025-03-12T14:03:11.000Z",
            "location": {
                "city": "Chicago",
                "region": "IL",
                "country": "us",
                "remote": False,
                "fullLocation": "Chicago, IL, United States",
            },
            "industry": {"id": "machinery", "label": "Machinery"},
            "department": {"id": "1001", "label": "Operations"},
            "function": {"id": "engineering", "label": "Engineering"},
            "typeOfEmployment": {"id": "permanent", "label": "Full-time"},
            "experienceLevel": {"id": "associate", "label": "Associate"},
            "ref": "https://api.smartrecruiters.com/v1/companies/SmartDemo/postings/744000012345678",
            "language": {"code": "en", "label": "English"},
        },
        {
            "id": "744000087654321",
            "name": "Remote Recruiter",
            "company": {"identifier": "SmartDemo", "name": "Smart Demo Inc."},
            "releasedDate": "2025-03-01T09:00:00.000Z",
            "location": {"city": "Denver", "country": "us", "remote": True},
        },
        {"id": "744000000000000", "company": {"identifier": "SmartDemo"}},
    ],
}

RECRUITEE_OFFERS: dict[str, Any] = {
    "offers": [
        {
            "id": 1765432,
            "slug": "frontend-developer",
            "title": "Frontend Developer",
            "company_name": "Recruitee Demo BV",
            "careers_url": "https://demo.recruitee.com/o/frontend-developer",
            "careers_apply_url": "https://demo.recruitee.com/o/frontend-developer/c/new",
            "location": "Amsterdam, Netherlands",
            "city": "Amsterdam",
            "country": "Netherlands",
            "country_code": "NL",
            "remote": False,
            "hybrid": True,
            "on_site": False,
            "department": "Engineering",
            "employment_type_code": "fulltime_permanent",
            "published_at": "2025-02-03 09:30:00 UTC",
            "created_at": "2025-02-01 08:00:00 UTC",
            "description": "<p>Build our <em>React</em> app.</p>",
            "requirements": "<ul><li>TypeScript</li><li>Accessibility</li></ul>",
            "salary": {"min": "4000.00", "max": "5500.00", "currency": "EUR", "period": "month"},
        },
        {
            "id": 1765433,
            "slug": "support-agent",
            "title": "Support Agent",
            "careers_url": "https://demo.recruitee.com/o/support-agent",
            "city": "Lisbon",
            "country": "Portugal",
            "remote": True,
            "description": "<p>Help users.</p>",
            "requirements": "",
            "published_at": "2025-02-10T10:00:00Z",
        },
        {"id": 1765434, "title": "No URL"},
    ]
}


def _config(kind: str, name: str = "demo", base_url: str | None = None) -> SourceConfig:
    return SourceConfig(kind=kind, name=name, base_url=base_url)


def _malformed(call: Any) -> SourceError:
    with pytest.raises(SourceError) as caught:
        call()
    assert caught.value.code == SOURCE_MALFORMED
    assert caught.value.retryable is False
    return caught.value


# -- Greenhouse ---------------------------------------------------------------------------------


def test_greenhouse_board_keeps_valid_jobs_and_skips_those_without_title_or_url() -> None:
    postings = greenhouse.parse_board(GREENHOUSE_BOARD, _config("greenhouse", "acme"))

    assert [p.title for p in postings] == [
        "Senior Backend Engineer",
        "Data Analyst",
        "Office Manager",
    ]
    first = postings[0]
    assert first.source_kind == "greenhouse" and first.source_name == "acme"
    assert first.url == first.apply_url == "https://boards.greenhouse.io/acme/jobs/4012345"
    assert first.external_id == "4012345"
    assert first.company == "Acme Payments"
    assert first.location == "Berlin, Germany" and first.remote is None
    assert first.department == "Engineering"
    assert first.employment_type == "Full-time"
    assert first.date_posted == "2025-02-20T09:00:00-05:00"
    assert first.extra == {
        "offices": "Berlin",
        "updated_at": "2025-03-04T10:15:00-05:00",
        "requisition_id": "ENG-42",
        "internal_job_id": "3900001",
    }


def test_greenhouse_escaped_html_content_becomes_structured_text() -> None:
    first = greenhouse.parse_board(GREENHOUSE_BOARD, _config("greenhouse", "acme"))[0]

    assert first.description is not None
    lines = first.description.splitlines()
    assert lines[0] == "Acme builds payments infrastructure."
    assert "What you will do" in lines and "Requirements" in lines
    assert "- Design APIs" in lines and "- 5+ years of Python" in lines
    assert "&lt;" not in first.description and "<" not in first.description


def test_greenhouse_missing_optional_fields_fall_back_to_defaults() -> None:
    _, analyst, manager = greenhouse.parse_board(GREENHOUSE_BOARD, _config("greenhouse", "acme"))

    assert analyst.company == "acme"  # no company_name: the board token
    assert analyst.remote is True  # "Remote - US"
    assert analyst.date_posted == "2025-03-01T12:00:00-05:00"  # no first_published
    assert analyst.department is None and analyst.employment_type is None
    assert manager.location is None and manager.description is None and manager.extra == {}


@pytest.mark.parametrize("payload", [[], {"meta": {"total": 0}}, {"jobs": {"id": 1}}, "jobs", None])
def test_greenhouse_answer_without_a_jobs_list_is_malformed(payload: Any) -> None:
    error = _malformed(lambda: greenhouse.parse_board(payload, _config("greenhouse", "acme")))
    assert "'acme'" in error.message


# -- Lever ------------------------------------------------------------------------------------


def test_lever_postings_map_workplace_type_salary_and_epoch_dates() -> None:
    postings = lever.parse_postings(LEVER_POSTINGS, _config("lever", "leverdemo"))

    assert [p.title for p in postings] == [
        "Platform Engineer",
        "Account Executive",
        "Warehouse Associate",
    ]
    platform, sales, warehouse = postings
    assert [p.remote for p in postings] == [True, False, False]
    assert platform.location == "Remote - EU; Lisbon"
    assert platform.department == "Engineering" and platform.extra["team"] == "Platform"
    assert platform.employment_type == "Full-time"
    assert platform.apply_url.endswith("/apply")  # type: ignore[union-attr]
    assert platform.date_posted == "2023-11-14T22:13:20Z"
    assert platform.salary == SalaryRange(min=70000, max=90000, currency="EUR", period="YEAR")
    assert platform.extra["salary_description"] == "Plus equity."
    assert sales.department == "Sales"  # no department: the team
    assert sales.salary is None and sales.date_posted == "2023-11-29T05:09:27Z"
    assert warehouse.apply_url is None and warehouse.description is None


def test_lever_description_joins_opening_lists_and_closing_with_headings() -> None:
    platform, sales, _ = lever.parse_postings(LEVER_POSTINGS, _config("lever", "leverdemo"))

    assert platform.description == (
        "We run the platform everyone deploys to.\n\n"
        "What you'll do\n\n"
        "- Own CI/CD\n- Improve Terraform\n\n"
        "Requirements\n\n"
        "- Go or Python\n- AWS\n\n"
        "We offer flexible hours."
    )
    assert sales.description == "Close deals.\n\n- Hit quota\n- Build pipeline"  # plain only


def test_lever_unspecified_workplace_falls_back_to_a_remote_location() -> None:
    item = {**LEVER_POSTINGS[2], "workplaceType": "unspecified"}
    remote_item = {**item, "categories": {"location": "Remote"}}

    postings = lever.parse_postings([item, remote_item], _config("lever", "leverdemo"))

    assert [p.remote for p in postings] == [None, True]


@pytest.mark.parametrize("payload", [{"postings": []}, {"ok": False}, "[]", 3])
def test_lever_answer_that_is_not_a_list_is_malformed(payload: Any) -> None:
    _malformed(lambda: lever.parse_postings(payload, _config("lever", "leverdemo")))


# -- Ashby ------------------------------------------------------------------------------------


def test_ashby_skips_unlisted_jobs_and_reads_compensation() -> None:
    postings = ashby.parse_board(ASHBY_BOARD, _config("ashby", "ashbydemo"))

    assert [p.title for p in postings] == ["Product Designer", "Support Engineer"]
    designer, support = postings
    assert designer.salary == SalaryRange(min=150000, max=190000, currency="USD", period="YEAR")
    assert designer.extra["compensation"] == "$150K – $190K • Offers Equity"
    assert designer.location == "San Francisco; New York"
    assert designer.remote is False  # workplaceType Hybrid
    assert designer.department == "Design" and designer.extra["team"] == "Product Design"
    assert designer.employment_type == "FullTime"
    assert designer.date_posted == "2025-01-15T18:30:00.000+00:00"
    assert designer.apply_url is not None and designer.apply_url.endswith("/application")
    assert designer.description == "Shape our app.\n\nYou have\n\n- Figma"
    assert designer.company == "ashbydemo"
    assert support.remote is True  # no workplaceType: isRemote
    assert support.salary is None and support.apply_url is None
    assert support.description == "Help customers."


@pytest.mark.parametrize("payload", [{"apiVersion": "1"}, [ASHBY_BOARD], {"jobs": None}])
def test_ashby_answer_without_jobs_is_malformed(payload: Any) -> None:
    _malformed(lambda: ashby.parse_board(payload, _config("ashby", "ashbydemo")))


# -- Workable ---------------------------------------------------------------------------------


def test_workable_account_jobs_use_visible_locations_and_telecommuting() -> None:
    postings = workable.parse_account(WORKABLE_ACCOUNT, _config("workable", "wdemo"))

    assert [p.title for p in postings] == ["Machine Learning Engineer", "Store Manager"]
    ml, store = postings
    assert ml.company == store.company == "Workable Demo Co"
    assert ml.external_id == "A1B2C3D4E5"
    assert ml.location == "Munich, Bavaria, Germany"  # the hidden Hamburg entry is left out
    assert ml.remote is True and store.remote is False
    assert ml.department == "Research" and store.department is None
    assert ml.employment_type == "Full-time"
    assert ml.date_posted == "2025-03-10"
    assert ml.apply_url == "https://apply.workable.com/j/A1B2C3D4E5/apply"
    assert ml.description == "Train models.\n\nRequirements\n\n- PyTorch\n- MLOps"
    assert ml.extra["code"] == "ML-7" and ml.extra["experience"] == "Mid-Senior level"
    assert store.url == "https://apply.workable.com/j/F6G7H8I9J0"  # no url: the shortlink
    assert store.location == "Athens, Greece"  # no locations[]: the top-level fields
    assert store.date_posted == "2025-03-01"  # no published_on: created_at


@pytest.mark.parametrize("payload", [{"name": "Demo"}, [], {"jobs": "none"}])
def test_workable_answer_without_jobs_is_malformed(payload: Any) -> None:
    _malformed(lambda: workable.parse_account(payload, _config("workable", "wdemo")))


# -- SmartRecruiters -----------------------------------------------------------------------------


def test_smartrecruiters_page_builds_public_urls_and_counts_every_item() -> None:
    page = smartrecruiters.parse_page(SMARTRECRUITERS_PAGE, _config("smartrecruiters", "SmartDemo"))

    assert page.size == 3 and page.total_found == 3
    assert [p.title for p in page.postings] == ["Field Service Technician", "Remote Recruiter"]
    tech, recruiter = page.postings
    assert tech.url == "https://jobs.smartrecruiters.com/SmartDemo/744000012345678"
    assert tech.company == "Smart Demo Inc."
    assert tech.location == "Chicago, IL, United States"
    assert tech.remote is False and recruiter.remote is True
    assert recruiter.location == "Denver, us"
    assert tech.department == "Operations" and tech.employment_type == "Full-time"
    assert tech.date_posted == "2025-03-12T14:03:11.000Z"
    assert tech.extra["ref_number"] == "REF123"
    assert tech.extra["api_ref"].endswith("/postings/744000012345678")
    assert tech.description is None  # the list endpoint has none


def test_smartrecruiters_urls_stay_under_a_given_jobs_base() -> None:
    page = smartrecruiters.parse_page(
        SMARTRECRUITERS_PAGE,
        _config("smartrecruiters", "SmartDemo"),
        jobs_base="http://127.0.0.1:9",
    )
    assert page.postings[0].url == "http://127.0.0.1:9/SmartDemo/744000012345678"


@pytest.mark.parametrize("payload", [{"totalFound": 0}, [], {"content": {}}])
def test_smartrecruiters_answer_without_content_is_malformed(payload: Any) -> None:
    _malformed(lambda: smartrecruiters.parse_page(payload, _config("smartrecruiters", "SmartDemo")))


# -- Recruitee --------------------------------------------------------------------------------


def test_recruitee_offers_read_salary_strings_dates_and_requirements() -> None:
    postings = recruitee.parse_offers(RECRUITEE_OFFERS, _config("recruitee", "demo"))

    assert [p.title for p in postings] == ["Frontend Developer", "Support Agent"]
    dev, support = postings
    assert dev.salary == SalaryRange(min=4000, max=5500, currency="EUR", period="MONTH")
    assert dev.date_posted == "2025-02-03T09:30:00Z"
    assert dev.remote is False and support.remote is True
    assert dev.location == "Amsterdam, Netherlands" and support.location == "Lisbon, Portugal"
    assert dev.company == "Recruitee Demo BV" and support.company == "demo"
    assert dev.employment_type == "fulltime_permanent"
    assert dev.apply_url == "https://demo.recruitee.com/o/frontend-developer/c/new"
    assert (
        dev.description == "Build our React app.\n\nRequirements\n\n- TypeScript\n- Accessibility"
    )
    assert support.description == "Help users."
    assert support.date_posted == "2025-02-10T10:00:00Z"  # already ISO: kept as published
    assert dev.extra == {"slug": "frontend-developer"}


@pytest.mark.parametrize("payload", [{"offer": []}, [RECRUITEE_OFFERS], {"offers": 1}])
def test_recruitee_answer_without_offers_is_malformed(payload: Any) -> None:
    _malformed(lambda: recruitee.parse_offers(payload, _config("recruitee", "demo")))


# -- shared rules: configs, URLs, errors, registry ----------------------------------------------


@pytest.mark.parametrize(
    ("kind", "url"),
    [
        ("greenhouse", "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true"),
        ("ashby", "https://api.ashbyhq.com/posting-api/job-board/acme?includeCompensation=true"),
        ("workable", "https://apply.workable.com/api/v1/widget/accounts/acme?details=true"),
        ("recruitee", "https://acme.recruitee.com/api/offers/"),
    ],
)
def test_default_urls_are_the_providers_public_apis(kind: str, url: str) -> None:
    assert make_source(_config(kind, "acme")).url == url  # type: ignore[attr-defined]


def test_paged_sources_put_paging_in_the_query() -> None:
    lever_source = lever.LeverSource(_config("lever", "acme"))
    sr_source = smartrecruiters.SmartRecruitersSource(_config("smartrecruiters", "Acme"))

    assert lever_source.page_url(200) == (
        "https://api.lever.co/v0/postings/acme?mode=json&skip=200&limit=100"
    )
    assert sr_source.page_url(100) == (
        "https://api.smartrecruiters.com/v1/companies/Acme/postings?limit=100&offset=100"
    )


def test_a_base_url_replaces_scheme_and_host_and_keeps_the_provider_paths() -> None:
    base = "http://127.0.0.1:8123/"
    assert make_source(_config("greenhouse", "acme", base)).url == (  # type: ignore[attr-defined]
        "http://127.0.0.1:8123/v1/boards/acme/jobs?content=true"
    )
    assert make_source(_config("recruitee", "acme", base)).url == (  # type: ignore[attr-defined]
        "http://127.0.0.1:8123/api/offers/"
    )


def test_a_name_cannot_add_path_or_query() -> None:
    source = greenhouse.GreenhouseSource(_config("greenhouse", "acme/../x?y=1"))
    assert source.url == (
        "https://boards-api.greenhouse.io/v1/boards/acme%2F..%2Fx%3Fy%3D1/jobs?content=true"
    )


@pytest.mark.parametrize(
    "config",
    [
        _config("greenhouse", "  "),
        _config("lever", "acme", "ftp://mirror.example"),
        _config("ashby", "acme", "not a url"),
        _config("smartrecruiters", "acme", "http://mirror.example/?x=1"),
        _config("recruitee", "bad_subdomain!"),
        _config("bamboohr", "acme"),
    ],
)
def test_unusable_configs_are_source_config_errors(config: SourceConfig) -> None:
    with pytest.raises(SourceError) as caught:
        make_source(config)
    assert caught.value.code == SOURCE_CONFIG
    assert caught.value.retryable is False


def test_a_source_refuses_a_config_of_another_kind() -> None:
    with pytest.raises(SourceError) as caught:
        lever.LeverSource(_config("greenhouse", "acme"))
    assert caught.value.code == SOURCE_CONFIG


def test_the_registry_builds_each_kind() -> None:
    assert sorted(SOURCE_TYPES) == sorted(KINDS)
    for kind in SOURCE_TYPES:
        source = make_source(_config(kind, "acme"))
        assert source.kind == kind and source.config.name == "acme"


@pytest.mark.parametrize(
    ("fetch_code", "retryable_in", "code", "retryable"),
    [
        (ENRICH_HTTP_NOT_FOUND, False, SOURCE_NOT_FOUND, False),
        (ENRICH_RATE_LIMITED, True, SOURCE_RATE_LIMITED, True),
        (ENRICH_HTTP_SERVER_ERROR, True, SOURCE_UNAVAILABLE, True),
        (ENRICH_TIMEOUT, True, SOURCE_UNAVAILABLE, True),
        (ENRICH_UNREACHABLE, True, SOURCE_UNAVAILABLE, True),
        (ENRICH_UNSUPPORTED_CONTENT, False, SOURCE_MALFORMED, False),
        (ENRICH_INVALID_URL, False, SOURCE_CONFIG, False),
        (DETAIL_UNSAFE_URL, False, DETAIL_UNSAFE_URL, False),
        (ENRICH_TOO_LARGE, False, ENRICH_TOO_LARGE, False),
        (ENRICH_HTTP_CLIENT_ERROR, True, ENRICH_HTTP_CLIENT_ERROR, True),  # a 408 stays retryable
    ],
)
def test_fetch_errors_map_to_source_codes(
    fetch_code: str, retryable_in: bool, code: str, retryable: bool
) -> None:
    delay = timedelta(seconds=3)
    error = StageError(
        fetch_code, "server answered for host", retryable=retryable_in, retry_after=delay
    )

    mapped = as_source_error(error, "lever source 'acme'")

    assert isinstance(mapped, SourceError)
    assert (mapped.code, mapped.retryable, mapped.retry_after) == (code, retryable, delay)
    assert mapped.message == "lever source 'acme': server answered for host"


@pytest.mark.parametrize(
    ("raw", "period"),
    [
        ("per-year-salary", "YEAR"),
        ("per-hour-wage", "HOUR"),
        ("1 MONTH", "MONTH"),
        ("month", "MONTH"),
        ("annually", "YEAR"),
        ("fortnight", "FORTNIGHT"),
        (None, None),
    ],
)
def test_salary_periods_are_normalised(raw: str | None, period: str | None) -> None:
    assert salary_period(raw) == period
