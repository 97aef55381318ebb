"""The fetcher connects only to public addresses, whatever the URL, DNS or redirects say."""

from __future__ import annotations

import pytest

from jobctrl.domain.errors import DETAIL_UNSAFE_URL, StageError
from jobctrl.fetch.safe import FetchPolicy, SafeFetcher

PUBLIC_IP = "93.184.216.34"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://10.0.0.1/",
        "https://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fd00:ec2::254]/",
        "http://0.0.0.0/",
        "http://100.64.0.1/",
        "http://2130706433/",  # 127.0.0.1 spelled as one number
        "http://127.1/",
        "http://private.test/",  # resolves to 10.1.2.3
        "http://mixed.test/",  # resolves to [public, private]
    ],
)
def test_unsafe_urls_are_refused_before_connecting(url, make_fetcher, internet, site) -> None:
    fetcher = make_fetcher()

    with pytest.raises(StageError) as caught:
        fetcher.fetch(url)

    assert caught.value.code == DETAIL_UNSAFE_URL
    assert caught.value.retryable is False
    assert internet.connects == []


@pytest.mark.parametrize("location", ["http://10.0.0.1/", "http://private.test/admin"])
def test_a_redirect_to_a_private_address_is_refused(location, make_fetcher, internet, site) -> None:
    site.redirect("/jobs/1", location)
    fetcher = make_fetcher()

    with pytest.raises(StageError) as caught:
        fetcher.fetch("http://public.test/jobs/1")

    assert caught.value.code == DETAIL_UNSAFE_URL
    assert site.hits["/jobs/1"] == 1
    assert set(internet.connects) == {PUBLIC_IP}


def test_the_connector_only_sees_the_addresses_that_were_checked(
    make_fetcher, internet, site
) -> None:
    # DNS rebinding: the first answer is public, every later one private.
    answers = iter([[PUBLIC_IP]])
    internet.dns["rebind.test"] = lambda: next(answers, ["10.0.0.7"])
    site.route("/job")
    fetcher = make_fetcher(respect_robots=False)

    first = fetcher.fetch("http://rebind.test/job")
    with pytest.raises(StageError) as caught:
        fetcher.fetch("http://rebind.test/job")

    assert first.status == 200
    assert caught.value.code == DETAIL_UNSAFE_URL
    assert internet.connects == [PUBLIC_IP]
    assert internet.lookups.count("rebind.test") == 2


def test_a_loopback_site_is_refused_unless_its_host_is_allowed(make_site) -> None:
    local = make_site()
    local.route("/job", b"<p>local</p>")
    url = f"http://127.0.0.1:{local.port}/job"

    with SafeFetcher(FetchPolicy(min_host_interval_seconds=0)) as fetcher:
        with pytest.raises(StageError) as caught:
            fetcher.fetch(url)
        assert caught.value.code == DETAIL_UNSAFE_URL
    assert local.hits["/job"] == 0

    allowed = FetchPolicy(allow_hosts=frozenset({"127.0.0.1"}), min_host_interval_seconds=0)
    with SafeFetcher(allowed) as fetcher:
        result = fetcher.fetch(url)

    assert result.body == b"<p>local</p>"
    assert local.hits["/job"] == 1


def test_allowing_one_host_does_not_allow_another_private_one(make_fetcher, internet) -> None:
    fetcher = make_fetcher(allow_hosts=frozenset({"127.0.0.1"}))

    with pytest.raises(StageError) as caught:
        fetcher.fetch("http://private.test/")

    assert caught.value.code == DETAIL_UNSAFE_URL
    assert internet.connects == []


def test_environment_proxies_are_ignored(make_fetcher, make_site, site, monkeypatch) -> None:
    proxy = make_site()
    proxy_url = f"http://127.0.0.1:{proxy.port}"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(name, proxy_url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    site.route("/job", b"<p>direct</p>")
    fetcher = make_fetcher()

    result = fetcher.fetch("http://public.test/job")

    assert result.body == b"<p>direct</p>"
    assert sum(proxy.hits.values()) == 0
