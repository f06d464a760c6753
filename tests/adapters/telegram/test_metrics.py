"""/metrics scraped over HTTP while the real Telegram adapter works against the fake Bot API."""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.metrics import MetricsServer, serve_metrics
from bot.schedule.clock import ManualClock
from bot.schedule.timer import Timer
from tests.adapters.telegram.conftest import ALICE, Harness, private

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture
def exporter() -> Iterator[MetricsServer]:
    server = serve_metrics("127.0.0.1:0")
    yield server
    server.close()


async def scrape(server: MetricsServer) -> tuple[str, Samples]:
    def get() -> tuple[str, str]:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=5) as response:
            return response.headers["Content-Type"], response.read().decode()

    content_type, text = await asyncio.to_thread(get)
    assert content_type.startswith("text/plain")
    samples = {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
               for family in text_string_to_metric_families(text) for sample in family.samples}
    return text, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_a_scrape_shows_answers_interviews_sends_and_rate_limits(bot: Harness, exporter) -> None:
    _, before = await scrape(exporter)
    dm, chat_id = private(ALICE), ALICE["id"]
    bot.api.fail("sendMessage", "retry_after", chat_id=chat_id, value=1)
    await bot.command(ALICE, dm, "/interview sync-basics 2")
    question = bot.api.last(chat_id)
    await bot.click(ALICE, question, question.data[0])
    text, after = await scrape(exporter)
    for name in ("interview_bot_answers_total", "interview_bot_interviews_started_total", "interview_bot_sends_total",
                 "interview_bot_send_seconds", "interview_bot_rate_limited_total",
                 "interview_bot_scheduler_lag_seconds", "interview_bot_updates_in_flight"):
        assert f"# TYPE {name.removesuffix('_total')}" in text, name

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("interview_bot_answers_total", platform="telegram", kind="interview") == 1
    assert grew("interview_bot_interviews_started_total", platform="telegram") == 1
    assert grew("interview_bot_rate_limited_total", platform="telegram") == 1
    assert grew("interview_bot_sends_total", platform="telegram", outcome="ok") >= 3  # question, edit, next question
    assert grew("interview_bot_send_seconds_count", platform="telegram") == grew(
        "interview_bot_sends_total", platform="telegram", outcome="ok")
    assert value(after, "interview_bot_updates_in_flight", platform="telegram") == 0  # every update finished


async def test_a_send_to_a_chat_that_blocked_the_bot_counts_as_gone(bot: Harness, exporter) -> None:
    _, before = await scrape(exporter)
    bot.api.fail("sendMessage", "forbidden", chat_id=ALICE["id"])
    await bot.command(ALICE, private(ALICE), "/help")
    _, after = await scrape(exporter)
    gone = ("interview_bot_sends_total", {"platform": "telegram", "outcome": "gone"})
    assert value(after, gone[0], **gone[1]) - value(before, gone[0], **gone[1]) == 1


async def test_the_scheduler_lag_is_how_late_a_tick_ran(exporter) -> None:
    clock = ManualClock(1000.0)

    async def nothing() -> None:
        return None

    async def never() -> float | None:
        return None

    timer = Timer(nothing, never, clock, name="lag-test")
    timer._arm(5.0)  # due at 1005 on the timer's clock
    clock.advance(7.5)
    await timer._fire()
    await timer.stop()
    _, samples = await scrape(exporter)
    assert value(samples, "interview_bot_scheduler_lag_seconds", timer="lag-test") == 2.5


def test_a_bad_address_is_refused() -> None:
    with pytest.raises(ValueError, match="HOST:PORT"):
        serve_metrics("9100")


def test_platform_commands_refuse_a_bad_metrics_address(monkeypatch, capsys) -> None:
    from bot.app.cli import main

    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "xyz")
    for command in ("telegram", "discord", "run"):
        assert main([command, "--metrics", "localhost"]) == 2
        assert "--metrics must be HOST:PORT" in capsys.readouterr().err
