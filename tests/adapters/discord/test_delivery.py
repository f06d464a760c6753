"""The delivery port: Discord's errors as the core's outcomes (channel gone, unknown, failed), a
deleted message re-posted at reveal, a closed DM stopping a timed interview."""

from __future__ import annotations

import asyncio

import pytest

from adapters.discord.delivery import translate
from bot.port import ChatGone, DeliveryError, DeliveryUnknown
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.store import interviews as records
from bot.store.daily import get_subscription
from bot.store.people import find_chat
from tests.adapters.discord.harness import ADMIN, CHANNEL_ID, DM_CHANNEL_ID, http_error, last_message_id, user

ADMIN_USER = user(10, "Admin")
HOUR = 3600


@pytest.mark.parametrize("error, sending, outcome", [
    (http_error(403, 50001, "Missing Access"), True, ChatGone),
    (http_error(403, 50007, "Cannot send messages to this user"), True, ChatGone),
    (http_error(404, 10003, "Unknown Channel"), True, ChatGone),
    (http_error(503, 0, "Service Unavailable"), True, DeliveryUnknown),
    (http_error(503, 0, "Service Unavailable"), False, DeliveryError),
    (asyncio.TimeoutError(), True, DeliveryUnknown),
    (http_error(400, 50035, "Invalid Form Body"), True, DeliveryError),
])
def test_errors_become_the_cores_outcomes(error, sending, outcome) -> None:
    result = translate(error, sending=sending)
    assert type(result) is outcome


async def test_missing_access_deactivates_the_subscription(discord_, recorder, db) -> None:
    await discord_.command("subscribe", ADMIN_USER, permissions=ADMIN, time="09:30")
    recorder.fail("POST", f"/channels/{CHANNEL_ID}/messages", http_error(403, 50001, "Missing Access"))
    defer, _post, reply = await discord_.command("daily", ADMIN_USER, permissions=ADMIN)
    assert reply.ephemeral and "I could not post in" in reply.text()
    chat = await find_chat(db, "discord", str(CHANNEL_ID))
    assert not (await get_subscription(db, chat.id)).active


async def test_a_server_error_after_sending_is_not_resent(discord_, recorder, db) -> None:
    recorder.fail("POST", f"/channels/{CHANNEL_ID}/messages", http_error(500, 0, "Internal Server Error"))
    requests = await discord_.command("daily", ADMIN_USER, permissions=ADMIN)
    posts = [r for r in requests if r.path == f"/channels/{CHANNEL_ID}/messages"]
    assert len(posts) == 1, "an unknown outcome is never sent twice"
    row = await db.fetch_one("SELECT state FROM daily_posts")
    assert row["state"] == "unknown"


async def test_a_deleted_post_is_revealed_in_a_new_message(discord_, recorder, core, clock) -> None:
    await discord_.command("daily", ADMIN_USER, permissions=ADMIN)
    message_id = last_message_id(recorder)
    recorder.fail("PATCH", f"/messages/{message_id}", http_error(404, 10008, "Unknown Message"))
    clock.advance(13 * HOUR)
    mark = len(recorder.requests)
    await core.tick()
    edit, post = recorder.since(mark)
    assert edit.method == "PATCH" and post.method == "POST" and post.path == f"/channels/{CHANNEL_ID}/messages"
    assert "The answer is" in post.text()


async def test_closed_dms_stop_a_timed_interview(discord_, recorder, core, clock, db) -> None:
    ada = UserRef("discord", "801", "Ada", "en-US")
    dm = ChatRef("discord", str(DM_CHANNEL_ID), "private")
    outgoing = await core.start_interview(ada, dm, InterviewFilters(count=2, time_limit_s=30))
    port = discord_.client.port
    chat = await find_chat(db, "discord", str(DM_CHANNEL_ID))
    await core.posted(outgoing.asked_id, await port.send(chat.address, outgoing.message))
    recorder.fail("PATCH", "/messages/", http_error(403, 50007, "Cannot send messages to this user"))
    clock.advance(31)
    assert len(await core.expire_interviews()) == 1
    interview = await records.get_interview(db, (await records.get_asked(db, outgoing.asked_id)).interview_id)
    assert interview.status == "stopped"
