"""A refused connection, for real: the client transport sends the calls a Chaos plan picks to a port
that is bound but never listens, so the kernel refuses the connection and httpx raises ConnectError
before a byte of the request has left. A server cannot refuse one request of an open connection, so
this is done on the client side; the rest of the faults are the fake server's.
"""

from __future__ import annotations

import socket
from urllib.parse import parse_qsl

import httpx
from telegram.ext import Application
from telegram.request import HTTPXRequest

from tests.adapters.telegram.fake_bot_api import Chaos, decoded


class RefusingTransport(httpx.AsyncHTTPTransport):
    def __init__(self, chaos: Chaos, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.chaos = chaos
        self._closed = socket.socket()
        self._closed.bind(("127.0.0.1", 0))  # bound, not listening: connecting here is refused
        self.closed_port = self._closed.getsockname()[1]

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        method = request.url.path.rsplit("/", 1)[-1]
        body = await request.aread()
        form = request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded")
        params = decoded(dict(parse_qsl(body.decode()))) if form else {}
        if self.chaos.refuse(method, params):
            request = httpx.Request(request.method, request.url.copy_with(port=self.closed_port),
                                    headers=request.headers, content=body)
        return await super().handle_async_request(request)

    async def aclose(self) -> None:
        self._closed.close()
        await super().aclose()


async def refuse_connections(application: Application, chaos: Chaos) -> RefusingTransport:
    """Put a RefusingTransport under the bot's requests (all methods but getUpdates), before initialize.

    PTB offers no hook for the transport of a built Application, so this reaches into its HTTPXRequest."""
    request = application.bot._request[1]  # noqa: SLF001 - (getUpdates request, every other request)
    assert isinstance(request, HTTPXRequest)
    options = dict(request._client_kwargs)  # noqa: SLF001
    transport = RefusingTransport(chaos, limits=options["limits"])
    options["transport"] = transport
    await request._client.aclose()  # noqa: SLF001
    request._client_kwargs = options  # noqa: SLF001
    request._client = httpx.AsyncClient(**options)  # noqa: SLF001
    return transport
