"""A daily question in a server channel: posted through the port, answered by several members
(ephemeral feedback each, one debounced counter edit), revealed by an edit after the clock moves."""

from __future__ import annotations

from bot.store.daily import get_subscription
from bot.store.people import find_chat
from tests.adapters.discord.harness import ADMIN, APP_ID, CHANNEL_ID, OTHER_CHANNEL_ID, feed_many, last_message_id, user
from tests.adapters.discord.helpers import answer_count, asked_id_of, letters

ADMIN_USER, ADA, BOB, CEM = user(10, "Admin"), user(1, "Ada"), user(2, "Bob"), user(3, "Cem")
HOUR = 3600


async def post_daily(discord_, recorder) -> tuple[int, int]:
    """/daily by an admin: the question's message id and asked id."""
    defer, post, confirmation = await discord_.command("daily", ADMIN_USER, permissions=ADMIN)
    assert defer.callback_type == 5 and defer.ephemeral, "deferred (thinking, only the admin sees it)"
    assert post.method == "POST" and post.path == f"/channels/{CHANNEL_ID}/messages"
    assert len(post.custom_ids()) >= 2 and post.json["embeds"][0]["footer"]["text"].startswith("Daily question")
    assert confirmation.path == f"/webhooks/{APP_ID}/token-1" and confirmation.ephemeral
    assert f"<#{CHANNEL_ID}>" in confirmation.text()
    message_id = last_message_id(recorder)
    return message_id, asked_id_of(post.custom_ids()[0])


async def test_members_answer_and_the_reveal_edits_the_post(discord_, recorder, core, clock, db, bank) -> None:
    message_id, asked_id = await post_daily(discord_, recorder)
    right, wrong = await letters(db, bank, asked_id)
    burst = [discord_.click_payload(message_id, f"a:{asked_id}:{letter}", who)
             for who, letter in ((ADA, right), (BOB, wrong), (CEM, right))]
    requests = await feed_many(discord_, burst)
    replies = [r for r in requests if r.callback_type is not None]
    assert [r.callback_type for r in replies] == [4, 4, 4] and all(r.ephemeral for r in replies)
    assert ["Right" in r.text() for r in replies] == [True, False, True]
    counters = [r for r in requests if r.method == "PATCH"]
    assert len(counters) == 1, "one counter edit for a burst of clicks"
    assert counters[0].path == f"/channels/{CHANNEL_ID}/messages/{message_id}"
    assert counters[0].json["content"] == "✍️ 3 answered so far" and "embeds" not in counters[0].json, "the count only: never who answered what"

    [again] = await discord_.click(message_id, f"a:{asked_id}:{wrong}", ADA)
    assert again.ephemeral and "only the first answer counts" in again.text()
    assert await answer_count(db) == 3

    before_reveal = dict(recorder.messages[message_id])
    clock.advance(13 * HOUR)
    mark = len(recorder.requests)
    await core.tick()
    [reveal] = recorder.since(mark)
    assert reveal.method == "PATCH" and reveal.path == f"/channels/{CHANNEL_ID}/messages/{message_id}"
    assert reveal.json["components"] == [] and reveal.json["content"] is None
    assert f"The answer is {right.upper()}" in reveal.text() and "3 answered, 67% right" in reveal.text()

    [late] = await discord_.click(message_id, f"a:{asked_id}:{right}", user(4, "Dan"), seen=before_reveal)
    assert late.ephemeral and "closed" in late.text(), "a client still showing the buttons: the store says closed"
    [gone] = await discord_.click(message_id, f"a:{asked_id}:{right}", user(4, "Dan"))
    assert gone.ephemeral and "not valid any more" in gone.text(), "the buttons are no longer on the message"
    assert await answer_count(db) == 3


async def test_leaderboard_after_answers(discord_, recorder, db, bank) -> None:
    message_id, asked_id = await post_daily(discord_, recorder)
    right, _wrong = await letters(db, bank, asked_id)
    await discord_.click(message_id, f"a:{asked_id}:{right}", ADA)
    [board] = await discord_.command("leaderboard", BOB, period="all")
    assert board.callback_type == 4 and not board.ephemeral
    assert "Ada" in board.message["embeds"][0]["description"] and "```" in board.message["embeds"][0]["description"]


async def test_subscribe_settings_and_unsubscribe(discord_, recorder, db) -> None:
    [reply] = await discord_.command("subscribe", ADMIN_USER, permissions=ADMIN, time="09:30",
                                     timezone="Europe/Istanbul")
    assert reply.callback_type == 4 and not reply.ephemeral and "09:30 (Europe/Istanbul)" in reply.text()
    chat = await find_chat(db, "discord", str(CHANNEL_ID))
    assert chat is not None and chat.kind == "group" and chat.title == "ml-study"
    [settings] = await discord_.command("settings", ADA)
    assert settings.ephemeral and "Posted at 09:30 (Europe/Istanbul)" in settings.text()
    [bad] = await discord_.command("subscribe", ADMIN_USER, permissions=ADMIN, time="25:99")
    assert bad.ephemeral and "25:99 is not a time" in bad.text()
    [bye] = await discord_.command("unsubscribe", ADMIN_USER, permissions=ADMIN)
    assert "no more daily questions" in bye.text()


async def test_subscribe_another_channel_by_option(discord_, recorder, db) -> None:
    await discord_.guild_create((CHANNEL_ID, "ml-study"), (OTHER_CHANNEL_ID, "daily-quiz"))
    resolved = {"channels": {str(OTHER_CHANNEL_ID): {"id": str(OTHER_CHANNEL_ID), "name": "daily-quiz", "type": 0,
                                                      "permissions": str(ADMIN)}}}
    [reply] = await discord_.command("subscribe", ADMIN_USER, permissions=ADMIN, resolved=resolved, time="08:00",
                                     channel=str(OTHER_CHANNEL_ID))
    assert f"<#{OTHER_CHANNEL_ID}>" in reply.text()
    chat = await find_chat(db, "discord", str(OTHER_CHANNEL_ID))
    assert chat is not None and chat.title == "daily-quiz"
    assert (await get_subscription(db, chat.id)).post_time == "08:00"


async def test_timezone_autocomplete(discord_) -> None:
    [choices] = await discord_.autocomplete("subscribe", ADMIN_USER, "timezone", "istan")
    names = [choice["name"] for choice in choices.json["data"]["choices"]]
    assert "Europe/Istanbul" in names and len(names) <= 25


async def test_a_turkish_server_reads_settings_in_turkish(discord_) -> None:
    discord_.guild_locale = "tr"
    [settings] = await discord_.command("settings", ADA, locale="tr")
    assert "Bu sohbette günün sorusu yok" in settings.text()
    [settings] = await discord_.command("settings", BOB, locale="en-GB")  # the reply only Bob sees: his language
    assert "This chat has no daily question" in settings.text()
