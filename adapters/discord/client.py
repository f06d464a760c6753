"""The Discord client: slash commands, answer buttons registered at start-up, the core's delivery port.

`serve()` runs it until the stop event is set (called by adapters/runner.py, alone or beside
Telegram over the same Core). No privileged intents: slash commands and buttons need none.
"""

from __future__ import annotations

import asyncio
import logging

import discord
from discord import app_commands

from adapters.common.flood import CommandFlood
from adapters.discord.clicks import answer_click
from adapters.discord.buttons import AnswerButton, is_answer_custom_id
from adapters.discord.commands import add_commands
from adapters.discord.delivery import DiscordPort
from adapters.discord.errors import Flooding, on_app_command_error, refuse_unknown_component
from adapters.discord.metrics import MeteredTree, count_rate_limits
from adapters.discord.people import channel_ref
from adapters.discord.translator import CatalogTranslator
from adapters.discord.welcome import welcome_server
from bot.app.config import Settings
from bot.core import Core
from bot.metrics import in_flight

log = logging.getLogger(__name__)


def quiet_voice_warnings() -> None:
    """The bot has no voice: do not warn at start-up that voice libraries are missing."""
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False


def intents() -> discord.Intents:
    """Only the guilds intent (not privileged): channels in the cache for the /subscribe channel option."""
    return discord.Intents(guilds=True)


class GuardedTree(MeteredTree):
    """The command tree with the flood guard every platform has: past a member's few commands in ten
    seconds, one "slow down" note and a short "skipped" line for the rest, before any store work; a
    member's own command with the same options repeated within seconds gets "already being answered".
    Every interaction is answered (errors.on_app_command_error): Discord shows an unanswered one as a
    failure."""

    def __init__(self, client: discord.Client, flood: CommandFlood, **options: object) -> None:
        super().__init__(client, **options)  # type: ignore[arg-type]
        self.flood = flood

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.type is not discord.InteractionType.application_command:
            return True  # autocomplete and buttons are not commands
        verdict = self.flood.check(str(interaction.user.id), str(interaction.channel_id), command_text(interaction))
        if verdict != "ok":
            raise Flooding(verdict)
        return True


def command_text(interaction: discord.Interaction) -> str:
    """The command as typed: its name and its options' values, for the flood guard's repeat check."""
    data = interaction.data or {}
    return f"/{data.get('name', '')} {_options_text(data.get('options'))}".strip()


def _options_text(options: object) -> str:
    """`name=value` for each option; a subcommand (/quiz start) as its name and its own options."""
    words = []
    for option in options if isinstance(options, list) else ():
        if not isinstance(option, dict):
            continue
        if "options" in option:
            words.append(f"{option.get('name')} {_options_text(option['options'])}".strip())
        else:
            words.append(f"{option.get('name')}={option.get('value')}")
    return " ".join(words)


class InterviewClient(discord.Client):
    """A discord.Client with the bot's command tree; every state change goes through `core`."""

    def __init__(self, core: Core, *, sync: bool = False, sync_guild: int | None = None,
                 flood: CommandFlood | None = None, **options: object) -> None:
        quiet_voice_warnings()
        super().__init__(intents=intents(), allowed_mentions=discord.AllowedMentions.none(), **options)  # type: ignore[arg-type]
        self.core = core
        self.sync, self.sync_guild = sync, sync_guild
        self.tree = GuardedTree(self, flood or CommandFlood(),
                                allowed_installs=app_commands.AppInstallationType(guild=True, user=False))
        count_rate_limits()
        self.tree.error(on_app_command_error)
        add_commands(self.tree)
        self.port = DiscordPort(self, core)
        self.response_budget = 1.5

    async def setup_hook(self) -> None:
        """Buttons of any earlier message answer again; commands are translated (and synced)."""
        self.add_dynamic_items(AnswerButton)
        await self.tree.set_translator(CatalogTranslator())
        self.core.add_port(self.port)
        if self.sync:
            await self.sync_commands()

    async def sync_commands(self) -> int:
        """Send the command tree to Discord: to one server (instant) or globally (up to an hour)."""
        if self.sync_guild is not None:
            guild = discord.Object(id=self.sync_guild)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to server %d", len(synced), self.sync_guild)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))
        return len(synced)

    async def on_ready(self) -> None:
        log.info("connected to Discord as %s (%s)", self.user, self.user.id if self.user else "?")

    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Added to a server: one short welcome in its system channel, if the bot may post there; the decks
        of its channels (if it was there before) stay."""
        for channel in guild.channels:
            await self.core.bot_joined_chat(channel_ref(channel))
        await welcome_server(self.core, guild)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed from a server (or the server is gone): its channels' decks are deleted in 30 days unless
        the bot is back by then."""
        log.info("removed from server %d", guild.id)
        for channel in guild.channels:
            await self.core.bot_left_chat(channel_ref(channel))

    async def answer_click(self, interaction: discord.Interaction, token: str) -> None:
        """An answer button was pressed (AnswerButton.callback): the core decides, the clicker is answered."""
        with in_flight("discord"):
            await answer_click(interaction, token)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Clicks that no answer button handles (forged, or not on the message) get a polite refusal."""
        if interaction.type is discord.InteractionType.component:
            await refuse_unknown_component(interaction, handled_by_buttons(interaction))

    async def close(self) -> None:
        await self.port.counters.close()
        self.core.remove_port(self.port)
        await super().close()

    def holds(self, channel_id: int) -> bool:
        """Whether this process is the one to post in the channel: an unsharded bot holds every channel."""
        return True


class ShardedInterviewClient(InterviewClient, discord.AutoShardedClient):
    """The same client over several gateway shards (a big bot); processes with disjoint shard ids share
    one PostgreSQL store, and the store's claims keep each daily post and reveal to one of them: to the
    process that runs the shard of the channel's server (`holds`)."""

    def __init__(self, core: Core, **options: object) -> None:
        super().__init__(core, **options)
        ids, count = self.shard_ids or [], self.shard_count or 1
        self.port.posts_per_second *= len(ids) / count  # the bot's overall send limit, shared by its processes

    def holds(self, channel_id: int) -> bool:
        """Whether the channel's server is on one of this process's shards, `(guild_id >> 22) % shard_count`
        as Discord routes its events. A process that runs every shard holds every channel; otherwise the
        guilds intent's cache tells: it has the channels of the servers our shards delivered, none of any
        other process's (nor any before our shards are ready, so their posts wait for them)."""
        ids, count = self.shard_ids or [], self.shard_count or 1
        if set(range(count)) <= set(ids):
            return True
        guild = getattr(self.get_channel(channel_id), "guild", None)
        return guild is not None and (guild.id >> 22) % count in ids


def make_client(core: Core, *, sync_guild: int | None = None, shard_count: int | None = None,
                shard_ids: list[int] | None = None) -> InterviewClient:
    """One client for this process: unsharded, or the shards it was given. Commands are synced by the
    process that runs shard 0 only (every process would send the same tree)."""
    if shard_count is None:
        return InterviewClient(core, sync=True, sync_guild=sync_guild)
    ids = shard_ids if shard_ids is not None else list(range(shard_count))
    return ShardedInterviewClient(core, sync=0 in ids, sync_guild=sync_guild, shard_count=shard_count, shard_ids=ids)


def handled_by_buttons(interaction: discord.Interaction) -> bool:
    """Whether discord.py will hand this click to an AnswerButton: our template, and on the message."""
    custom_id = str((interaction.data or {}).get("custom_id", ""))
    if not is_answer_custom_id(custom_id) or interaction.message is None:
        return False
    return any(getattr(child, "custom_id", None) == custom_id
               for row in interaction.message.components for child in getattr(row, "children", (row,)))


async def serve(core: Core, settings: Settings, stop_event: asyncio.Event, *, sync_guild: int | None = None,
                shard_count: int | None = None, shard_ids: list[int] | None = None) -> None:
    """Log in, sync the commands, catch up on missed posts, and stay connected until `stop_event` is set."""
    client = make_client(core, sync_guild=sync_guild, shard_count=shard_count, shard_ids=shard_ids)
    async with client:
        await client.login(settings.discord_token or "")
        catch_up = asyncio.create_task(core.tick(), name="discord-catch-up")  # the core started before our port
        connection = asyncio.create_task(client.connect(), name="discord-gateway")
        stopping = asyncio.create_task(stop_event.wait(), name="discord-stop")
        done, _ = await asyncio.wait({connection, stopping}, return_when=asyncio.FIRST_COMPLETED)
        await client.close()
        for task in (catch_up, connection, stopping):
            if not task.done():
                task.cancel()
        await asyncio.gather(catch_up, connection, stopping, return_exceptions=True)
        if connection in done and connection.exception() is not None:
            raise connection.exception()  # type: ignore[misc]
    log.info("Discord client stopped")
