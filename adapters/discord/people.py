"""Who and where an interaction comes from, as the core's platform-neutral UserRef and ChatRef.

Daily questions are per channel, so a chat is a channel (or a DM channel), never a whole server.
"""

from __future__ import annotations

import discord

from bot.domain import ChatRef, UserRef

PLATFORM = "discord"


def is_private(interaction: discord.Interaction) -> bool:
    """A DM with the bot (no server)."""
    return interaction.guild_id is None


def user_ref(interaction: discord.Interaction) -> UserRef:
    user = interaction.user
    return UserRef(PLATFORM, str(user.id), user.display_name, str(interaction.locale))


def chat_ref(interaction: discord.Interaction, channel: discord.abc.Snowflake | None = None) -> ChatRef:
    """The channel the interaction came from, or `channel` (a command's channel option) in the same server."""
    if channel is None and is_private(interaction):
        return ChatRef(PLATFORM, str(interaction.channel_id), "private", "", str(interaction.guild_locale or ""))
    target = channel or interaction.channel
    channel_id = target.id if target is not None else interaction.channel_id
    name = getattr(target, "name", None) or ""
    return ChatRef(PLATFORM, str(channel_id), "group", name, str(interaction.guild_locale or ""))


def channel_ref(channel: discord.abc.GuildChannel) -> ChatRef:
    """A server channel the bot was not asked anything in (it joined or left the server)."""
    return ChatRef(PLATFORM, str(channel.id), "group", channel.name, str(channel.guild.preferred_locale or ""))
