"""A chat that refuses the bot for now (a lost permission) pauses its daily question, still scheduled, and
the next post that gets through resumes it; a chat that is gone stops it for good. On both backends."""

from __future__ import annotations

import logging
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.domain import ChatRef, UserRef
from bot.port import ChatForbidden, ChatGone
from bot.store import Database
from bot.store.copy import copy_store
from bot.store.daily import get_subscription
from bot.store.migrations import statements
from bot.store.people import find_chat
from bot.text.plaintext import render_plain

GROUP = ChatRef("test", "g1", "group", "Study group")
MEMBER_TR = UserRef("test", "u1", "Ayşe", "tr")
MEMBER_EN = UserRef("test", "u2", "Ann", "en-GB")
REFUSED = "403 50013: Missing Permissions"


def at(text: str, tz: str = "UTC") -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(tz)).timestamp()


async def subscription_of(db: Database, chat: ChatRef = GROUP):
    record = await find_chat(db, chat.platform, chat.platform_id)
    return await get_subscription(db, record.id)


async def test_a_refused_post_pauses_and_the_next_post_that_gets_through_resumes(core, clock, port, db,
                                                                                 caplog) -> None:
    clock.set(at("2026-05-04 07:00", "Europe/Istanbul"))
    await core.subscribe(GROUP, "09:00", "Europe/Istanbul")
    port.failures = {"g1": ChatForbidden(REFUSED)}
    clock.set(at("2026-05-04 09:00", "Europe/Istanbul"))
    with caplog.at_level(logging.WARNING, logger="bot.daily.chats"):
        summary = await core.daily.run_due()
    assert summary.failed == 1 and port.sent == []
    paused = await subscription_of(db)
    assert paused.active, "the subscription stays: the channel is still there"
    assert (paused.paused_at, paused.paused_reason) == (clock.now(), "forbidden")
    chat = await find_chat(db, "test", "g1")
    [line] = [record.getMessage() for record in caplog.records if record.name == "bot.daily.chats"]
    assert f"chat {chat.id} (test g1)" in line and REFUSED in line and "paused" in line
    row = await db.fetch_one("SELECT state, error FROM daily_posts")
    assert row["state"] == "failed" and row["error"] == f"forbidden: {REFUSED}"

    turkish = render_plain(await core.settings(GROUP, MEMBER_TR))
    assert "Duraklatıldı: 2026-05-04 tarihinde bu kanalda Mesaj Gönder" in turkish
    english = render_plain(await core.settings(GROUP, MEMBER_EN))
    assert "Paused: on 2026-05-04 I lost the Send Messages or View Channel permission" in english
    assert "resume by themselves once that permission is granted again" in english

    clock.set(at("2026-05-05 09:00", "Europe/Istanbul"))  # still scheduled: tomorrow's post is tried as usual
    assert (await core.daily.run_due()).posted == 1 and len(port.sent_to("g1")) == 1
    resumed = await subscription_of(db)
    assert resumed.active and resumed.paused_at is None and resumed.paused_reason is None
    assert "Paused" not in render_plain(await core.settings(GROUP, MEMBER_EN))


async def test_a_pause_that_goes_on_keeps_the_day_it_began(core, clock, port, db) -> None:
    clock.set(at("2026-05-04 07:00"))
    await core.subscribe(GROUP, "09:00", "UTC")
    for day in ("2026-05-04", "2026-05-05"):
        port.failures = {"g1": ChatForbidden(REFUSED)}
        clock.set(at(f"{day} 09:00"))
        await core.daily.run_due()
    assert (await subscription_of(db)).paused_at == at("2026-05-04 09:00")
    assert "on 2026-05-04" in render_plain(await core.settings(GROUP, MEMBER_EN))


async def test_a_refused_reveal_pauses_too(core, clock, port, db) -> None:
    clock.set(at("2026-05-04 07:00"))
    await core.subscribe(GROUP, "09:00", "UTC")
    clock.set(at("2026-05-04 09:00"))
    await core.daily.run_due()

    async def refuse(chat, ref, message) -> None:
        raise ChatForbidden("403 50001: Missing Access")

    port.edit = refuse
    clock.set(at("2026-05-04 21:00"))
    assert (await core.daily.run_due()).revealed == 1
    subscription = await subscription_of(db)
    assert subscription.active and subscription.paused_reason == "forbidden"
    assert (await db.fetch_one("SELECT state FROM daily_posts"))["state"] == "revealed", "not retried"


async def test_a_gone_chat_still_stops_for_good(core, clock, port, db) -> None:
    clock.set(at("2026-05-04 07:00"))
    await core.subscribe(GROUP, "09:00", "UTC")
    port.failures = {"g1": ChatGone("404 10003: Unknown Channel")}
    clock.set(at("2026-05-04 09:00"))
    await core.daily.run_due()
    subscription = await subscription_of(db)
    assert not subscription.active and subscription.paused_at is None
    clock.set(at("2026-05-05 09:00"))
    await core.daily.run_due()
    assert port.sent == [], "no more posts"


async def test_unsubscribing_ends_a_pause(core, clock, port, db) -> None:
    clock.set(at("2026-05-04 07:00"))
    await core.subscribe(GROUP, "09:00", "UTC")
    port.failures = {"g1": ChatForbidden(REFUSED)}
    clock.set(at("2026-05-04 09:00"))
    await core.daily.run_due()
    await core.unsubscribe(GROUP)
    await core.subscribe(GROUP, "10:00", "UTC")
    assert (await subscription_of(db)).paused_at is None
    assert "Paused" not in render_plain(await core.settings(GROUP, MEMBER_EN))


async def test_a_manual_post_in_a_chat_without_a_subscription_pauses_nothing(core, port, db, caplog) -> None:
    port.failures = {"g1": ChatForbidden(REFUSED)}
    with caplog.at_level(logging.WARNING, logger="bot.daily.chats"):
        assert not await core.post_daily_now(GROUP)
    assert "no daily question to pause" in caplog.text
    assert await subscription_of(db) is None


async def test_an_older_store_upgrades_with_its_subscriptions_unpaused(empty_store) -> None:
    async with await Database.open(empty_store, migrate_to=9) as old:
        async with old.transaction() as connection:
            for statement in statements("""
                INSERT INTO chats (id, platform, platform_chat_id, kind, created_at) VALUES (1, 't', 'g', 'group', 1);
                INSERT INTO subscriptions (chat_id, post_time, timezone, reveal_after_s, active, created_at,
                                           updated_at, next_post_at) VALUES (1, '09:00', 'UTC', 43200, 1, 1, 1, 5);"""):
                await connection.execute(statement)
    async with await Database.open(empty_store) as db:
        subscription = await get_subscription(db, 1)
        assert subscription.active and subscription.paused_at is None and subscription.paused_reason is None


async def test_a_pause_moves_with_the_store(tmp_path, postgres_url, bank, clock) -> None:
    """`interview-bot db copy` takes every column, the pause's too (SQLite to PostgreSQL)."""
    import random

    from bot.core import Core
    from tests.fakes import RecordingPort

    async with await Database.open(tmp_path / "a.sqlite3") as source, await Database.open(postgres_url) as target:
        core = Core(source, bank, clock, random.Random(3), scheduled=False)
        port = RecordingPort(failures={"g1": ChatForbidden(REFUSED)})
        core.add_port(port)
        await core.subscribe(GROUP, "09:00", "UTC")
        await core.post_daily_now(GROUP)
        await copy_store(source, target)
        moved = await subscription_of(target)
        assert moved == await subscription_of(source) and moved.paused_reason == "forbidden"
