"""HTTP statuses, redirects and connection failures map to stable StageError codes."""

from __future__ import annotations

import socket

import pytest

from jobctrl.domain.errors import (
    ENRICH_HTTP_CLIENT_ERROR,
    ENRICH_HTTP_NOT_FOUND,
    ENRICH_HTTP_SERVER_ERROR,
    ENRICH_INVALID_URL,
    ENRICH_LOGIN_WALL,
    ENRICH_TOO_MANY_REDIRECTS,
    ENRICH_UNREACHABLE,
    ENRICH_UNSUPPORTED_SCHEME,
    StageError,
)


@pytest.mark.parametrize(
    ("status", "code", "retryable"),
    [
        (404, ENRICH_HTTP_NOT_FOUND, False),
        (410, ENRICH_HTTP_NOT_FOUND, False),
        (403, ENRICH_LOGIN_WALL, False),
        (999, ENRICH_LOGIN_WALL, False),
        (400, ENRICH_HTTP_CLIENT_ERROR, False),
        (408, ENRICH_HTTP_CLIENT_ERROR, True),
        (500, ENRICH_HTTP_SERVER_ERROR, True),
        (502, ENRICH_HTTP_SERVER_ERROR, True),
    ],
)
def test_error_statuses_map_to_codes(status, code, retryable, make_fetcher, site) -> None:
    site.route("/job", b"<p>secret page text</p>", status=status)

    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://public.test/job")

    assert caught.value.code == code
    assert caught.value.retryable is retryable
    assert caught.value.message == f"server answered {status} for public.test"


def test_a_refused_connection_is_unreachable(make_fetcher) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    fetcher = make_fetcher(allow_hosts=frozenset({"127.0.0.1"}))

    with pytest.raises(StageError) as caught:
        fetcher.fetch(f"http://127.0.0.1:{closed_port}/job")

    assert caught.value.code == ENRICH_UNREACHABLE
    assert caught.value.retryable is True
    assert "Errno" not in caught.value.message


def test_an_unresolvable_host_is_unreachable(make_fetcher, internet) -> None:
    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://nowhere.test/job")

    assert caught.value.code == ENRICH_UNREACHABLE
    assert caught.value.retryable is True
    assert internet.connects == []


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("not a url", ENRICH_INVALID_URL),
        ("http:///path-only", ENRICH_INVALID_URL),
        ("http://[::1/", ENRICH_INVALID_URL),
        ("http://public.test:99999/", ENRICH_INVALID_URL),
        ("http://xn--.test/", ENRICH_INVALID_URL),  # raised inside httpx's send (issue 30)
        ("http://xn--zz-.test/", ENRICH_INVALID_URL),
        ("ftp://public.test/file", ENRICH_UNSUPPORTED_SCHEME),
        ("file:///etc/passwd", ENRICH_UNSUPPORTED_SCHEME),
        ("javascript:alert(1)", ENRICH_UNSUPPORTED_SCHEME),
    ],
)
def test_bad_urls_are_refused_before_connecting(url, code, make_fetcher, internet) -> None:
    with pytest.raises(StageError) as caught:
        make_fetcher().fetch(url)

    assert caught.value.code == code
    assert caught.value.retryable is False
    assert internet.lookups == []


def test_redirects_are_followed_with_relative_locations(make_fetcher, site) -> None:
    site.redirect("/old", "/jobs/new", status=301)
    site.redirect("/jobs/new", "final?ref=1", status=307)
    site.route("/jobs/final", b"<p>the job</p>")

    result = make_fetcher().fetch("http://public.test/old")

    assert result.body == b"<p>the job</p>"
    assert result.url == "http://public.test/old"
    assert result.final_url == "http://public.test/jobs/final?ref=1"
    assert result.redirects == (
        "http://public.test/jobs/new",
        "http://public.test/jobs/final?ref=1",
    )


def test_redirects_across_hosts_are_followed(make_fetcher, make_site, internet, site) -> None:
    other = make_site()
    internet.servers["93.184.216.35"] = other.port
    other.route("/job", b"<p>elsewhere</p>")
    site.redirect("/job", "http://other.test/job")

    result = make_fetcher().fetch("http://public.test/job")

    assert result.final_url == "http://other.test/job"
    assert result.body == b"<p>elsewhere</p>"


def test_too_many_redirects_are_refused(make_fetcher, site) -> None:
    site.redirect("/loop", "/loop")

    with pytest.raises(StageError) as caught:
        make_fetcher(max_redirects=3).fetch("http://public.test/loop")

    assert caught.value.code == ENRICH_TOO_MANY_REDIRECTS
    assert caught.value.retryable is False
    assert site.hits["/loop"] == 4


def test_a_redirect_to_another_scheme_is_refused(make_fetcher, site) -> None:
    site.redirect("/job", "file:///etc/passwd")

    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://public.test/job")

    assert caught.value.code == ENRICH_UNSUPPORTED_SCHEME
