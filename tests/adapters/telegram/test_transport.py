"""The aiohttp transport under Bot API calls: PTB's errors, never the token, uploads as multipart."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest
from telegram import Bot, InputFile
from telegram.error import NetworkError, TimedOut
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from adapters.telegram.delivery import TelegramPort, never_sent
from adapters.telegram.transport import AiohttpRequest, without_token
from bot.domain import ChatAddress
from bot.port import DeliveryError, DeliveryUnknown
from bot.text.messages import Message, Paragraph

TOKEN = "123456:SECRET-token_value"


@pytest.fixture
async def request_() -> AsyncIterator[AiohttpRequest]:
    request = AiohttpRequest(2, read_timeout=0.3, write_timeout=0.3, connect_timeout=0.3, pool_timeout=0.3)
    await request.initialize()
    yield request
    await request.shutdown()


async def test_a_refused_connection_is_a_network_error_that_never_left_and_hides_the_token(
        request_: AiohttpRequest) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, not listening
    try:
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/bot{TOKEN}/sendMessage"
        with pytest.raises(NetworkError) as raised:
            await request_.post(url, RequestData([RequestParameter.from_input("text", "hi")]))
    finally:
        closed.close()
    assert TOKEN not in str(raised.value) and "SECRET" not in repr(raised.value)
    assert never_sent(raised.value)


async def test_a_server_that_never_answers_is_a_timeout_that_may_have_arrived(request_: AiohttpRequest) -> None:
    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)  # the request arrives; no answer ever does
        await asyncio.sleep(5)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(TimedOut) as raised:
            await request_.post(f"http://127.0.0.1:{port}/bot{TOKEN}/getMe")
    finally:
        server.close()
    assert TOKEN not in str(raised.value)
    assert not never_sent(raised.value)  # it reached the server: a retry could send it twice


async def test_an_upload_goes_as_multipart_with_its_fields_and_the_answer_comes_back(
        request_: AiohttpRequest) -> None:
    seen: dict[str, bytes] = {}

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
        seen["head"], seen["body"] = head, await reader.readexactly(length)
        payload = b'{"ok": true, "result": {"done": 1}}'
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                     % (len(payload), payload))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    document = InputFile(b"deck bytes", filename="deck.apkg", attach=True)
    data = RequestData([RequestParameter.from_input("chat_id", 42), RequestParameter.from_input("document", document)])
    try:
        result = await request_.post(f"http://127.0.0.1:{port}/bot{TOKEN}/sendDocument", data)
    finally:
        server.close()
    assert result == {"done": 1}
    assert b"multipart/form-data" in seen["head"].lower()
    assert b'name="chat_id"' in seen["body"] and b"42" in seen["body"]
    assert b'filename="deck.apkg"' in seen["body"] and b"deck bytes" in seen["body"]


async def test_a_call_before_initialize_is_refused() -> None:
    with pytest.raises(RuntimeError):
        await AiohttpRequest().do_request("http://127.0.0.1:9/botX/getMe", "POST")


def test_the_token_is_cut_from_any_url_in_a_message() -> None:
    text = f"Cannot connect to https://api.telegram.org/bot{TOKEN}/sendMessage and /bot{TOKEN}/getMe"
    assert without_token(text) == ("Cannot connect to https://api.telegram.org/bot<token>/sendMessage and "
                                   "/bot<token>/getMe")


async def test_the_session_trusts_certifi_and_the_environments_proxy(monkeypatch) -> None:
    """As PTB's httpx client did: a slim image without system certificates still reaches Telegram, and
    HTTPS_PROXY is honoured, except for hosts NO_PROXY names."""
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    for name in ("https_proxy", "no_proxy", "http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    request = AiohttpRequest()
    await request.initialize()
    try:
        context = request._session.connector._ssl  # type: ignore[union-attr]
        assert context.verify_mode.name == "CERT_REQUIRED" and context.get_ca_certs()
        assert request.proxy_for(f"https://api.telegram.org/bot{TOKEN}/getMe") == "http://proxy.example:3128"
        assert request.proxy_for("http://127.0.0.1:8081/botX/getMe") is None
    finally:
        await request.shutdown()


async def test_a_send_after_shutdown_is_refused_at_once_as_never_sent_not_as_an_unknown_outcome(caplog) -> None:
    """At shutdown a reply or a post still queued meets a closed transport: nothing left, so it is neither
    retried nor logged as an outcome that may have arrived (which would keep a daily post from being sent
    again after the restart)."""
    request = AiohttpRequest(2)
    await request.initialize()
    await request.shutdown()
    with pytest.raises(NetworkError) as raised:
        await request.post(f"http://127.0.0.1:9/bot{TOKEN}/getMe")
    assert never_sent(raised.value) and TOKEN not in str(raised.value)
    port = TelegramPort(Bot(TOKEN, request=request, get_updates_request=request))
    with pytest.raises(DeliveryError) as refused:
        await asyncio.wait_for(port.send(ChatAddress("telegram", "-100"), Message((Paragraph("hello"),))), 1.0)
    assert not isinstance(refused.value, DeliveryUnknown) and "closed" in str(refused.value)
    assert "outcome unknown" not in caplog.text and "retrying" not in caplog.text
