"""Where a command works, and who may use it: Discord's own settings plus checks on our side.

`allowed_contexts` and `default_permissions` make Discord hide a command where it does not belong;
the checks here refuse it again on the server side, because those settings can be changed by a
server's administrators or bypassed by a stale client.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import discord
from discord import app_commands

from adapters.discord.errors import WrongPlace
from adapters.discord.people import is_private

T = TypeVar("T")


def dm_only() -> Callable[[T], T]:
    """Offered and accepted only in a DM with the bot."""

    def predicate(interaction: discord.Interaction) -> bool:
        if not is_private(interaction):
            raise WrongPlace("discord.dm_only")
        return True

    def decorator(command: T) -> T:
        command = app_commands.allowed_contexts(guilds=False, dms=True, private_channels=False)(command)
        return app_commands.check(predicate)(command)

    return decorator


def server_only(*, manage_guild: bool = False) -> Callable[[T], T]:
    """Offered and accepted only in a server channel; with manage_guild, only for Manage Server."""

    def predicate(interaction: discord.Interaction) -> bool:
        if is_private(interaction):
            raise WrongPlace("discord.server_only")
        if manage_guild and not interaction.permissions.manage_guild:
            raise app_commands.MissingPermissions(["manage_guild"])
        return True

    def decorator(command: T) -> T:
        command = app_commands.allowed_contexts(guilds=True, dms=False, private_channels=False)(command)
        if manage_guild:
            command = app_commands.default_permissions(manage_guild=True)(command)
        return app_commands.check(predicate)(command)

    return decorator


def anywhere() -> Callable[[T], T]:
    """Offered in servers and in DMs."""
    return app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)


def anywhere_managed() -> Callable[[T], T]:
    """Offered in servers and in DMs; in a server it changes the channel for everyone, so only Manage Server
    may use it there (a DM is the person's own). No default_permissions: those would hide it in DMs too."""

    def predicate(interaction: discord.Interaction) -> bool:
        if not is_private(interaction) and not interaction.permissions.manage_guild:
            raise app_commands.MissingPermissions(["manage_guild"])
        return True

    def decorator(command: T) -> T:
        return app_commands.check(predicate)(anywhere()(command))

    return decorator
