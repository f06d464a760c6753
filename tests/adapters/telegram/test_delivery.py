"""Telegram's failures through the port: 429, Forbidden, migrations, timeouts, not-modified edits, pacing."""

from __future__ import annotations

import asyncio
import time

import pytest

from adapters.telegram.delivery import Pacing, TelegramPort
from bot.domain import ChatRef
from bot.text.messages import Message, Paragraph
from bot.store.daily import get_subscription
from bot.store.people import find_chat
from tests.adapters.telegram.conftest import ALICE, BOB, GROUP, Harness, private, start_harness, stop_harness

GROUP_ID = GROUP["id"]
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter(int)
GROUP_REF = ChatRef("telegram", str(GROUP_ID), "group", "ML study group")


async def test_a_429_is_waited_out_and_retried_without_a_duplicate(bot: Harness) -> None:
    bot.api.fail("sendMessage", "retry_after", value=3)
    await bot.command(ALICE, private(ALICE), "/start")  # the welcome (retried once), then the topic menu
    assert len(bot.api.calls_of("sendMessage")) == 3 and bot.sleeps == [3.0]
    assert len(bot.api.sent_to(ALICE["id"])) == 2


async def test_forbidden_deactivates_the_subscription(bot: Harness, clock) -> None:
    await bot.core.subscribe(GROUP_REF, "09:00", "UTC")
    bot.api.fail("sendMessage", "forbidden", chat_id=GROUP_ID)
    clock.set(clock.now() - clock.now() % 86400 + 86400 + 9 * 3600)  # 09:00 UTC tomorrow
    await bot.core.tick()
    record = await find_chat(bot.core.db, "telegram", str(GROUP_ID))
    assert not (await get_subscription(bot.core.db, record.id)).active
    assert bot.api.sent_to(GROUP_ID) == []


async def test_removal_from_a_group_deactivates_the_subscription(bot: Harness) -> None:
    await bot.core.subscribe(GROUP_REF, "09:00", "UTC")
    bot_user = {"id": 4242, "is_bot": True, "first_name": "Interview Bot"}
    change = {"chat": GROUP, "from": ALICE, "date": 0,
              "old_chat_member": {"status": "member", "user": bot_user},
              "new_chat_member": {"status": "kicked", "user": bot_user, "until_date": 0}}
    await bot.process({"my_chat_member": change})
    record = await find_chat(bot.core.db, "telegram", str(GROUP_ID))
    assert not (await get_subscription(bot.core.db, record.id)).active
    added = {**change, "old_chat_member": change["new_chat_member"], "new_chat_member": change["old_chat_member"]}
    await bot.process({"my_chat_member": added})
    assert "/subscribe 09:00 Europe/Istanbul" in bot.api.last(GROUP_ID).html


async def test_a_migrated_group_is_followed(bot: Harness) -> None:
    new_id = -1009999
    bot.api.admins[GROUP_ID] = {ALICE["id"]}
    bot.api.fail("sendMessage", "migrate", chat_id=GROUP_ID, value=new_id)
    await bot.command(ALICE, GROUP, "/daily")
    assert len(bot.api.sent_to(new_id)) == 1 and bot.api.sent_to(GROUP_ID) == []
    assert await find_chat(bot.core.db, "telegram", str(GROUP_ID)) is None
    assert await find_chat(bot.core.db, "telegram", str(new_id)) is not None

    old_group = {"id": -42, "type": "group", "title": "Old"}
    await bot.command(ALICE, private(ALICE), "/start")  # nothing to do with it; the store knows Alice
    await bot.core.subscribe(ChatRef("telegram", "-42", "group"), "10:00", "UTC")
    service = {"message_id": 77, "date": 0, "chat": old_group, "from": ALICE, "migrate_to_chat_id": -10042}
    await bot.process({"message": service})
    assert await find_chat(bot.core.db, "telegram", "-42") is None
    moved = await find_chat(bot.core.db, "telegram", "-10042")
    assert moved is not None and (await get_subscription(bot.core.db, moved.id)).active


async def test_a_timed_out_send_is_not_repeated(bot: Harness) -> None:
    bot.api.admins[GROUP_ID] = {ALICE["id"]}
    bot.api.fail("sendMessage", "slow", chat_id=GROUP_ID, value=0.8)  # the client gives up after 0.5 s
    await bot.command(ALICE, GROUP, "/daily")
    assert len(bot.api.calls_of("sendMessage")) == 1 and len(bot.api.sent_to(GROUP_ID)) == 1
    states = [row[0] for row in await bot.core.db.fetch_all("SELECT state FROM daily_posts")]
    assert states == ["unknown"]
    await bot.core.tick()
    assert len(bot.api.calls_of("sendMessage")) == 1


async def test_an_unchanged_edit_is_ignored(bot: Harness) -> None:
    port = bot.services.port
    ref = await port.post(ALICE["id"], Message((Paragraph("same"),)))
    chat_id, message_id = (int(part) for part in ref.split(":"))
    await port.replace(chat_id, message_id, Message((Paragraph("same"),)))
    assert bot.api.calls[-1].status == 400 and "not modified" not in bot.api.last(ALICE["id"]).html


async def test_a_timed_interview_closes_at_its_deadline(bot: Harness, clock) -> None:
    await bot.command(ALICE, private(ALICE), "/interview sync-basics 2 30s")
    question = bot.api.last(ALICE["id"])
    assert "You have 30 s per question." in question.html
    clock.advance(31)
    await bot.core.tick()
    assert question.markup is None and "Time is up" in question.html
    follow = bot.api.last(ALICE["id"])
    assert "Question 2/2" in follow.html and follow.data
    ref = (await bot.core.db.fetch_one("SELECT message_ref FROM asked_questions WHERE position = 1"))[0]
    assert ref == f"{ALICE['id']}:{follow.message_id}", "the next question can be closed in turn"
    await bot.click(ALICE, question, "a:1:a")
    assert bot.popups()[-1] == ("This question is closed.", True)


async def test_pacing_holds_per_group_and_per_private_chat(api, core) -> None:
    bot = await start_harness(api, core, pacing=Pacing(overall=(100, 1.0), group=(2, 0.2), private=(1, 0.1)))
    try:
        port: TelegramPort = bot.services.port
        started = time.monotonic()
        await asyncio.gather(*(port.post(GROUP_ID, Message((Paragraph(f"g{i}"),))) for i in range(4)))
        group_time = time.monotonic() - started
        started = time.monotonic()
        await asyncio.gather(*(port.post(BOB["id"], Message((Paragraph(f"p{i}"),))) for i in range(3)))
        private_time = time.monotonic() - started
        assert group_time >= 0.15 and private_time >= 0.15
        assert len(api.sent_to(GROUP_ID)) == 4 and len(api.sent_to(BOB["id"])) == 3
    finally:
        await stop_harness(bot)
