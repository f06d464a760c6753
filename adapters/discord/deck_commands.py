"""/deck add, list, remove and export: a channel's own question decks (issue 29), one app_commands Group.

A deck belongs to the channel it was added in, like the channel's daily question. Anyone there may list,
export and play a deck (`deck:NAME` wherever a topic goes); adding, replacing and removing need Manage
Server, checked here on the server side. The group carries no default permissions: those would hide
/deck list from the members who may use it (Discord sets them per top-level command, not per subcommand).

In a DM, /deck list shows the decks of the member's servers and /deck export sends one of them back;
/deck add and /deck remove are refused there (the decks are the channels').

The attachment's size is checked before `attachment.read()` downloads it, so an oversize file costs no
traffic; reading the file, its problems and the stored deck are the core's (bot/decks).
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from adapters.common.uploads import too_large, too_large_text, unreadable_text
from adapters.discord import choices
from adapters.discord.people import chat_ref, user_ref
from adapters.discord.places import server_only
from adapters.discord.replies import defer, in_time, send, send_file, tell
from adapters.discord.server_commands import core_of
from adapters.discord.translator import option_about as about
from adapters.discord.translator import option_name as option
from adapters.discord.translator import text
from bot.limits import DECK_NAME_MAX
from bot.replies import Document
from bot.text.i18n import t

log = logging.getLogger(__name__)

deck = app_commands.Group(name="deck", description=text("discord.command.deck"),
                          allowed_contexts=app_commands.AppCommandContext(guild=True, dm_channel=True,
                                                                          private_channel=False))


async def language_of(interaction: discord.Interaction) -> str:
    return await core_of(interaction).language(user_ref(interaction), chat_ref(interaction))


async def manages(interaction: discord.Interaction) -> bool:
    """Manage Server, or one ephemeral line saying who may."""
    if interaction.permissions.manage_guild:
        return True
    log.info("channel %s: user %s may not change decks", interaction.channel_id, interaction.user.id)
    await tell(interaction, t(await language_of(interaction), "discord.deck.admins_only"))
    return False


@deck.command(name="add", description=text("discord.command.deck_add"))
@app_commands.rename(name=option("deck"), file=option("file"))
@app_commands.describe(name=about("deck"), file=about("file"))
@server_only()
async def add(interaction: discord.Interaction, name: app_commands.Range[str, 1, DECK_NAME_MAX],
              file: discord.Attachment) -> None:
    """Add a deck from the attached file, or replace the deck of that name."""
    if not await manages(interaction):
        return
    core, user, chat = core_of(interaction), user_ref(interaction), chat_ref(interaction)
    refusal = await core.deck_add_refusal(user, chat, name, True)
    if refusal is not None:  # a bad name or a full server: said before anything is downloaded
        await send(interaction, refusal)
        return
    if too_large(file.size):
        log.info("channel %s: deck file of %d bytes refused before download", interaction.channel_id, file.size)
        await tell(interaction, too_large_text(await language_of(interaction), file.size))
        return
    await defer(interaction)  # the download and the check may take longer than Discord's 3 s
    try:
        data = await file.read()
    except discord.HTTPException as error:
        log.warning("channel %s: downloading a deck file failed: %s", interaction.channel_id, error)
        await tell(interaction, unreadable_text(await language_of(interaction)))
        return
    log.info("channel %s: user %s uploads deck %r (%d bytes)", chat.platform_id, user.platform_id, name, len(data))
    await send(interaction, await core.deck_add(user, chat, name, file.filename, data, True))


@deck.command(name="list", description=text("discord.command.deck_list"))
async def list_(interaction: discord.Interaction) -> None:
    """This channel's decks; in a DM, those of the member's servers."""
    core = core_of(interaction)
    await send(interaction, await in_time(interaction, core.deck_list(chat_ref(interaction), user_ref(interaction))))


@deck.command(name="remove", description=text("discord.command.deck_remove"))
@app_commands.rename(name=option("deck"))
@app_commands.describe(name=about("deck"))
@app_commands.autocomplete(name=choices.deck_name)
@server_only()
async def remove(interaction: discord.Interaction, name: app_commands.Range[str, 1, DECK_NAME_MAX]) -> None:
    """Remove a deck: the core asks to confirm with a button, whose click comes back as any button's."""
    if not await manages(interaction):
        return
    core = core_of(interaction)
    asked = await in_time(interaction, core.deck_remove(user_ref(interaction), chat_ref(interaction), name, True))
    await send(interaction, asked)


@deck.command(name="export", description=text("discord.command.deck_export"))
@app_commands.rename(name=option("deck"), fmt=option("format"))
@app_commands.describe(name=about("deck"), fmt=about("format"))
@app_commands.choices(fmt=[app_commands.Choice(name=name, value=name.lower()) for name in ("GIFT", "CSV")])
@app_commands.autocomplete(name=choices.deck_name)
async def export(interaction: discord.Interaction, name: app_commands.Range[str, 1, DECK_NAME_MAX],
                 fmt: str = "gift") -> None:
    """The deck back as a file (in a DM, a deck of the member's servers)."""
    core = core_of(interaction)
    exported = await in_time(interaction, core.deck_export(user_ref(interaction), chat_ref(interaction), name, fmt))
    if isinstance(exported, Document):
        await send_file(interaction, exported)
    else:
        await send(interaction, exported)


DECK_COMMANDS: tuple[app_commands.Group, ...] = (deck,)
