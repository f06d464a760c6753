"""A refused connection, for real: the calls a Chaos plan picks are sent to a port that is bound but
never listens, so the kernel refuses the connection and aiohttp raises ClientConnectorError before a
byte of the request has left. A server cannot refuse one request of an open connection, so this is
done on the client side; the rest of the faults are the fake server's.
"""

from __future__ import annotations

import socket
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from telegram.ext import Application

from adapters.telegram.transport import AiohttpRequest
from tests.adapters.telegram.fake_bot_api import Chaos, decoded


class RefusingTransport:
    """Holds the closed port while the bot runs; `aclose` releases it."""

    def __init__(self) -> None:
        self._closed = socket.socket()
        self._closed.bind(("127.0.0.1", 0))  # bound, not listening: connecting here is refused
        self.closed_port = self._closed.getsockname()[1]

    def elsewhere(self, url: str) -> str:
        parts = urlsplit(url)
        return urlunsplit(parts._replace(netloc=f"127.0.0.1:{self.closed_port}"))

    async def aclose(self) -> None:
        self._closed.close()


async def refuse_connections(application: Application, chaos: Chaos) -> RefusingTransport:
    """Send the calls `chaos` picks (all methods but getUpdates) to a refusing port, before initialize.

    PTB offers no hook for the transport of a built Application, so this wraps its request's do_request."""
    request = application.bot._request[1]  # noqa: SLF001 - (getUpdates request, every other request)
    assert isinstance(request, AiohttpRequest)
    transport = RefusingTransport()
    send = request.do_request

    async def do_request(url: str, method: str, request_data: Any = None, **timeouts: Any) -> tuple[int, bytes]:
        params = decoded(dict(request_data.json_parameters)) if request_data is not None else {}
        if chaos.refuse(url.rsplit("/", 1)[-1], params):
            url = transport.elsewhere(url)
        return await send(url, method, request_data, **timeouts)

    request.do_request = do_request  # type: ignore[method-assign]
    return transport
