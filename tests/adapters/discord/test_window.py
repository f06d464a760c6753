"""Discord's 3-second window: quick work is one response; slow work is deferred first, then followed up."""

from __future__ import annotations

import asyncio
import time

from tests.adapters.discord.harness import APP_ID, user
from tests.adapters.discord.helpers import asked_id_of, letters

ADA = user(1, "Ada")


def slow(method, seconds: float):
    async def wrapper(*args, **kwargs):
        await asyncio.sleep(seconds)
        return await method(*args, **kwargs)

    return wrapper


async def test_slow_command_is_deferred_within_the_budget(discord_, core, monkeypatch) -> None:
    discord_.client.response_budget = 0.05
    monkeypatch.setattr(core, "history", slow(core.history, 0.3))
    started = time.monotonic()
    defer, follow_up = await discord_.command("history", ADA, dm=True)
    assert defer.callback_type == 5 and defer.at - started < 0.25, "deferred before the slow work finished"
    assert follow_up.method == "POST" and follow_up.path == f"/webhooks/{APP_ID}/token-1"
    assert "No interviews yet" in follow_up.text()


async def test_quick_command_is_one_response(discord_) -> None:
    [response] = await discord_.command("history", ADA, dm=True)
    assert response.callback_type == 4


async def test_slow_click_in_a_dm_defers_as_an_update(discord_, recorder, core, db, bank, monkeypatch) -> None:
    [started] = await discord_.command("interview", ADA, dm=True, count=2)
    message_id, asked_id = max(recorder.messages), asked_id_of(started.custom_ids()[0])
    right, _ = await letters(db, bank, asked_id)
    discord_.client.response_budget = 0.05
    monkeypatch.setattr(core, "click", slow(core.click, 0.3))
    defer, edit, follow_up = await discord_.click(message_id, f"a:{asked_id}:{right}", ADA, dm=True)
    assert defer.callback_type == 6, "a deferred update of the clicked message"
    assert edit.method == "PATCH" and edit.path == f"/webhooks/{APP_ID}/token-2/messages/@original"
    assert "✅ Right" in edit.text() and edit.json["components"] == []
    assert follow_up.method == "POST" and "Question 2/2" in follow_up.text()


async def test_progress_defers_at_once_and_attaches_the_chart(discord_, recorder, db, bank) -> None:
    [started] = await discord_.command("interview", ADA, dm=True, count=2)
    asked_id = asked_id_of(started.custom_ids()[0])
    right, _ = await letters(db, bank, asked_id)
    await discord_.click(max(recorder.messages), f"a:{asked_id}:{right}", ADA, dm=True)
    defer, *follow_ups = await discord_.command("progress", ADA, dm=True)
    assert defer.callback_type == 5 and not defer.ephemeral
    chart = follow_ups[-1]
    assert chart.files == 1 and chart.message["embeds"][-1]["image"]["url"] == "attachment://chart.png"


async def test_progress_in_a_server_is_only_for_the_caller(discord_) -> None:
    defer, *follow_ups = await discord_.command("progress", ADA)
    assert defer.callback_type == 5 and defer.ephemeral and all(f.ephemeral for f in follow_ups)
