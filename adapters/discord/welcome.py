"""The first minute in a server: one short welcome in its system channel, when the bot may post there.

Discord has no "added to a channel" event for a bot; joining a server (GUILD_CREATE for a new guild,
`on_guild_join`) is the moment. The server's system channel is where Discord itself greets people;
without one, or without the right to post there, the bot stays quiet rather than pick a channel.
"""

from __future__ import annotations

import logging

import discord

from adapters.discord.render import render
from bot.core import ChatRef, Core
from bot.text.commands import group_welcome_message

log = logging.getLogger(__name__)


def welcome_channel(guild: discord.Guild) -> discord.TextChannel | None:
    """The system channel, if the bot can post an embed there."""
    channel, me = guild.system_channel, guild.me
    if channel is None or me is None:
        return None
    allowed = channel.permissions_for(me)
    return channel if allowed.view_channel and allowed.send_messages and allowed.embed_links else None


async def welcome_server(core: Core, guild: discord.Guild) -> bool:
    """Say what the bot does and how the daily question starts; True when the welcome was posted."""
    channel = welcome_channel(guild)
    if channel is None:
        log.info("server %d: joined; no system channel to greet in", guild.id)
        return False
    place = ChatRef("discord", str(channel.id), "group", guild.name, str(guild.preferred_locale))
    language = await core.language(chat=place)
    try:
        for part in render(group_welcome_message(language, "discord.group_welcome_start")):
            await channel.send(**part.send_kwargs())
    except discord.HTTPException as error:
        log.warning("server %d: the welcome failed: %s %s", guild.id, error.status, error.code)
        return False
    log.info("server %d: joined; welcome posted in channel %d", guild.id, channel.id)
    return True
