"""A busy group's send backlog must not hold the update slots: its handlers return at once, another
person's reply goes out at once, the group's replies keep their order, and shutdown does not wait for it."""

from __future__ import annotations

import asyncio
import time

from telegram import Update

from adapters.telegram.delivery import Pacing
from tests.adapters.telegram.conftest import ALICE, BOB, command, private, start_harness, stop_harness
from tests.reliability.support import group, member

SLOW_GROUP = Pacing(overall=(1000, 1.0), group=(2, 60.0), private=(1000, 1.0))  # two sends a minute per group
GROUP_ID = -1_001_777


async def _handle(bot, body: dict) -> None:
    """What the Application does for one update, without waiting for the chat's queued replies."""
    await bot.application.process_update(Update.de_json({"update_id": int(time.monotonic_ns() % 10**9), **body},
                                                        bot.application.bot))


async def test_a_group_backlog_holds_no_handler_and_a_bystander_is_answered_at_once(api, core) -> None:
    bot = await start_harness(api, core, pacing=SLOW_GROUP)
    try:
        started = time.monotonic()
        for number in range(12):  # twelve members, the same command: each is theirs and each is answered
            await asyncio.wait_for(_handle(bot, command(member(5000 + number), group(GROUP_ID), "/help")), 5)
        assert time.monotonic() - started < 5, "every group handler returned without waiting for the group's pace"
        assert bot.services.queues.pending(GROUP_ID) >= 9, "the group's replies wait in its own queue"
        await asyncio.wait_for(_handle(bot, command(BOB, private(BOB), "/help")), 5)
        for _ in range(100):
            if api.sent_to(BOB["id"]):
                break
            await asyncio.sleep(0.02)
        assert api.sent_to(BOB["id"]), "the bystander's reply did not wait behind the group"
        assert len(api.sent_to(GROUP_ID)) == 2, "the group got what its pace allows, in order"
        closing = time.monotonic()
        await bot.services.queues.close(grace=0.2)
        assert time.monotonic() - closing < 2, "stopping drops the backlog instead of waiting a minute for it"
    finally:
        await stop_harness(bot)


async def test_a_chats_replies_keep_their_order(bot, api) -> None:
    for number in range(5):
        await _handle(bot, command(ALICE, private(ALICE), f"/language {'tr' if number % 2 else 'en'}"))
    await bot.services.queues.join()
    texts = [stored.html for stored in api.sent_to(ALICE["id"])]
    assert len(texts) == 5 and texts[0] != texts[1]
    assert texts[0::2] == [texts[0]] * 3 and texts[1::2] == [texts[1]] * 2, "each reply in the order asked"


async def test_a_full_chat_queue_tells_the_chat_it_is_busy_once(api, core, caplog) -> None:
    """Past the bound, a member's request is not dropped silently: the chat gets one "busy, try again" note
    ahead of its backlog (once per backlog), and the log says so."""
    bot = await start_harness(api, core, pacing=Pacing(overall=(1000, 1.0), group=(1, 0.3), private=(1000, 1.0)))
    bot.services.queues.max_pending = 3
    try:
        for number in range(8):
            await _handle(bot, command(member(6000 + number), group(GROUP_ID), f"/help {number}"))
        assert bot.services.queues.dropped >= 2 and "chat told so" in caplog.text
        await asyncio.wait_for(bot.services.queues.join(), 10)
        texts = [stored.html for stored in api.sent_to(GROUP_ID)]
        assert sum("try again" in text for text in texts) == 1, texts
        note = next(index for index, text in enumerate(texts) if "try again" in text)
        assert len(texts) - note - 1 == 3, "the note went ahead of the three replies that were waiting"
    finally:
        await bot.services.queues.close(grace=0.1)
        await stop_harness(bot)
