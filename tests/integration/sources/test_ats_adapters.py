"""Each ATS adapter reads a loopback copy of its provider's API through the real SafeFetcher.

Boards, pages and failures are served by ``JsonApi`` (tests/support/http.py) on 127.0.0.1
(the only host the fetcher may reach); the payloads are the provider-shaped ones the parser
unit tests use.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpcore
import pytest
from tests.support.http import JsonApi, Pager
from tests.unit.sources.test_ats_parsing import (
    ASHBY_BOARD,
    GREENHOUSE_BOARD,
    LEVER_POSTINGS,
    RECRUITEE_OFFERS,
    SMARTRECRUITERS_PAGE,
    WORKABLE_ACCOUNT,
)

from jobctrl.domain.errors import (
    DETAIL_UNSAFE_URL,
    SOURCE_MALFORMED,
    SOURCE_NOT_FOUND,
    SOURCE_RATE_LIMITED,
    SOURCE_UNAVAILABLE,
)
from jobctrl.fetch.safe import FetchPolicy, SafeFetcher
from jobctrl.sources.base import DiscoveredPosting, Source, SourceConfig, SourceError
from jobctrl.sources.lever import LeverSource
from jobctrl.sources.registry import make_source
from jobctrl.sources.smartrecruiters import SmartRecruitersSource

# How a test installs a board on the server: (api, path) -> None.
Install = Callable[[JsonApi, str], None]


def lever_pages(postings: list[dict[str, Any]]) -> Pager:
    """Lever's paging: ``skip`` and ``limit`` slice the company's postings."""

    def answer(query: dict[str, str]) -> tuple[int, Any]:
        skip, limit = int(query.get("skip", "0")), int(query.get("limit", "100"))
        return 200, postings[skip : skip + limit]

    return answer


def smartrecruiters_pages(postings: list[dict[str, Any]]) -> Pager:
    """SmartRecruiters' paging: ``offset`` and ``limit``, with ``totalFound`` on every page."""

    def answer(query: dict[str, str]) -> tuple[int, Any]:
        offset, limit = int(query.get("offset", "0")), int(query.get("limit", "10"))
        page = postings[offset : offset + limit]
        return 200, {"offset": offset, "limit": limit, "totalFound": len(postings), "content": page}

    return answer


def fixed(payload: Any) -> Install:
    return lambda api, path: api.json(path, payload)


def paged(pager: Pager) -> Install:
    return lambda api, path: api.paged(path, pager)


# kind -> (board name, API path, normal board, empty board, titles of the normal board)
BOARDS: dict[str, tuple[str, str, Install, Install, list[str]]] = {
    "greenhouse": (
        "acme",
        "/v1/boards/acme/jobs",
        fixed(GREENHOUSE_BOARD),
        fixed({"jobs": [], "meta": {"total": 0}}),
        ["Senior Backend Engineer", "Data Analyst", "Office Manager"],
    ),
    "lever": (
        "leverdemo",
        "/v0/postings/leverdemo",
        paged(lever_pages(LEVER_POSTINGS)),
        paged(lever_pages([])),
        ["Platform Engineer", "Account Executive", "Warehouse Associate"],
    ),
    "ashby": (
        "ashbydemo",
        "/posting-api/job-board/ashbydemo",
        fixed(ASHBY_BOARD),
        fixed({"apiVersion": "1", "jobs": []}),
        ["Product Designer", "Support Engineer"],
    ),
    "workable": (
        "wdemo",
        "/api/v1/widget/accounts/wdemo",
        fixed(WORKABLE_ACCOUNT),
        fixed({"name": "Workable Demo Co", "description": "", "jobs": []}),
        ["Machine Learning Engineer", "Store Manager"],
    ),
    "smartrecruiters": (
        "SmartDemo",
        "/v1/companies/SmartDemo/postings",
        paged(smartrecruiters_pages(SMARTRECRUITERS_PAGE["content"])),
        paged(smartrecruiters_pages([])),
        ["Field Service Technician", "Remote Recruiter"],
    ),
    "recruitee": (
        "demo",
        "/api/offers/",
        fixed(RECRUITEE_OFFERS),
        fixed({"offers": []}),
        ["Frontend Developer", "Support Agent"],
    ),
}
KINDS = list(BOARDS)

# The query each provider's documented request carries (paging aside).
QUERIES = {
    "greenhouse": {"content": "true"},
    "lever": {"mode": "json", "skip": "0", "limit": "100"},
    "ashby": {"includeCompensation": "true"},
    "workable": {"details": "true"},
    "smartrecruiters": {"limit": "100", "offset": "0"},
    "recruitee": {},
}


def _source_for(kind: str, api: JsonApi) -> tuple[Source, str]:
    name, path, *_ = BOARDS[kind]
    return make_source(SourceConfig(kind=kind, name=name, base_url=api.base_url)), path


def _discover_error(source: Source, fetcher: SafeFetcher) -> SourceError:
    yielded: list[DiscoveredPosting] = []
    with pytest.raises(SourceError) as caught:
        for posting in source.discover(fetcher):
            yielded.append(posting)
    assert yielded == []  # a board is read whole or not at all
    return caught.value


# -- boards that answer -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_an_adapter_reads_a_normal_board(kind: str, api: JsonApi, fetcher: SafeFetcher) -> None:
    source, path = _source_for(kind, api)
    BOARDS[kind][2](api, path)

    postings = list(source.discover(fetcher))

    assert [p.title for p in postings] == BOARDS[kind][4]
    assert all(p.source_kind == kind and p.source_name == BOARDS[kind][0] for p in postings)
    assert all(p.url.startswith(("https://", api.base_url)) for p in postings)
    assert [(r.path, r.query) for r in api.requests] == [(path, QUERIES[kind])]


@pytest.mark.parametrize("kind", KINDS)
def test_an_empty_board_yields_nothing(kind: str, api: JsonApi, fetcher: SafeFetcher) -> None:
    source, path = _source_for(kind, api)
    BOARDS[kind][3](api, path)

    assert list(source.discover(fetcher)) == []
    assert len(api.requests) == 1


def test_smartrecruiters_posting_urls_stay_on_the_base_url(
    api: JsonApi, fetcher: SafeFetcher
) -> None:
    source, path = _source_for("smartrecruiters", api)
    BOARDS["smartrecruiters"][2](api, path)

    urls = [p.url for p in source.discover(fetcher)]

    assert urls[0] == f"{api.base_url}/SmartDemo/744000012345678"


# -- paging -----------------------------------------------------------------------------------


def _lever_posting(i: int) -> dict[str, Any]:
    return {"id": f"lv-{i}", "text": f"Role {i}", "hostedUrl": f"https://jobs.lever.co/x/lv-{i}"}


@pytest.mark.parametrize(
    ("count", "skips"), [(230, ["0", "100", "200"]), (200, ["0", "100", "200"])]
)
def test_lever_reads_pages_until_one_is_short(
    count: int, skips: list[str], api: JsonApi, fetcher: SafeFetcher
) -> None:
    path = "/v0/postings/big"
    api.paged(path, lever_pages([_lever_posting(i) for i in range(count)]))
    source = make_source(SourceConfig(kind="lever", name="big", base_url=api.base_url))

    postings = list(source.discover(fetcher))

    ids = [p.external_id for p in postings]
    assert ids == [f"lv-{i}" for i in range(count)]  # all pages, in order, no duplicates
    assert [q["skip"] for q in api.queries(path)] == skips
    assert {q["limit"] for q in api.queries(path)} == {"100"}


def test_lever_small_pages_are_all_fetched(api: JsonApi, fetcher: SafeFetcher) -> None:
    path = "/v0/postings/small"
    api.paged(path, lever_pages([_lever_posting(i) for i in range(5)]))
    source = LeverSource(SourceConfig("lever", "small", api.base_url), page_size=2)

    postings = list(source.discover(fetcher))

    assert len({p.external_id for p in postings}) == len(postings) == 5
    assert [(q["skip"], q["limit"]) for q in api.queries(path)] == [
        ("0", "2"),
        ("2", "2"),
        ("4", "2"),
    ]


def test_lever_stops_when_the_server_ignores_skip(api: JsonApi, fetcher: SafeFetcher) -> None:
    path = "/v0/postings/loop"
    api.json(path, [_lever_posting(0), _lever_posting(1)])  # the same page whatever the skip
    source = LeverSource(SourceConfig("lever", "loop", api.base_url), page_size=2)

    postings = list(source.discover(fetcher))

    assert [p.external_id for p in postings] == ["lv-0", "lv-1"]
    assert len(api.queries(path)) == 2


def _sr_posting(i: int) -> dict[str, Any]:
    return {"id": f"sr-{i}", "name": f"Job {i}", "company": {"identifier": "Big", "name": "Big"}}


def test_smartrecruiters_reads_pages_by_offset_until_total_found(
    api: JsonApi, fetcher: SafeFetcher
) -> None:
    path = "/v1/companies/Big/postings"
    api.paged(path, smartrecruiters_pages([_sr_posting(i) for i in range(230)]))
    source = make_source(SourceConfig(kind="smartrecruiters", name="Big", base_url=api.base_url))

    postings = list(source.discover(fetcher))

    assert [p.external_id for p in postings] == [f"sr-{i}" for i in range(230)]
    assert [(q["offset"], q["limit"]) for q in api.queries(path)] == [
        ("0", "100"),
        ("100", "100"),
        ("200", "100"),
    ]


def test_smartrecruiters_small_pages_and_a_repeating_server(
    api: JsonApi, fetcher: SafeFetcher
) -> None:
    api.paged(
        "/v1/companies/Small/postings", smartrecruiters_pages([_sr_posting(i) for i in range(5)])
    )
    repeat = {"offset": 0, "limit": 2, "totalFound": 9, "content": [_sr_posting(0), _sr_posting(1)]}
    api.json("/v1/companies/Loop/postings", repeat)  # the same page whatever the offset
    small = SmartRecruitersSource(
        SourceConfig("smartrecruiters", "Small", api.base_url), page_size=2
    )
    loop = SmartRecruitersSource(SourceConfig("smartrecruiters", "Loop", api.base_url), page_size=2)

    assert len({p.url for p in small.discover(fetcher)}) == 5
    assert [q["offset"] for q in api.queries("/v1/companies/Small/postings")] == ["0", "2", "4"]
    assert [p.external_id for p in loop.discover(fetcher)] == ["sr-0", "sr-1"]
    assert len(api.queries("/v1/companies/Loop/postings")) == 2


def test_a_failure_on_a_later_page_yields_nothing(api: JsonApi, fetcher: SafeFetcher) -> None:
    postings = [_lever_posting(i) for i in range(4)]

    def answer(query: dict[str, str]) -> tuple[int, Any]:
        return lever_pages(postings)(query) if query["skip"] == "0" else (500, {"error": "oops"})

    api.paged("/v0/postings/flaky", answer)
    source = LeverSource(SourceConfig("lever", "flaky", api.base_url), page_size=2)

    error = _discover_error(source, fetcher)

    assert error.code == SOURCE_UNAVAILABLE and error.retryable is True


# -- failures ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_an_unknown_board_is_not_found(kind: str, api: JsonApi, fetcher: SafeFetcher) -> None:
    source, _ = _source_for(kind, api)  # no route: the server answers 404

    error = _discover_error(source, fetcher)

    assert error.code == SOURCE_NOT_FOUND and error.retryable is False
    assert "404" in error.message


@pytest.mark.parametrize("kind", KINDS)
def test_a_rate_limit_is_retryable_after_the_servers_delay(
    kind: str, api: JsonApi, fetcher: SafeFetcher
) -> None:
    source, path = _source_for(kind, api)
    api.json(path, {"error": "slow down"}, status=429, headers={"Retry-After": "3"})

    error = _discover_error(source, fetcher)

    assert error.code == SOURCE_RATE_LIMITED and error.retryable is True
    assert error.retry_after is not None
    assert abs(error.retry_after - timedelta(seconds=3)) < timedelta(seconds=0.5)


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_error_is_retryable(kind: str, api: JsonApi, fetcher: SafeFetcher) -> None:
    source, path = _source_for(kind, api)
    api.json(path, {"error": "oops"}, status=500)

    error = _discover_error(source, fetcher)

    assert error.code == SOURCE_UNAVAILABLE and error.retryable is True


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b'{"jobs": [ {"title": "SECRET-TEXT"', "application/json"),  # cut off
        (b"\xff\xfe not json", "application/json"),
        (b"<html><body>SECRET-TEXT</body></html>", "text/html; charset=utf-8"),
        (json.dumps({"unexpected": ["SECRET-TEXT"]}).encode(), "application/json"),
        (json.dumps("SECRET-TEXT").encode(), "application/json"),
    ],
    ids=["truncated-json", "not-utf8", "html", "wrong-object", "a-string"],
)
def test_an_answer_that_is_not_the_providers_json_is_malformed(
    kind: str, body: bytes, content_type: str, api: JsonApi, fetcher: SafeFetcher
) -> None:
    source, path = _source_for(kind, api)
    api.raw(path, body, content_type=content_type)

    error = _discover_error(source, fetcher)

    assert error.code == SOURCE_MALFORMED and error.retryable is False
    assert "SECRET" not in error.message  # never quotes the response


def test_an_unreachable_server_is_retryable(make_fetcher: Callable[..., SafeFetcher]) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    source = make_source(SourceConfig("greenhouse", "acme", f"http://127.0.0.1:{port}"))

    error = _discover_error(source, make_fetcher())

    assert error.code == SOURCE_UNAVAILABLE and error.retryable is True


def test_a_server_that_does_not_answer_in_time_is_retryable(
    api: JsonApi, make_fetcher: Callable[..., SafeFetcher]
) -> None:
    source, path = _source_for("ashby", api)
    api.json(path, {"jobs": []}, delay=2.0)

    error = _discover_error(source, make_fetcher(timeout_seconds=0.3))

    assert error.code == SOURCE_UNAVAILABLE and error.retryable is True


@pytest.mark.parametrize(
    "base_url", ["http://10.0.0.8:8080", "http://192.168.1.20", "http://[::1]"]
)
def test_a_private_base_url_is_refused_without_connecting(base_url: str) -> None:
    connects: list[str] = []

    def connector(ip: str, port: int, timeout: float | None) -> httpcore.NetworkStream:
        connects.append(ip)
        raise AssertionError("the fetcher tried to connect")

    policy = FetchPolicy(allow_hosts=frozenset({"127.0.0.1"}), min_host_interval_seconds=0)
    with SafeFetcher(policy, connector=connector) as fetcher:
        for kind in KINDS:
            source = make_source(SourceConfig(kind, BOARDS[kind][0], base_url))
            error = _discover_error(source, fetcher)
            assert error.code == DETAIL_UNSAFE_URL and error.retryable is False
    assert connects == []
