"""What a server sees first on Discord: the welcome in its system channel when the bot joins; the
daily question's reveal as Discord timestamps (each reader's own time); a report's next step."""

from __future__ import annotations

from typing import Any

import discord

from adapters.discord.render import render
from bot.text.messages import CommandHint, Message, Moment, Paragraph
from tests.adapters.discord.harness import ADMIN, BOT_ID, CHANNEL_ID, GUILD_ID, settle, user

ADMIN_USER = user(10, "Admin")
SYSTEM_CHANNEL_ID = CHANNEL_ID


def guild_create(*, system_channel: int | None = SYSTEM_CHANNEL_ID, locale: str = "en-US",
                 everyone: int = discord.Permissions(view_channel=True, send_messages=True, embed_links=True).value,
                 ) -> dict[str, Any]:
    """GUILD_CREATE for a server the bot was just added to (the bot is its only cached member)."""
    bot_member = {"user": {"id": str(BOT_ID), "username": "interview-bot", "discriminator": "0", "bot": True,
                           "avatar": None}, "roles": [], "joined_at": "2026-12-01T09:00:00+00:00", "deaf": False,
                  "mute": False, "flags": 0}
    return {
        "id": str(GUILD_ID), "name": "ML study", "owner_id": "1", "preferred_locale": locale,
        "system_channel_id": str(system_channel) if system_channel else None, "member_count": 2,
        "roles": [{"id": str(GUILD_ID), "name": "@everyone", "permissions": str(everyone), "position": 0,
                   "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0}],
        "channels": [{"id": str(SYSTEM_CHANNEL_ID), "type": 0, "name": "general", "position": 0,
                      "permission_overwrites": [], "nsfw": False, "parent_id": None}],
        "members": [bot_member], "emojis": [], "stickers": [], "features": [], "threads": [],
        "voice_states": [], "presences": [], "stage_instances": [], "guild_scheduled_events": [],
        "verification_level": 0, "default_message_notifications": 0, "explicit_content_filter": 0,
        "mfa_level": 0, "nsfw_level": 0, "premium_tier": 0, "afk_timeout": 300, "large": False,
    }


async def join(discord_, recorder, **options: Any) -> list:
    mark = len(recorder.requests)
    discord_.client._connection.parse_guild_create(guild_create(**options))
    await settle()
    return recorder.since(mark)


async def test_joining_a_server_greets_its_system_channel(discord_, recorder) -> None:
    [welcome] = await join(discord_, recorder)
    assert welcome.method == "POST" and welcome.path == f"/channels/{SYSTEM_CHANNEL_ID}/messages"
    text = welcome.text()
    assert "Hello! I am interview-bot" in text and "one ML-engineering interview question a day" in text
    assert "`/subscribe time:09:00 timezone:Europe/Istanbul`" in text


async def test_a_turkish_server_is_greeted_in_turkish(discord_, recorder) -> None:
    [welcome] = await join(discord_, recorder, locale="tr")
    assert "Merhaba! Ben interview-bot" in welcome.text() and "Sunucuyu Yönet" in welcome.text()


async def test_no_system_channel_or_no_right_to_post_means_silence(discord_, recorder) -> None:
    assert await join(discord_, recorder, system_channel=None) == []
    assert await join(discord_, recorder, everyone=discord.Permissions(view_channel=True).value) == []


def test_a_moment_is_a_discord_timestamp_in_the_body_and_a_command_is_code() -> None:
    message = Message((Paragraph("Daily question · Sync · easy", "title"), Paragraph("What?"),
                       Paragraph("Answer revealed: {slot}.", "muted", Moment(1_800_000_000, "21:00, Europe/Istanbul"))),
                      ())
    [part] = render(message)
    embed = part.embeds[0].to_dict()
    assert embed["description"].endswith("*Answer revealed: <t:1800000000:t> (<t:1800000000:R>).*")
    assert "21:00" not in str(embed), "each reader sees their own time, not the server's zone"
    step = Message((Paragraph("Practise {slot}", inline=CommandHint("interview", "sync-basics")),
                    Paragraph("Due: {slot}", inline=CommandHint("review"))))
    [[embed]] = [[e.to_dict() for e in part.embeds] for part in render(step)]
    assert embed["description"] == "Practise `/interview topic:sync-basics`\n\nDue: `/review`"


async def test_the_daily_post_carries_the_reveal_as_timestamps(discord_, recorder, core, clock) -> None:
    _defer, post, _confirmation = await discord_.command("daily", ADMIN_USER, permissions=ADMIN)
    reveal_at = round((await core.db.fetch_one("SELECT reveal_at FROM daily_posts"))[0])
    description = post.json["embeds"][0]["description"]
    assert f"<t:{reveal_at}:t> (<t:{reveal_at}:R>)" in description
    assert "<t:" not in post.json["embeds"][0]["footer"]["text"], "footers show no timestamps"
