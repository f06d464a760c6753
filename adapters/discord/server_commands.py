"""Slash commands for a server channel: the daily question (Manage Server), settings and boards.

Daily questions are per channel: /subscribe and /unsubscribe take a channel (default: this one).
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from adapters.discord import choices
from adapters.discord.people import chat_ref, user_ref
from adapters.discord.places import anywhere, server_only
from adapters.discord.replies import defer, in_time, send, tell
from adapters.discord.translator import option_about as about
from adapters.discord.translator import option_name as option
from adapters.discord.translator import text
from bot.core import Core
from bot.text.i18n import t
from bot.text.messages import Message

log = logging.getLogger(__name__)
Channel = discord.TextChannel


def core_of(interaction: discord.Interaction) -> Core:
    """The Core the client serves (InterviewClient.core)."""
    return interaction.client.core  # type: ignore[attr-defined]


@app_commands.command(name="daily", description=text("discord.command.daily"))
@app_commands.rename(topic=option("topic"))
@app_commands.describe(topic=about("topic"))
@app_commands.autocomplete(topic=choices.topic)
@server_only(manage_guild=True)
async def daily(interaction: discord.Interaction, topic: str | None = None) -> None:
    """Post a daily question in this channel now (from `topic`, a bank topic or deck:NAME, when given)."""
    core, chat = core_of(interaction), chat_ref(interaction)
    await defer(interaction, ephemeral=True)  # posting goes through the store and Discord's HTTP API
    language = await core.language(user_ref(interaction), chat)
    posted = await core.post_daily_now(chat, topic=choices.topic_named(core, topic))
    channel = f"<#{chat.platform_id}>"
    await tell(interaction, t(language, "discord.daily_posted" if posted else "discord.daily_failed", channel=channel))
    log.info("channel %s: /daily by user %s: %s", chat.platform_id, interaction.user.id, "posted" if posted else "failed")


@app_commands.command(name="subscribe", description=text("discord.command.subscribe"))
@app_commands.rename(time=option("time"), timezone=option("timezone"), topic=option("topic"),
                     channel=option("channel"))
@app_commands.describe(time=about("time"), timezone=about("timezone"), topic=about("topic"),
                       channel=about("channel"))
@app_commands.autocomplete(timezone=choices.timezone, topic=choices.topic)
@server_only(manage_guild=True)
async def subscribe(interaction: discord.Interaction, time: app_commands.Range[str, 1, 5], timezone: str = "UTC",
                    topic: str | None = None, channel: Channel | None = None) -> None:
    """Post a daily question in a channel at a set local time."""
    core, chat = core_of(interaction), chat_ref(interaction, channel)
    confirmation = await in_time(interaction, core.subscribe(chat, time, timezone, topic))
    log.info("channel %s: subscribed by user %s at %s %s", chat.platform_id, interaction.user.id, time, timezone)
    await tell(interaction, f"<#{chat.platform_id}>: {confirmation}", ephemeral=False)


@app_commands.command(name="unsubscribe", description=text("discord.command.unsubscribe"))
@app_commands.rename(channel=option("channel"))
@app_commands.describe(channel=about("channel"))
@server_only(manage_guild=True)
async def unsubscribe(interaction: discord.Interaction, channel: Channel | None = None) -> None:
    """Stop a channel's daily question."""
    core, chat = core_of(interaction), chat_ref(interaction, channel)
    confirmation = await in_time(interaction, core.unsubscribe(chat))
    log.info("channel %s: unsubscribed by user %s", chat.platform_id, interaction.user.id)
    await tell(interaction, f"<#{chat.platform_id}>: {confirmation}", ephemeral=False)


@app_commands.command(name="settings", description=text("discord.command.settings"))
@app_commands.rename(channel=option("channel"))
@app_commands.describe(channel=about("channel"))
@server_only()
async def settings(interaction: discord.Interaction, channel: Channel | None = None) -> None:
    """A channel's daily-question settings."""
    core = core_of(interaction)  # only the member who asked sees the reply: in their language
    shown = core.settings(chat_ref(interaction, channel), user_ref(interaction))
    await send(interaction, await in_time(interaction, shown, ephemeral=True), ephemeral=True)


@app_commands.command(name="leaderboard", description=text("discord.command.leaderboard"))
@app_commands.rename(period=option("period"))
@app_commands.describe(period=about("period"))
@app_commands.choices(period=[app_commands.Choice(name=text(f"discord.choice.{p}"), value=p)
                              for p in ("week", "month", "all")])
@server_only()
async def leaderboard(interaction: discord.Interaction, period: str = "week") -> None:
    """This channel's leaderboard."""
    core = core_of(interaction)
    board = await in_time(interaction, core.leaderboard(chat_ref(interaction), user_ref(interaction), period))  # type: ignore[arg-type]
    await send(interaction, board)


@app_commands.command(name="groups", description=text("discord.command.groups"))
@anywhere()
async def groups(interaction: discord.Interaction) -> None:
    """Study groups ranked against each other."""
    core = core_of(interaction)

    async def board() -> Message:
        return await core.groups_leaderboard(await core.language(user_ref(interaction), chat_ref(interaction)))

    await send(interaction, await in_time(interaction, board()))


SERVER_COMMANDS: tuple[app_commands.Command, ...] = (daily, subscribe, unsubscribe, settings, leaderboard, groups)
