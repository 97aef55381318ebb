"""Deduper: one group per real posting, by URL, by ATS id, or by company + title + place."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from jobctrl.sources.base import DiscoveredPosting
from jobctrl.sources.dedupe import Deduper, normalise_company

_ids = itertools.count()


def _posting(
    title: str = "Senior Backend Engineer",
    company: str | None = "Acme",
    location: str | None = "Berlin",
    *,
    kind: str = "greenhouse",
    name: str = "acme",
    url: str | None = None,
    **fields: Any,
) -> DiscoveredPosting:
    return DiscoveredPosting(
        source_kind=kind,
        source_name=name,
        url=url or f"https://board{next(_ids)}.example/jobs/{next(_ids)}",
        title=title,
        company=company,
        location=location,
        **fields,
    )


def _same_group(*postings: DiscoveredPosting) -> bool:
    deduper = Deduper()
    groups = {deduper.add(p)[0] for p in postings}
    return len(groups) == 1


def test_add_reports_group_index_and_whether_it_is_new() -> None:
    deduper = Deduper()
    first = _posting(url="https://acme.example/jobs/1")
    again = _posting(url="https://acme.example/jobs/1/?utm_source=linkedin#apply")
    other = _posting("Product Designer", url="https://acme.example/jobs/2")

    assert deduper.add(first) == (0, True)
    assert deduper.add(again) == (0, False)
    assert deduper.add(other) == (1, True)
    assert deduper.groups() == [[first, again], [other]]
    assert len(deduper) == 2


def test_url_variants_with_tracking_parameters_are_one_posting() -> None:
    assert _same_group(
        _posting("Backend Engineer", url="https://Jobs.Acme.example/postings/42"),
        _posting("A title the board shortened", url="https://jobs.acme.example/postings/42/"),
        _posting("x", company="Other", url="https://jobs.acme.example/postings/42?gh_src=abc"),
        _posting("y", location="Paris", url="https://jobs.acme.example/postings/42?utm_medium=e"),
    )


def test_apply_url_matches_another_sources_posting_url() -> None:
    careers_page = _posting(
        kind="careers-page",
        url="https://acme.example/careers/backend",
        apply_url="https://boards.greenhouse.io/acme/jobs/42?gh_src=site",
    )
    board = _posting(url="https://boards.greenhouse.io/acme/jobs/42", company="ACME Corp.")

    assert _same_group(careers_page, board)


def test_a_shared_generic_apply_url_does_not_merge_different_jobs() -> None:
    backend = _posting("Backend Engineer", apply_url="https://acme.example/apply")
    designer = _posting("Product Designer", apply_url="https://acme.example/apply")

    assert not _same_group(backend, designer)


def test_listing_urls_are_not_used_to_group() -> None:
    listing = {"url_is_listing": "true"}
    backend = _posting("Backend Engineer", url="https://acme.example/careers", extra=listing)
    designer = _posting("Product Designer", url="https://acme.example/careers", extra=listing)

    assert not _same_group(backend, designer)


def test_same_ats_id_from_two_fetches_is_one_posting() -> None:
    first = _posting(external_id="4012345", url="https://boards.greenhouse.io/acme/jobs/4012345")
    refetched = _posting(
        "Senior Backend Engineer, Payments",  # retitled since the first fetch
        external_id="4012345",
        url="https://job-boards.greenhouse.io/acme/jobs/4012345",
    )

    assert _same_group(first, refetched)


def test_feed_ids_are_only_unique_within_their_feed() -> None:
    one = _posting("Backend Engineer", kind="feed", name="https://a.example/feed", external_id="1")
    two = _posting("Data Analyst", kind="feed", name="https://b.example/feed", external_id="1")

    assert not _same_group(one, two)


def test_fuzzy_duplicates_across_boards() -> None:
    assert _same_group(
        _posting("Senior Backend Engineer (Python)", "Acme", "Berlin"),
        _posting("Senior Backend Engineer - Python", "Acme Inc", "Berlin, Germany", kind="lever"),
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # "Sr." and "Snr" are "Senior" (other abbreviations are not expanded)
        (("Senior Backend Engineer", "Acme Inc."), ("Sr. Backend Engineer", "Acme")),
        (("Senior Backend Engineer", "Acme GmbH"), ("Snr Backend Engineer", "ACME")),
        # filler and the posting's own place in the title
        (("Backend Engineer (m/w/d)", "Acme"), ("Backend Engineer", "Acme SE")),
        (("Backend Engineer - Berlin", "Acme"), ("Backend Engineer", "Acme")),
        (("Backend Engineer, Remote", "Acme Ltd"), ("Backend Engineer", "Acme LLC")),
        # a typo
        (("Backend Enginer", "Acme"), ("Backend Engineer", "Acme")),
    ],
)
def test_fuzzy_title_variants_that_are_duplicates(a: tuple[str, str], b: tuple[str, str]) -> None:
    assert _same_group(_posting(*a), _posting(*b, kind="ashby"))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Senior Backend Engineer", "Senior Frontend Engineer"),
        ("Senior Backend Engineer", "Staff Backend Engineer"),
        ("Senior Backend Engineer", "Backend Engineer"),
        ("Software Engineer", "Software Engineer, Payments"),
        ("Software Engineer II", "Software Engineer III"),
        ("Data Engineer", "Data Scientist"),
        (
            "Senior Software Engineer, Backend Platform",
            "Senior Software Engineer, Frontend Platform",
        ),
        ("Backend Engineer (US)", "Backend Engineer (EU)"),
    ],
)
def test_different_titles_at_the_same_company_are_not_duplicates(a: str, b: str) -> None:
    assert not _same_group(_posting(a, location=None), _posting(b, location=None, kind="lever"))


def test_same_title_in_different_places_is_not_a_duplicate() -> None:
    assert not _same_group(_posting(location="Berlin"), _posting(location="Munich"))


def test_a_missing_location_matches_any_one_place() -> None:
    assert _same_group(_posting(location=None), _posting(location="Berlin"))


def test_a_group_seen_in_one_place_does_not_take_another_through_a_placeless_posting() -> None:
    deduper = Deduper()
    berlin, _ = deduper.add(_posting(location="Berlin"))
    placeless, _ = deduper.add(_posting(location=None))
    munich, is_new = deduper.add(_posting(location="Munich"))

    assert placeless == berlin
    assert munich != berlin and is_new


def test_same_title_at_different_companies_is_not_a_duplicate() -> None:
    assert not _same_group(_posting(company="Acme"), _posting(company="Globex"))


def test_postings_without_company_are_not_matched_fuzzily() -> None:
    assert not _same_group(_posting(company=None), _posting(company=None))


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("Acme, Inc.", "acme"),
        ("ACME GmbH & Co. KG", "acme"),
        ("Acme B.V.", "acme"),
        ("The Acme Company", "acme"),
        ("Société Générale S.A.", "societe generale"),
        ("Inc", "inc"),
        (None, ""),
    ],
)
def test_normalise_company(raw: str | None, normal: str) -> None:
    assert normalise_company(raw) == normal


def test_ten_thousand_postings_are_grouped() -> None:
    rng = random.Random(7)
    teams = ["Payments", "Search", "Growth", "Core", "Infra", "Data", "Mobile", "Web", "Ads"]
    roles = ["Backend Engineer", "Frontend Engineer", "Data Scientist", "Product Manager", "SRE"]
    levels = ["", "Senior ", "Staff ", "Junior "]
    places = ["Berlin", "Munich", "London", "Remote", None]
    postings = []
    for i in range(10_000):
        company = "BigCo" if i % 4 == 0 else f"Company {i % 300} Inc"
        title = f"{rng.choice(levels)}{rng.choice(roles)}, {rng.choice(teams)} {i % 53}"
        postings.append(_posting(title, company, rng.choice(places), external_id=str(i % 9_000)))

    deduper = Deduper()
    for posting in postings:
        deduper.add(posting)

    groups = deduper.groups()
    assert sum(len(group) for group in groups) == 10_000
    assert len(groups) <= 9_000  # at least the repeated ATS ids were merged


def test_places_that_read_alike_but_differ_are_two_jobs() -> None:
    def posting(url: str, location: str) -> DiscoveredPosting:
        return DiscoveredPosting(
            source_kind="greenhouse",
            source_name="acme",
            url=url,
            title="Staff Data Engineer",
            company="Acme",
            location=location,
        )

    d = Deduper()
    assert d.add(posting("https://a.example/1", "Remote (ES)"))[1]
    assert d.add(posting("https://a.example/2", "Remote (IE)"))[1], "two countries"
    assert d.add(posting("https://a.example/3", "Amsterdam, NL"))[1]
    assert d.add(posting("https://a.example/4", "Remote (NL)"))[1], "remote is not the office"
    assert not d.add(posting("https://b.example/5", "Amsterdam, Netherlands, NL"))[1]
