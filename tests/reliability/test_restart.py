"""PostgreSQL restarted under the running bot: the real process (`python -m bot telegram`) on a PostgreSQL
store takes a burst of clicks, the server stops for the next burst and starts again for the last.

The process lives through it, the clicks during the outage each get the apology, none is told
"recorded" unless it is stored, and after the restart clicks are recorded again on new connections,
with nothing acknowledged lost and nothing stored twice.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

from bot.store import Database
from bot.store.interviews import get_asked
from tests.adapters.telegram.fake_bot_api import FakeBotApi
from tests.reliability.support import APOLOGY, RECORDED, eventually
from tests.reliability.test_crash import (SEED, TOKEN, BotProcess, answers_since, click_plan, post_daily_questions,
                                          quiet)

pytestmark = pytest.mark.slow  # python -m pytest -m "not slow" leaves these out


async def push_and_wait(api: FakeBotApi, bodies: list[dict], what: str) -> list:
    """Push a burst; the pop-ups it got, once every click has one."""
    first = len(api.calls)
    for body in bodies:
        api.push(body)
    await eventually(lambda: answers_since(api, first) >= len(bodies), 120, what)
    ids = {body["callback_query"]["id"] for body in bodies}
    return [call for call in api.calls[first:] if call.method == "answerCallbackQuery" and call.applied
            and call.params["callback_query_id"] in ids]


async def test_a_postgresql_restart_costs_only_the_clicks_during_it(tmp_path, postgres_server, postgres_url) -> None:
    api = FakeBotApi(token=TOKEN)
    await api.start()
    bot = BotProcess(api, postgres_url, tmp_path / "bot.log")  # type: ignore[arg-type]
    try:
        posts = await post_daily_questions(api, postgres_url)  # type: ignore[arg-type]
        bodies = click_plan(api, posts, random.Random(SEED))
        third = len(bodies) // 3
        await bot.start()
        before = await push_and_wait(api, bodies[:third], "the clicks before the outage answered")
        await asyncio.to_thread(postgres_server.pg_ctl, "stop")
        try:
            during = await push_and_wait(api, bodies[third:2 * third], "the clicks during the outage answered")
        finally:
            await asyncio.to_thread(postgres_server.pg_ctl, "start")
        assert bot.process is not None and bot.process.returncode is None, "the bot lived through the outage"
        after = await push_and_wait(api, bodies[2 * third:], "the clicks after the restart answered")
        await quiet(api)
        assert await bot.stop() == 0
    finally:
        await bot.kill_if_running()
        await api.stop()

    apology = APOLOGY[:200]
    assert {call.params.get("text") for call in during} == {apology}, "every click during the outage: the apology"
    assert all(call.params.get("show_alert") for call in during)
    for phase in (before, after):
        texts = Counter(call.params.get("text") for call in phase)
        assert apology not in texts and sum(texts[text] for text in RECORDED) > 0, texts
    clicks = {body["callback_query"]["id"]: body["callback_query"] for body in bodies}
    async with await Database.open(postgres_url) as db:
        asked_of = {chat_id: await get_asked(db, int(stored.data[0].split(":")[1])) for chat_id, stored in posts.items()}
        rows = await db.fetch_all("SELECT a.asked_id, u.platform_user_id, a.option_index FROM answers a "
                                  "JOIN users u ON u.id = a.user_id")
    stored = Counter((row[0], int(row[1])) for row in rows)
    assert max(stored.values()) == 1, "no (question, member) stored twice"
    options = {(row[0], int(row[1])): row[2] for row in rows}
    for call in before + after:
        if call.params.get("text") not in RECORDED:
            continue
        query = clicks[call.params["callback_query_id"]]
        asked = asked_of[query["message"]["chat"]["id"]]
        key = (asked.id, query["from"]["id"])
        assert options.get(key) == asked.option_index_of(query["data"].split(":")[2]), f"{key}: told recorded"
