"""The bot as it runs: long polling over HTTP through serve(), a webhook, and a restart mid-interview."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import aiohttp

from adapters.telegram.app import serve, webhook_secret_for
from bot.bank.loader import Bank
from bot.schedule.clock import ManualClock
from bot.app.config import Settings
from bot.core import Core
from bot.store import Database
from tests.adapters.telegram.conftest import ALICE, FAST, command, private, start_harness, stop_harness
from tests.adapters.telegram.fake_bot_api import TOKEN, FakeBotApi
from tests.postgres import free_port, listening

CHAT = ALICE["id"]


async def eventually(condition, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the condition never held")


def settings(tmp_path: Path) -> Settings:
    return Settings(db_path=tmp_path / "unused.sqlite3", telegram_token=TOKEN)


async def test_long_polling_serves_a_whole_interview_and_stops(api: FakeBotApi, core: Core, tmp_path: Path) -> None:
    stop = asyncio.Event()
    task = asyncio.create_task(serve(core, settings(tmp_path), stop, base_url=api.base_url, pacing=FAST))
    await eventually(lambda: api.calls_of("getUpdates"))
    assert api.calls_of("deleteWebhook"), "polling starts by removing any webhook"
    scopes = [(call["scope"]["type"], call.get("language_code")) for call in api.calls_of("setMyCommands")]
    assert sorted(scopes, key=str) == sorted([("all_private_chats", None), ("all_private_chats", "tr"),
                                              ("all_group_chats", None), ("all_group_chats", "tr")], key=str)
    turkish = next(call for call in api.calls_of("setMyCommands") if call.get("language_code") == "tr")
    assert any(entry["command"] == "interview" for entry in turkish["commands"])

    api.push(command(ALICE, private(ALICE), "/interview sync-basics 2"))
    await eventually(lambda: api.sent_to(CHAT))
    for number in (1, 2):
        question = api.last(CHAT)
        assert f"Question {number}/2" in question.html
        api.push({"callback_query": {"id": f"q{number}", "from": ALICE, "chat_instance": "ci",
                                     "data": question.data[0], "message": api._message(question)}})
        await eventually(lambda: len(api.sent_to(CHAT)) == number + 1)
    assert "Interview report" in api.last(CHAT).html
    stop.set()
    await asyncio.wait_for(task, 5)
    assert api.calls_of("getUpdates")[-1]["offset"] == 4, "the three updates are confirmed on the way out"


async def test_a_webhook_with_a_secret_token(api: FakeBotApi, core: Core, tmp_path: Path) -> None:
    port, stop = free_port(), asyncio.Event()
    url = "https://bot.example.org/telegram-hook"
    task = asyncio.create_task(serve(core, settings(tmp_path), stop, base_url=api.base_url, webhook=url,
                                     listen=f"127.0.0.1:{port}", pacing=FAST))
    await eventually(lambda: api.calls_of("setWebhook"))
    [hook] = api.calls_of("setWebhook")
    assert hook["url"] == url and hook["secret_token"] == webhook_secret_for(TOKEN) != TOKEN
    update = {"update_id": 1, **command(ALICE, private(ALICE), "/help")}
    async with aiohttp.ClientSession() as session:
        endpoint = f"http://127.0.0.1:{port}/telegram-hook"
        await eventually(lambda: listening(port))  # PTB calls setWebhook before its server listens
        async with session.post(endpoint, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "wrong"}) as bad:
            assert bad.status == 403
        async with session.post(endpoint, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "é"}) as odd:
            assert odd.status == 403
        headers = {"X-Telegram-Bot-Api-Secret-Token": hook["secret_token"]}
        async with session.post(endpoint, json=update, headers=headers) as good:
            assert good.status == 200
        async with session.post(endpoint, data=b"not json", headers=headers) as junk:
            assert junk.status == 400
        language = {"update_id": 2, **command(ALICE, private(ALICE), "/language tr")}
        async with session.post(endpoint, json=language, headers=headers) as handled:
            assert handled.status == 200
            row = await core.db.fetch_one("SELECT language FROM users WHERE platform_user_id = ?", (str(ALICE["id"]),))
            assert row is not None and row[0] == "tr", "the 200 came after the update was handled, not before"
    await eventually(lambda: api.sent_to(CHAT))
    assert "/interview" in api.sent_to(CHAT)[0].html
    stop.set()
    await asyncio.wait_for(task, 5)


async def test_old_buttons_work_after_a_restart(api: FakeBotApi, bank: Bank, clock: ManualClock,
                                                tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    first_core = Core(await Database.open(path), bank, clock, random.Random(1), scheduled=False)
    first = await start_harness(api, first_core)
    await first.command(ALICE, private(ALICE), "/interview sync-basics 3")
    await first.click(ALICE, api.last(CHAT), api.last(CHAT).data[0])
    second_question = api.last(CHAT)
    old_buttons = list(second_question.data)
    await stop_harness(first)
    await first_core.close()

    second_core = Core(await Database.open(path), bank, clock, random.Random(2), scheduled=False)
    second = await start_harness(api, second_core)
    try:
        await second.click(ALICE, second_question, old_buttons[1])
        assert second.popups()[-1][1] is False, "the old button counts"
        assert second_question.markup is None and "Question 3/3" in api.last(CHAT).html
        assert await second.count("answers") == 2
    finally:
        await stop_harness(second)
        await second_core.close()
