"""Discord's part of /metrics: port sends by outcome, slash commands and clicks in flight, discord.py's 429s."""

from __future__ import annotations

import logging

import pytest
from prometheus_client import REGISTRY

from adapters.discord.metrics import RATE_LIMIT_LOGGER
from bot.domain import ChatAddress
from bot.metrics import enable
from bot.port import ChatForbidden, ChatGone
from bot.text.messages import Message, Paragraph
from tests.adapters.discord.harness import CHANNEL_ID, http_error, user


@pytest.fixture(autouse=True)
def metrics() -> None:
    enable()


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_port_sends_are_counted_by_outcome(discord_, recorder) -> None:
    ok, gone, forbidden = (sample("interview_bot_sends_total", platform="discord", outcome=o)
                           for o in ("ok", "gone", "forbidden"))
    where = ChatAddress("discord", str(CHANNEL_ID))
    await discord_.client.port.send(where, Message((Paragraph("hello"),)))
    recorder.fail("POST", f"/channels/{CHANNEL_ID}/messages", http_error(404, 10003, "Unknown Channel"))
    with pytest.raises(ChatGone):
        await discord_.client.port.send(where, Message((Paragraph("hello"),)))
    recorder.fail("POST", f"/channels/{CHANNEL_ID}/messages", http_error(403, 50013, "Missing Permissions"))
    with pytest.raises(ChatForbidden):
        await discord_.client.port.send(where, Message((Paragraph("hello"),)))
    assert sample("interview_bot_sends_total", platform="discord", outcome="ok") == ok + 1
    assert sample("interview_bot_sends_total", platform="discord", outcome="gone") == gone + 1
    assert sample("interview_bot_sends_total", platform="discord", outcome="forbidden") == forbidden + 1


async def test_commands_are_in_flight_only_while_they_run(discord_, monkeypatch) -> None:
    seen: list[float] = []
    original = discord_.client.core.groups_leaderboard

    async def watched(language: str) -> Message:
        seen.append(sample("interview_bot_updates_in_flight", platform="discord"))
        return await original(language)

    monkeypatch.setattr(discord_.client.core, "groups_leaderboard", watched)
    await discord_.command("groups", user(1, "Ada"))
    assert seen == [1.0] and sample("interview_bot_updates_in_flight", platform="discord") == 0


def test_discord_py_rate_limit_retries_are_counted(discord_) -> None:
    before = sample("interview_bot_rate_limited_total", platform="discord")
    logging.getLogger(RATE_LIMIT_LOGGER).warning(
        "We are being rate limited. %s %s responded with 429. Retrying in %.2f seconds.", "POST", "/x", 1.0)
    assert sample("interview_bot_rate_limited_total", platform="discord") == before + 1
