"""When something goes wrong in an interaction: a log line for us, a polite ephemeral text for the user.

Never a traceback in Discord. A user's own mistake (a bad time, an unknown topic) gets the core's
message; a missing permission or the wrong place gets ours; anything else is logged with its
traceback and answered with "something went wrong".
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from adapters.discord.people import chat_ref, user_ref
from adapters.discord.translator import language_of
from bot.errors import UserError
from bot.text.i18n import catalog, t, user_error_text

log = logging.getLogger(__name__)


class WrongPlace(app_commands.CheckFailure):
    """A command used where it does not work (a DM command in a server, or the reverse)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


FLOOD_LINES = {"note": "flood.slow_down", "repeat": "flood.repeat", "drop": "flood.skipped"}


class Flooding(app_commands.CheckFailure):
    """A command the flood guard stopped: "note" (the one "slow down"), "repeat" (the sender's same command
    is being answered) or "drop" (past the limit, after the note). Each still gets a short ephemeral line:
    Discord shows "The application did not respond" for an interaction left unanswered."""

    def __init__(self, verdict: str) -> None:
        super().__init__(verdict)
        self.verdict = verdict


async def language_for(interaction: discord.Interaction) -> str:
    """The user's language from the store, else from their Discord locale; never fails."""
    try:
        return await interaction.client.core.language(user_ref(interaction), chat_ref(interaction))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - the store may be what failed
        return language_of(interaction.locale) or "en"


async def say(interaction: discord.Interaction, text: str) -> None:
    """An ephemeral text, as the response or a follow-up; an expired interaction is only logged."""
    try:
        if not interaction.response.is_done():
            await interaction.response.send_message(text, ephemeral=True)
        else:
            await interaction.followup.send(text, ephemeral=True)
    except discord.HTTPException as error:
        log.warning("interaction %s: could not tell the user (%s)", interaction.id, error)


def explain(error: BaseException, language: str) -> str | None:
    """The user's text for an expected failure, None for a bug."""
    if isinstance(error, UserError):
        worded = f"discord.{error.key}"  # the core's line in Discord's words (its commands, "server channel")
        return t(language, worded, **error.values) if worded in catalog(language) else user_error_text(language, error)
    if isinstance(error, WrongPlace):
        return t(language, error.key)
    if isinstance(error, (app_commands.MissingPermissions, app_commands.NoPrivateMessage)):
        return t(language, "discord.manage_server_only" if isinstance(error, app_commands.MissingPermissions)
                 else "discord.server_only")
    if isinstance(error, app_commands.TransformerError):
        return t(language, "discord.not_text_channel")
    return None


async def report_failure(interaction: discord.Interaction, error: BaseException) -> None:
    """Log the failure and tell the user politely."""
    language = await language_for(interaction)
    text = explain(error, language)
    where = f"interaction {interaction.id} user {interaction.user.id if interaction.user else '?'} " \
            f"channel {interaction.channel_id}"
    if text is None:
        log.error("%s failed", where, exc_info=error)
        text = t(language, "help.something_wrong")
    else:
        log.info("%s refused: %s", where, type(error).__name__)
    await say(interaction, text)


async def on_app_command_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
    """The command tree's error handler."""
    original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
    if isinstance(original, Flooding):
        if original.verdict == "note":
            log.info("user %s: commands flooding in channel %s; one note, the rest answered briefly",
                     interaction.user.id if interaction.user else "?", interaction.channel_id)
        key = FLOOD_LINES.get(original.verdict, "flood.skipped")
        await say(interaction, t(language_of(interaction.locale) or "en", key))  # no store work
        return
    await report_failure(interaction, original)


async def refuse_unknown_component(interaction: discord.Interaction, is_ours: bool) -> None:
    """A click whose custom_id no button handles (forged or from an old format): a polite refusal."""
    if is_ours or interaction.response.is_done():
        return
    log.info("interaction %s: unknown component %r refused", interaction.id,
             str((interaction.data or {}).get("custom_id", ""))[:100])
    await say(interaction, t(await language_for(interaction), "refusal.unknown"))
