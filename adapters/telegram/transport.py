"""The HTTP client under every Bot API call: aiohttp (already here with discord.py) instead of PTB's httpx.

Why: a burst of clicks is a burst of answerCallbackQuery calls, and with httpx each one paid for
httpcore's pool bookkeeping: every request checks every idle connection of the pool (a syscall and an
anyio attribute lookup each). At 16 updates at once that was a quarter of the event loop, and the bot
answered 0.33-0.42 of the clicks a second a bare python-telegram-bot answers. Through aiohttp the same
bot answers 0.88 of them (docs/benchmarks.md, "answer burst").

PTB keeps everything above the wire (status codes, parsing, RetryAfter): this only sends a request and
returns its status and body. Errors become PTB's: TimedOut for a timeout, NetworkError for the rest, and
their messages never carry the token (aiohttp names the URL, and a Bot API URL holds the token).
"""

from __future__ import annotations

import asyncio
import re
import ssl
import urllib.request
from functools import cache
from typing import Any

import aiohttp
import certifi
from telegram._utils.defaultvalue import DefaultValue
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

TOKEN_IN_URL = re.compile(r"/bot[^/\s]+")
MEDIA_WRITE_TIMEOUT = 20.0  # an upload (a chart, an export) may take longer to send than a text


def without_token(text: str) -> str:
    """A message about a Bot API URL with the token cut out."""
    return TOKEN_IN_URL.sub("/bot<token>", text)


def _chosen(value: Any, default: float | None) -> float | None:
    return default if isinstance(value, DefaultValue) else value


def _total(*parts: float | None) -> float | None:
    """A bound on the whole call (aiohttp has no write timeout of its own): the sum of its phases' limits."""
    return None if any(part is None for part in parts) else sum(parts)  # type: ignore[arg-type]


@cache
def tls_context() -> ssl.SSLContext:
    """certifi's certificates, read once for every session (reading them takes tens of milliseconds)."""
    return ssl.create_default_context(cafile=certifi.where())


class TransportClosed(RuntimeError):
    """A request made before the transport started or after it shut down: nothing was sent."""


class AiohttpRequest(BaseRequest):
    """PTB's request interface over one aiohttp ClientSession with a bounded connection pool."""

    def __init__(self, connection_pool_size: int = 1, read_timeout: float | None = 5.0,
                 write_timeout: float | None = 5.0, connect_timeout: float | None = 5.0,
                 pool_timeout: float | None = 1.0, media_write_timeout: float | None = MEDIA_WRITE_TIMEOUT) -> None:
        self.connection_pool_size = connection_pool_size
        self._read, self._write, self._connect, self._pool = read_timeout, write_timeout, connect_timeout, pool_timeout
        self._media_write = media_write_timeout
        self._session: aiohttp.ClientSession | None = None
        self._proxies: dict[str, str | None] = {}  # origin -> the environment's proxy for it

    @property
    def read_timeout(self) -> float | None:
        return self._read

    async def initialize(self) -> None:
        """The session, set up as PTB's httpx client was: certifi's certificates (a slim image may have
        none of its own); the proxy of HTTPS_PROXY and its kin comes from `proxy_for`."""
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self.connection_pool_size, ssl=tls_context())
            self._session = aiohttp.ClientSession(connector=connector, headers={"User-Agent": self.USER_AGENT})

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    def timeout(self, files: bool, read: Any, write: Any, connect: Any, pool: Any) -> aiohttp.ClientTimeout:
        """The call's limits: the caller's where given, else this request's defaults (a longer write for files)."""
        read_s = _chosen(read, self._read)
        write_s = _chosen(write, self._media_write if files else self._write)
        connect_s, pool_s = _chosen(connect, self._connect), _chosen(pool, self._pool)
        return aiohttp.ClientTimeout(total=_total(pool_s, connect_s, write_s, read_s),
                                     connect=_total(pool_s, connect_s),  # aiohttp's includes the wait for the pool
                                     sock_connect=connect_s, sock_read=read_s)

    def proxy_for(self, url: str) -> str | None:
        """The environment's proxy for this URL's origin (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), looked up once
        per origin: aiohttp's trust_env looks it up on every request, which doubled a request's cost."""
        scheme, _, rest = url.partition("://")
        host = rest.split("/", 1)[0]
        origin = f"{scheme}://{host}"
        if origin not in self._proxies:
            proxy = urllib.request.getproxies().get(scheme)
            bare_host = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            self._proxies[origin] = None if proxy is None or urllib.request.proxy_bypass(bare_host) else proxy
        return self._proxies[origin]

    @staticmethod
    def body(request_data: RequestData | None) -> aiohttp.FormData | dict[str, str] | None:
        """The call's fields as a form, multipart when it uploads files (PTB has encoded every value already)."""
        if request_data is None:
            return None
        if not request_data.contains_files:
            return request_data.json_parameters
        form = aiohttp.FormData()
        for name, value in request_data.json_parameters.items():
            form.add_field(name, value)
        for name, (filename, content, mimetype) in request_data.multipart_data.items():
            form.add_field(name, content, filename=filename, content_type=mimetype)
        return form

    async def do_request(self, url: str, method: str, request_data: RequestData | None = None,
                         read_timeout: Any = BaseRequest.DEFAULT_NONE, write_timeout: Any = BaseRequest.DEFAULT_NONE,
                         connect_timeout: Any = BaseRequest.DEFAULT_NONE,
                         pool_timeout: Any = BaseRequest.DEFAULT_NONE) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise TransportClosed("this AiohttpRequest is not initialized (or already shut down)")
        files = bool(request_data and request_data.contains_files)
        timeout = self.timeout(files, read_timeout, write_timeout, connect_timeout, pool_timeout)
        try:
            async with self._session.request(method, url, data=self.body(request_data), timeout=timeout,
                                             proxy=self.proxy_for(url)) as response:
                return response.status, await response.read()
        except (asyncio.TimeoutError, aiohttp.ServerTimeoutError) as error:
            raise TimedOut(without_token(f"Timed out ({type(error).__name__})")) from error
        except aiohttp.ClientError as error:
            raise NetworkError(without_token(f"aiohttp.{type(error).__name__}: {error}")) from error


def never_left(error: BaseException | None) -> bool:
    """True when aiohttp failed before a byte of the request could leave: no connection was made, or
    none came free in time, or there was no open session to send it on."""
    return isinstance(error, (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError, TransportClosed))
