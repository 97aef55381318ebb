"""What goes over the wire: TLS names the URL's host, requests carry no state between fetches."""

from __future__ import annotations

import contextlib
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from jobctrl.domain.errors import ENRICH_UNREACHABLE, StageError

PUBLIC_IP = "93.184.216.34"


@pytest.fixture
def tls_listener(tmp_path: Path) -> Iterator[tuple[int, list[str]]]:
    """A loopback TLS endpoint with a self-signed certificate; records the SNI names it sees."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-nodes", "-days", "1", "-subj", "/CN=public.test"),
            *("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-addext", "subjectAltName=DNS:public.test"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    names: list[str] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    def remember_sni(_sock: ssl.SSLObject, name: str | None, _ctx: ssl.SSLContext) -> None:
        names.append(name or "")

    context.sni_callback = remember_sni
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        # The handshake fails: the client rejects our self-signed certificate.
        with conn, contextlib.suppress(OSError):
            context.wrap_socket(conn, server_side=True).close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], names
    listener.close()
    thread.join(5)


def test_tls_uses_the_url_host_name_and_verifies_the_certificate(
    tls_listener, make_fetcher, internet
) -> None:
    port, names = tls_listener
    internet.servers[PUBLIC_IP] = port
    fetcher = make_fetcher(respect_robots=False)

    with pytest.raises(StageError) as caught:
        fetcher.fetch("https://public.test/job")

    assert names == ["public.test"]  # SNI carries the name, not the checked IP
    assert caught.value.code == ENRICH_UNREACHABLE  # an untrusted certificate is refused
    assert internet.connects == [PUBLIC_IP]


def test_requests_name_us_and_keep_no_cookies(make_fetcher, site) -> None:
    site.route(
        "/job", b"ok", content_type="text/html", headers={"Set-Cookie": "session=abc; Path=/"}
    )
    fetcher = make_fetcher(user_agent="jobctrl-test/1")

    fetcher.fetch("http://public.test/job")
    fetcher.fetch("http://public.test/job")

    seen = [request.headers for request in site.requests if request.path == "/job"]
    assert len(seen) == 2
    assert seen[0]["user-agent"] == "jobctrl-test/1"
    assert seen[0]["host"] == "public.test"
    assert "br" not in seen[0]["accept-encoding"]
    assert "text/html" in seen[0]["accept"]
    assert "cookie" not in seen[1]
