"""parse_feed reads only the bytes it is given, and names the company from the feed title."""

from __future__ import annotations

import pytest

from jobctrl.domain.errors import SOURCE_MALFORMED
from jobctrl.sources.base import SourceConfig, SourceError
from jobctrl.sources.feed import parse_feed

CONFIG = SourceConfig(kind="feed", name="https://acme.example/feed.xml")


def _rss(channel_title: str, items: str = "") -> bytes:
    return (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>{channel_title}</title>'
        f"{items}</channel></rss>"
    ).encode()


@pytest.mark.parametrize(
    "body",
    [b"/etc/hostname", b"http://127.0.0.1:9/feed.xml", b"", b"{}", b"\x00\xff\xfe"],
)
def test_a_body_is_never_opened_as_a_file_or_url(body: bytes) -> None:
    with pytest.raises(SourceError) as caught:
        parse_feed(body, CONFIG, base_url="https://acme.example/feed.xml")

    assert caught.value.code == SOURCE_MALFORMED


@pytest.mark.parametrize(
    ("feed_title", "company"),
    [
        ("Jobs at Acme", "Acme"),
        ("Careers at Acme Robotics", "Acme Robotics"),
        ("Acme Careers", "Acme"),
        ("Acme - Jobs", "Acme"),
        ("Acme | Open Positions", "Acme"),
        ("Acme", "Acme"),
        ("Careers", "Careers"),
    ],
)
def test_company_comes_from_the_feed_title(feed_title: str, company: str) -> None:
    item = "<item><title>Engineer</title><link>https://acme.example/j/1</link></item>"

    (posting,) = parse_feed(_rss(feed_title, item), CONFIG, base_url="https://acme.example/")

    assert posting.company == company


def test_entries_without_title_or_web_link_are_skipped() -> None:
    items = (
        "<item><link>https://acme.example/j/1</link></item>"
        "<item><title>Mail us</title><link>mailto:jobs@acme.example</link></item>"
        "<item><title>Kept</title><link>j/3</link><guid>g-3</guid></item>"
    )

    postings = parse_feed(_rss("Acme", items), CONFIG, base_url="https://acme.example/feed/")

    assert [(p.title, p.url, p.external_id) for p in postings] == [
        ("Kept", "https://acme.example/feed/j/3", "g-3")
    ]
