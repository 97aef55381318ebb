"""The fetcher obeys robots.txt (RFC 9309), fetched safely and cached per origin."""

from __future__ import annotations

import pytest

from jobctrl.domain.errors import DETAIL_UNSAFE_URL, ENRICH_ROBOTS_DISALLOWED, StageError

ROBOTS = b"User-agent: *\nDisallow: /private\n\nUser-agent: jobctrl\nDisallow: /no-bots\n"


def test_a_page_robots_disallows_for_everyone_is_refused(make_fetcher, site) -> None:
    site.route("/robots.txt", b"User-agent: *\nDisallow: /private\n", content_type="text/plain")
    site.route("/private/job")

    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://public.test/private/job")

    assert caught.value.code == ENRICH_ROBOTS_DISALLOWED
    assert caught.value.retryable is False
    assert caught.value.message == "robots.txt of public.test disallows this page"
    assert site.hits["/private/job"] == 0


def test_the_group_for_our_agent_replaces_the_catch_all_group(make_fetcher, site) -> None:
    site.route("/robots.txt", ROBOTS, content_type="text/plain")
    site.route("/private/job")
    site.route("/no-bots/job")
    fetcher = make_fetcher()

    with pytest.raises(StageError) as caught:
        fetcher.fetch("http://public.test/no-bots/job")

    assert caught.value.code == ENRICH_ROBOTS_DISALLOWED
    assert fetcher.fetch("http://public.test/private/job").status == 200


def test_robots_rules_for_other_agents_do_not_apply(make_fetcher, site) -> None:
    site.route("/robots.txt", b"User-agent: otherbot\nDisallow: /\n", content_type="text/plain")
    site.route("/job")

    assert make_fetcher().fetch("http://public.test/job").status == 200


def test_robots_is_fetched_once_for_many_pages(make_fetcher, site) -> None:
    site.route("/robots.txt", ROBOTS, content_type="text/plain")
    site.route("/jobs/1")
    site.route("/jobs/2")
    fetcher = make_fetcher()

    fetcher.fetch("http://public.test/jobs/1")
    fetcher.fetch("http://public.test/jobs/2")

    assert site.hits["/robots.txt"] == 1
    assert site.hits["/jobs/1"] == site.hits["/jobs/2"] == 1


def test_robots_is_fetched_again_after_an_hour(make_fetcher, site, clock) -> None:
    site.route("/jobs/1")
    fetcher = make_fetcher()

    fetcher.fetch("http://public.test/jobs/1")
    clock.advance(3601)
    fetcher.fetch("http://public.test/jobs/1")

    assert site.hits["/robots.txt"] == 2


def test_a_missing_robots_allows_everything(make_fetcher, site) -> None:
    site.route("/robots.txt", b"gone", status=404, content_type="text/plain")
    site.route("/job")

    assert make_fetcher().fetch("http://public.test/job").status == 200


def test_a_failing_robots_blocks_the_host_for_now(make_fetcher, site) -> None:
    site.route("/robots.txt", b"oops", status=500, content_type="text/plain")
    site.route("/job")

    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://public.test/job")

    assert caught.value.code == ENRICH_ROBOTS_DISALLOWED
    assert caught.value.retryable is True
    assert caught.value.retry_after is not None
    assert site.hits["/job"] == 0


def test_robots_redirects_are_followed(make_fetcher, site) -> None:
    site.redirect("/robots.txt", "/robots-real.txt", status=301)
    site.route("/robots-real.txt", b"User-agent: *\nDisallow: /\n", content_type="text/plain")
    site.route("/job")

    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://public.test/job")

    assert caught.value.code == ENRICH_ROBOTS_DISALLOWED


def test_a_robots_redirect_to_a_private_address_is_not_followed(
    make_fetcher, internet, site
) -> None:
    site.redirect("/robots.txt", "http://10.0.0.1/robots.txt")
    site.route("/job")

    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://public.test/job")

    assert caught.value.code == DETAIL_UNSAFE_URL
    assert set(internet.connects) == {"93.184.216.34"}
    assert site.hits["/job"] == 0


def test_robots_is_checked_on_every_redirect_hop(make_fetcher, make_site, internet, site) -> None:
    other = make_site()
    internet.servers["93.184.216.35"] = other.port
    other.route("/robots.txt", b"User-agent: *\nDisallow: /\n", content_type="text/plain")
    other.route("/job")
    site.redirect("/job", "http://other.test/job")

    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://public.test/job")

    assert caught.value.code == ENRICH_ROBOTS_DISALLOWED
    assert other.hits["/robots.txt"] == 1
    assert other.hits["/job"] == 0


def test_robots_can_be_switched_off(make_fetcher, site) -> None:
    site.route("/robots.txt", b"User-agent: *\nDisallow: /\n", content_type="text/plain")
    site.route("/job")

    assert make_fetcher(respect_robots=False).fetch("http://public.test/job").status == 200
    assert site.hits["/robots.txt"] == 0
