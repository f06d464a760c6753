"""The delivery port: Discord's errors as the core's outcomes by their JSON code (channel gone, bot not
allowed, unknown, failed); a lost permission pausing a channel's daily question until a post gets through;
a deleted message re-posted at reveal; a closed DM stopping a timed interview."""

from __future__ import annotations

import asyncio
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from adapters.discord.delivery import translate
from bot.port import ChatForbidden, ChatGone, DeliveryError, DeliveryUnknown
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.store import interviews as records
from bot.store.daily import get_subscription
from bot.store.people import find_chat
from tests.adapters.discord.harness import ADMIN, CHANNEL_ID, DM_CHANNEL_ID, http_error, last_message_id, user

ADMIN_USER, AYSE = user(10, "Admin"), user(11, "Ayşe")
HOUR = 3600


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo("Europe/Istanbul")).timestamp()


@pytest.mark.parametrize("error, sending, outcome", [
    (http_error(403, 50001, "Missing Access"), True, ChatForbidden),
    (http_error(403, 50013, "Missing Permissions"), True, ChatForbidden),
    (http_error(403, 50013, "Missing Permissions"), False, ChatForbidden),
    (http_error(403, 160005, "Thread is locked"), True, ChatForbidden),  # any other 403: not allowed, not gone
    (http_error(403, 50007, "Cannot send messages to this user"), True, ChatGone),
    (http_error(404, 10003, "Unknown Channel"), True, ChatGone),
    (http_error(404, 10008, "Unknown Message"), False, ChatGone),
    (http_error(404, 10004, "Unknown Guild"), True, ChatGone),
    (http_error(404, 0, "404: Not Found"), True, ChatGone),
    (http_error(503, 0, "Service Unavailable"), True, DeliveryUnknown),
    (http_error(503, 0, "Service Unavailable"), False, DeliveryError),
    (asyncio.TimeoutError(), True, DeliveryUnknown),
    (http_error(400, 50035, "Invalid Form Body"), True, DeliveryError),
])
def test_errors_become_the_cores_outcomes(error, sending, outcome) -> None:
    result = translate(error, sending=sending)
    assert type(result) is outcome


def test_a_refusal_is_never_taken_for_a_gone_channel() -> None:
    assert not issubclass(ChatForbidden, ChatGone) and issubclass(ChatForbidden, DeliveryError)


async def subscription(db):
    chat = await find_chat(db, "discord", str(CHANNEL_ID))
    return await get_subscription(db, chat.id)


async def test_a_lost_permission_pauses_the_daily_question_until_a_post_gets_through(discord_, recorder, core,
                                                                                     clock, db) -> None:
    clock.set(at("2026-05-04 08:00"))
    await discord_.command("subscribe", ADMIN_USER, permissions=ADMIN, time="09:30", timezone="Europe/Istanbul")
    recorder.fail("POST", f"/channels/{CHANNEL_ID}/messages", http_error(403, 50013, "Missing Permissions"))
    clock.set(at("2026-05-04 09:30"))
    await core.tick()
    paused = await subscription(db)
    assert paused.active and paused.paused_reason == "forbidden", "paused, not switched off"

    [settings] = await discord_.command("settings", AYSE, locale="tr")  # a Turkish member in an English server
    assert settings.ephemeral
    assert ("2026-05-04 tarihinde bu kanalda Mesaj Gönder (Send Messages) ya da Kanalı Görüntüle (View Channel) "
            "iznimi kaybettim") in settings.text()
    assert "izin yeniden verildiğinde gönderiler kendiliğinden devam eder" in settings.text()
    [settings] = await discord_.command("settings", ADMIN_USER, permissions=ADMIN)
    assert "Paused: on 2026-05-04 I lost the Send Messages or View Channel permission" in settings.text()

    clock.set(at("2026-05-05 09:30"))  # the permission is back: tomorrow's post goes out and the pause ends
    mark = len(recorder.requests)
    await core.tick()
    assert any(r.method == "POST" and r.path == f"/channels/{CHANNEL_ID}/messages" for r in recorder.since(mark))
    assert (await subscription(db)).paused_at is None
    [settings] = await discord_.command("settings", AYSE, locale="tr")
    assert "Duraklatıldı" not in settings.text() and "Saat 09:30 (Europe/Istanbul)" in settings.text()


async def test_an_admin_whose_daily_is_refused_sees_the_pause_and_clears_it(discord_, recorder, db) -> None:
    await discord_.command("subscribe", ADMIN_USER, permissions=ADMIN, time="09:30")
    recorder.fail("POST", f"/channels/{CHANNEL_ID}/messages", http_error(403, 50001, "Missing Access"))
    defer, _post, reply = await discord_.command("daily", ADMIN_USER, permissions=ADMIN)
    assert reply.ephemeral and "I could not post in" in reply.text()
    assert (await subscription(db)).active and (await subscription(db)).paused_reason == "forbidden"
    [settings] = await discord_.command("settings", ADMIN_USER, permissions=ADMIN)
    assert "Paused: on " in settings.text() and "Posted at 09:30" in settings.text()
    defer, _post, reply = await discord_.command("daily", ADMIN_USER, permissions=ADMIN)  # permission granted again
    assert "Posted a question in" in reply.text()
    assert (await subscription(db)).paused_at is None
    [settings] = await discord_.command("settings", ADMIN_USER, permissions=ADMIN)
    assert "Paused" not in settings.text()


async def test_a_refused_reveal_pauses_the_daily_question(discord_, recorder, core, clock, db) -> None:
    await discord_.command("subscribe", ADMIN_USER, permissions=ADMIN, time="09:30")
    await discord_.command("daily", ADMIN_USER, permissions=ADMIN)
    recorder.fail("PATCH", f"/messages/{last_message_id(recorder)}", http_error(403, 50001, "Missing Access"))
    clock.advance(13 * HOUR)
    await core.tick()
    assert (await subscription(db)).active and (await subscription(db)).paused_reason == "forbidden"


async def test_an_unknown_channel_still_switches_the_daily_question_off(discord_, recorder, core, clock, db) -> None:
    clock.set(at("2026-05-04 08:00"))
    await discord_.command("subscribe", ADMIN_USER, permissions=ADMIN, time="09:30", timezone="Europe/Istanbul")
    recorder.fail("POST", f"/channels/{CHANNEL_ID}/messages", http_error(404, 10003, "Unknown Channel"))
    clock.set(at("2026-05-04 09:30"))
    await core.tick()
    gone = await subscription(db)
    assert not gone.active and gone.paused_at is None
    [settings] = await discord_.command("settings", ADMIN_USER, permissions=ADMIN)
    assert "This chat has no daily question" in settings.text()


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
