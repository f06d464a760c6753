"""/quiz start and /quiz stop: a live quiz round in a server channel, one app_commands Group.

The command only starts or stops the round in the core; the round's questions, results and final ranking
are posted by the core's quiz timer through the DiscordPort (buttons and a relative timestamp: Discord has
no native quiz poll), and clicks on those buttons reach the core as every answer button does (clicks.py).
A Group, so the place (server channels only) is set once and `/quiz stop` is the command the core's lines
name. In a DM (a stale client) the core answers with its own "groups only" line, in Discord's words.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from adapters.discord import choices
from adapters.discord.people import chat_ref, is_private, user_ref
from adapters.discord.replies import in_time, send
from adapters.discord.server_commands import core_of
from adapters.discord.translator import option_about as about
from adapters.discord.translator import option_name as option
from adapters.discord.translator import text
from bot.quiz.service import COUNT_RANGE, DEFAULT_COUNT, DEFAULT_SECONDS, SECONDS_RANGE

log = logging.getLogger(__name__)

quiz = app_commands.Group(name="quiz", description=text("discord.command.quiz"),
                          allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=False,
                                                                          private_channel=False))


@quiz.command(name="start", description=text("discord.command.quiz_start"))
@app_commands.rename(topic=option("topic"), count=option("questions"), seconds=option("seconds"),
                     difficulty=option("difficulty"))
@app_commands.describe(topic=about("topic"), count=about("questions"), seconds=about("seconds"),
                       difficulty=about("difficulty"))
@app_commands.choices(difficulty=[app_commands.Choice(name=text(f"difficulty.{n}"), value=n) for n in (1, 2, 3)])
@app_commands.autocomplete(topic=choices.topic)
async def start(interaction: discord.Interaction, topic: str | None = None,
                count: app_commands.Range[int, COUNT_RANGE[0], COUNT_RANGE[1]] = DEFAULT_COUNT,
                seconds: app_commands.Range[int, SECONDS_RANGE[0], SECONDS_RANGE[1]] = DEFAULT_SECONDS,
                difficulty: int | None = None) -> None:
    """Start a quiz round in this channel; its first question follows at once."""
    core, chat = core_of(interaction), chat_ref(interaction)
    started = await in_time(interaction, core.start_quiz(user_ref(interaction), chat, choices.topic_named(core, topic),
                                                         count, seconds, difficulty))
    log.info("channel %s: quiz started by user %s (%d questions, %d s, topic %s)", chat.platform_id,
             interaction.user.id, count, seconds, topic)
    await send(interaction, started)


@quiz.command(name="stop", description=text("discord.command.quiz_stop"))
async def stop(interaction: discord.Interaction) -> None:
    """Stop this channel's round: its starter, or a member with Manage Server."""
    core, chat = core_of(interaction), chat_ref(interaction)
    is_admin = not is_private(interaction) and interaction.permissions.manage_guild
    stopping = await in_time(interaction, core.stop_quiz(user_ref(interaction), chat, is_admin))
    log.info("channel %s: quiz stop by user %s (admin: %s)", chat.platform_id, interaction.user.id, is_admin)
    await send(interaction, stopping)


QUIZ_COMMANDS: tuple[app_commands.Group, ...] = (quiz,)
