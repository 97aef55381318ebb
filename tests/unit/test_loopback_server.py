"""The tests' loopback HTTP server (tests/support/loopback.py) routes, records and stops."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.support.loopback import LoopbackServer, Request, Response


def test_requests_are_routed_by_method_and_path_and_recorded() -> None:
    with LoopbackServer() as server, httpx.Client() as client:
        url = server.on("POST", "/echo", lambda r: Response.json({"got": r.json(), "q": r.query}))
        server.on("GET", "/page", Response.text("hello"))

        echoed = client.post(url + "?a=1&b=", json={"x": 1}, headers={"X-Test": "yes"})
        page = client.get(server.url("/page"))
        wrong_method = client.get(url)
        unknown = client.get(server.url("/nope?z=9"))

    assert url == f"http://127.0.0.1:{server.port}/echo"
    assert echoed.json() == {"got": {"x": 1}, "q": {"a": "1", "b": ""}}
    assert (page.status_code, page.text, page.headers["content-length"]) == (200, "hello", "5")
    assert (wrong_method.status_code, wrong_method.headers["allow"]) == (405, "POST")
    assert unknown.status_code == 404
    assert [(r.method, r.path) for r in server.requests] == [
        ("POST", "/echo"),
        ("GET", "/page"),
        ("GET", "/echo"),
        ("GET", "/nope"),
    ]
    first = server.requests[0]
    assert (first.body, first.headers["x-test"]) == (b'{"x":1}', "yes")
    assert server.hits == {"/echo": 2, "/page": 1, "/nope": 1}


def test_an_iterable_body_is_sent_chunk_by_chunk() -> None:
    first_arrived = threading.Event()
    flushed: list[bool] = []

    def chunks(request: Request) -> Response:
        def body() -> Iterator[bytes]:
            yield b"one,"
            flushed.append(first_arrived.wait(5))  # the client has it before the rest is made
            yield b"two"

        return Response(200, body(), {"Content-Type": "text/plain"})

    received: list[bytes] = []
    with LoopbackServer() as server, httpx.stream("GET", server.on("GET", "/s", chunks)) as r:
        for part in r.iter_raw():
            received.append(part)
            first_arrived.set()

    assert b"".join(received) == b"one,two"
    assert "content-length" not in r.headers
    assert flushed == [True]


def test_stop_frees_stalled_handlers_and_hangs_up_on_their_clients() -> None:
    server = LoopbackServer().start()
    freed = threading.Event()

    def stall(request: Request) -> Response:
        server.stall(30)
        freed.set()
        return Response.text("late")

    server.on("GET", "/stall", stall)
    server.on("GET", "/delayed", Response(delay=30))
    outcomes: list[object] = []

    def get(path: str) -> None:
        try:
            outcomes.append(httpx.get(server.url(path), timeout=10).status_code)
        except httpx.HTTPError as error:
            outcomes.append(type(error))

    clients = [threading.Thread(target=get, args=(path,)) for path in ("/stall", "/delayed")]
    for client in clients:
        client.start()
    while len(server.requests) < 2:
        time.sleep(0.01)

    started = time.monotonic()
    server.stop()
    for client in clients:
        client.join(5)

    assert time.monotonic() - started < 2.0
    assert freed.is_set()
    assert httpx.RemoteProtocolError in outcomes  # the delayed answer was never sent
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url("/stall"), timeout=2)


def test_a_handler_that_raises_answers_500_and_fails_the_test_at_exit() -> None:
    def broken(request: Request) -> Response:
        raise ValueError("handler bug")

    with pytest.raises(AssertionError, match="handler bug"), LoopbackServer() as server:
        status = httpx.get(server.on("GET", "/broken", broken)).status_code

    assert status == 500
    assert [type(error) for error in server.errors] == [ValueError]
