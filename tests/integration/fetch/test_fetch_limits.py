"""Size caps, decoding, deadlines and content types of a single fetch."""

from __future__ import annotations

import gzip
import threading
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from functools import cache

import pytest
from tests.support.loopback import Request, Response

from jobctrl.domain.errors import (
    ENRICH_TIMEOUT,
    ENRICH_TOO_LARGE,
    ENRICH_UNSUPPORTED_CONTENT,
    StageError,
)

PAGE = b"<html><body>" + b"<p>Senior engineer wanted.</p>" * 200 + b"</body></html>"


@cache
def gzip_bomb() -> bytes:
    return gzip.compress(bytes(20_000_000), compresslevel=9, mtime=0)


def test_a_gzip_page_is_returned_decoded(make_fetcher, site) -> None:
    site.route("/job", gzip.compress(PAGE), headers={"Content-Encoding": "gzip"})

    result = make_fetcher().fetch("http://public.test/job")

    assert result.body == PAGE
    assert result.final_url == "http://public.test/job"
    assert result.content_type == "text/html; charset=utf-8"
    assert result.headers["content-encoding"] == "gzip"


@pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS], ids=["zlib", "raw"])
def test_a_deflate_page_is_returned_decoded_with_or_without_zlib_header(
    wbits, make_fetcher, site
) -> None:
    compressor = zlib.compressobj(wbits=wbits)
    site.route(
        "/job",
        compressor.compress(PAGE) + compressor.flush(),
        headers={"Content-Encoding": "deflate"},
    )

    result = make_fetcher().fetch("http://public.test/job")

    assert result.body == PAGE


def test_a_gzip_bomb_is_stopped_without_inflating_it(make_fetcher, site) -> None:
    bomb = gzip_bomb()
    assert len(bomb) < 100_000
    site.route("/bomb", bomb, headers={"Content-Encoding": "gzip"})
    fetcher = make_fetcher(max_bytes=1_000_000)

    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(StageError) as caught:
            fetcher.fetch("http://public.test/bomb")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert caught.value.code == ENRICH_TOO_LARGE
    assert caught.value.retryable is False
    assert time.monotonic() - started < 2.0
    assert peak < 8_000_000  # inflating all of it would take 20 MB


def test_a_plain_body_over_the_cap_is_refused(make_fetcher, site) -> None:
    site.route("/big", b"x" * 300_000)

    with pytest.raises(StageError) as caught:
        make_fetcher(max_bytes=100_000).fetch("http://public.test/big")

    assert caught.value.code == ENRICH_TOO_LARGE


def test_an_unknown_content_encoding_is_refused(make_fetcher, site) -> None:
    site.route("/job", b"\x00\x01", headers={"Content-Encoding": "br"})

    with pytest.raises(StageError) as caught:
        make_fetcher().fetch("http://public.test/job")

    assert caught.value.code == ENRICH_UNSUPPORTED_CONTENT


def test_a_content_type_that_is_not_accepted_is_refused(make_fetcher, site) -> None:
    site.route("/feed.json", b"{}", content_type="application/json")
    fetcher = make_fetcher()

    with pytest.raises(StageError) as caught:
        fetcher.fetch("http://public.test/feed.json")
    result = fetcher.fetch(
        "http://public.test/feed.json", accept_content_types=("application/json",)
    )

    assert caught.value.code == ENRICH_UNSUPPORTED_CONTENT
    assert caught.value.retryable is False
    assert "application/json" not in caught.value.message
    assert result.body == b"{}"


def test_a_stalled_server_times_out(make_fetcher, site) -> None:
    site.on("GET", "/stall", Response(delay=10))  # no answer until the server stops
    fetcher = make_fetcher(timeout_seconds=0.5)

    started = time.monotonic()
    with pytest.raises(StageError) as caught:
        fetcher.fetch("http://public.test/stall")

    assert caught.value.code == ENRICH_TIMEOUT
    assert caught.value.retryable is True
    assert time.monotonic() - started < 2.0


def test_a_trickling_body_cannot_outlive_the_total_deadline(make_fetcher, site) -> None:
    # Each byte arrives well within a read timeout; only the total deadline stops it.
    def trickle(request: Request) -> Response:
        def drip() -> Iterator[bytes]:
            for _ in range(1000):
                if site.stall(0.05):
                    return
                yield b"x"

        return Response(200, drip(), {"Content-Type": "text/html", "Content-Length": "1000"})

    site.on("GET", "/slow", trickle)
    fetcher = make_fetcher(timeout_seconds=0.6)

    started = time.monotonic()
    with pytest.raises(StageError) as caught:
        fetcher.fetch("http://public.test/slow")

    assert caught.value.code == ENRICH_TIMEOUT
    assert time.monotonic() - started < 1.5


def test_a_hanging_name_lookup_cannot_outlive_the_deadline(make_fetcher, internet) -> None:
    lookup_released = threading.Event()

    def hang() -> list[str]:
        lookup_released.wait(5)
        return ["93.184.216.34"]

    internet.dns["hang.test"] = hang
    fetcher = make_fetcher(timeout_seconds=0.3)

    started = time.monotonic()
    try:
        with pytest.raises(StageError) as caught:
            fetcher.fetch("http://hang.test/job")
    finally:
        lookup_released.set()

    assert caught.value.code == ENRICH_TIMEOUT
    assert time.monotonic() - started < 1.0
    assert internet.connects == []
