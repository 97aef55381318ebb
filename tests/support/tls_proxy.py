"""A TLS front for a plain Temporal dev server, as a cluster's load balancer would be: it
terminates TLS (HTTP/2 by ALPN, a client certificate required when asked) on a loopback
port and forwards the bytes to the server. Certificates come from a throwaway CA
(``trustme``); nothing leaves the machine."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from pathlib import Path

import trustme


class TlsProxy:
    """``with TlsProxy(target, tmp_path) as proxy:`` — ``proxy.address`` takes TLS and
    forwards to ``target`` (host:port); ``proxy.files`` are the PEM files a client uses
    (``ca``, ``cert``, ``key``); ``proxy.handshakes`` counts completed TLS handshakes."""

    def __init__(self, target: str, directory: Path, *, require_client_cert: bool = True) -> None:
        self.target = target
        self.ca = trustme.CA()
        server = self.ca.issue_cert("localhost")
        client = self.ca.issue_cert("jobctrl-worker@example.invalid")
        self.files = {
            "ca": directory / "ca.pem",
            "cert": directory / "client.pem",
            "key": directory / "client.key",
        }
        self.ca.cert_pem.write_to_path(str(self.files["ca"]))
        client.cert_chain_pems[0].write_to_path(str(self.files["cert"]))
        client.private_key_pem.write_to_path(str(self.files["key"]))
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server.configure_cert(self.context)
        self.context.set_alpn_protocols(["h2"])
        if require_client_cert:
            self.ca.configure_trust(self.context)
            self.context.verify_mode = ssl.CERT_REQUIRED
        self.handshakes = 0
        self.address = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TlsProxy:
        self._thread.start()
        assert self._ready.wait(10), "the TLS proxy did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, "127.0.0.1", 0, ssl=self.context)
        self.address = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.handshakes += 1  # start_server hands over a connection once TLS is up
        host, _, port = self.target.rpartition(":")
        try:
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.close()
            return

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError, ssl.SSLError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            with contextlib.suppress(OSError, RuntimeError):
                dst.close()

        with contextlib.suppress(asyncio.CancelledError):  # the proxy is stopping
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
