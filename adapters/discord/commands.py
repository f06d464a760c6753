"""The slash-command tree: personal commands (interviews, progress) here, server settings in
server_commands.py, the /quiz group in quiz_commands.py, the /deck group in deck_commands.py; names,
descriptions and options localized through translator.py.

`print_command_tree()` shows the tree as Discord will get it, without connecting.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

import discord
from discord import app_commands

from adapters.discord import choices
from adapters.discord.people import chat_ref, is_private, user_ref
from adapters.discord.places import anywhere, anywhere_managed, dm_only
from adapters.common.deliver import deliver
from adapters.discord.replies import defer, in_time, send, send_file, sent_id, tell
from adapters.discord.deck_commands import DECK_COMMANDS
from adapters.discord.quiz_commands import QUIZ_COMMANDS
from adapters.discord.server_commands import SERVER_COMMANDS, core_of
from adapters.discord.translator import CatalogTranslator, command_name, text, typed_both
from adapters.discord.translator import option_about as about
from adapters.discord.translator import option_name as option
from bot.text.commands import COMMANDS
from bot.text.commands import help_message as shared_help
from bot.core import Document, Outgoing
from bot.domain import InterviewFilters
from bot.limits import INTERVIEW_COUNT_MAX, INTERVIEW_COUNT_MIN, TIME_LIMIT_MAX_S, TIME_LIMIT_MIN_S
from bot.text.i18n import t
from bot.text.messages import Message

log = logging.getLogger(__name__)


async def send_question(interaction: discord.Interaction, outgoing: Outgoing) -> None:
    """A question (or a status text) as the reply; the core learns where a question went."""
    await deliver(core_of(interaction), lambda message: sent_id(send(interaction, message)), outgoing)


@app_commands.command(name="interview", description=text("discord.command.interview"))
@app_commands.rename(topic=option("topic"), level=option("level"), count=option("count"),
                     time_limit=option("time_limit"), stop_when_sure=option("stop_when_sure"))
@app_commands.describe(topic=about("topic"), level=about("level"), count=about("count"),
                       time_limit=about("time_limit"), stop_when_sure=about("stop_when_sure"))
@app_commands.choices(level=[app_commands.Choice(name=text(f"difficulty.{n}"), value=n) for n in (1, 2, 3)])
@app_commands.autocomplete(topic=choices.topic)
@dm_only()
async def interview(interaction: discord.Interaction, topic: str | None = None, level: int | None = None,
                    count: app_commands.Range[int, INTERVIEW_COUNT_MIN, INTERVIEW_COUNT_MAX] = 5,
                    time_limit: app_commands.Range[int, TIME_LIMIT_MIN_S, TIME_LIMIT_MAX_S] | None = None,
                    stop_when_sure: bool = False) -> None:
    """Start a mock interview in this DM (timed when a time limit is given; ending once the level is clear
    when stop_when_sure is set, the count then being the most it asks)."""
    core = core_of(interaction)
    filters = InterviewFilters(topics=(topic,) if topic else (), difficulty=level, count=count,
                               time_limit_s=time_limit, stop_when_sure=stop_when_sure)
    outgoing = await in_time(interaction, core.start_interview(user_ref(interaction), chat_ref(interaction), filters))
    await send_question(interaction, outgoing)


@app_commands.command(name="stop", description=text("discord.command.stop"))
@dm_only()
async def stop(interaction: discord.Interaction) -> None:
    """Stop your interview and get the report."""
    core, user = core_of(interaction), user_ref(interaction)
    report = await in_time(interaction, core.stop_interview(user))
    if report is None:
        await tell(interaction, t(await core.language(user), "interview.none_active"), ephemeral=False)
    else:
        await send(interaction, report)


@app_commands.command(name="review", description=text("discord.command.review"))
@dm_only()
async def review(interaction: discord.Interaction) -> None:
    """Practise the questions you missed, when they are due."""
    core = core_of(interaction)
    await send_question(interaction, await in_time(interaction, core.review(user_ref(interaction), chat_ref(interaction))))


@app_commands.command(name="history", description=text("discord.command.history"))
@dm_only()
async def history(interaction: discord.Interaction) -> None:
    """Your past interviews."""
    await send(interaction, await in_time(interaction, core_of(interaction).history(user_ref(interaction))))


@app_commands.command(name="export", description=text("discord.command.export"))
@dm_only()
async def export(interaction: discord.Interaction) -> None:
    """Your missed questions as an Anki deck (.apkg)."""
    exported = await in_time(interaction, core_of(interaction).export_missed(user_ref(interaction)))
    if isinstance(exported, Document):
        await send_file(interaction, exported)
    else:
        await send(interaction, exported)


@app_commands.command(name="forget", description=text("discord.command.forget"))
@dm_only()
async def forget(interaction: discord.Interaction) -> None:
    """Delete everything I hold about you (after a confirmation button)."""
    await send(interaction, await in_time(interaction, core_of(interaction).forget_request(user_ref(interaction))))


@app_commands.command(name="progress", description=text("discord.command.progress"))
@anywhere()
async def progress(interaction: discord.Interaction) -> None:
    """Your accuracy per topic and level, with a chart (only you see it in a server)."""
    private = is_private(interaction)
    await defer(interaction, ephemeral=not private)  # the chart takes a while: defer at once
    await send(interaction, await core_of(interaction).progress(user_ref(interaction)), ephemeral=not private)


@app_commands.command(name="language", description=text("discord.command.language"))
@app_commands.rename(language=option("language"))
@app_commands.describe(language=about("language"))
@app_commands.choices(language=[app_commands.Choice(name=text(f"discord.choice.{code}"), value=code)
                                for code in ("tr", "en")])
@anywhere_managed()
async def language(interaction: discord.Interaction, language: str) -> None:
    """Choose the language I answer in (in a server: this channel's language, for Manage Server)."""
    core, private = core_of(interaction), is_private(interaction)
    confirmation = await in_time(interaction, core.set_language(language, user_ref(interaction), chat_ref(interaction)),
                                 ephemeral=not private)
    await tell(interaction, confirmation, ephemeral=not private)


def help_message(language: str, where: Literal["private", "group"]) -> Message:
    """What the bot does and the slash commands offered here, in their Discord wording and names: a
    Turkish reader's client lists the Turkish names, so those come first, the English one beside them
    (the names a client shows follow its own locale, which the bot cannot see in every case)."""
    return shared_help(language, where, keys="discord.command", offered={command.name for command in all_commands()},
                       shown=lambda name: shown_name(name, language))


def shown_name(name: str, language: str) -> str:
    return typed_both(f"/{command_name(name, language)}", f"/{name}")


@app_commands.command(name="help", description=text("discord.command.help"))
@anywhere()
async def help_(interaction: discord.Interaction) -> None:
    """What I do and every command."""
    core, private = core_of(interaction), is_private(interaction)
    language = await in_time(interaction, core.language(user_ref(interaction), chat_ref(interaction)),
                             ephemeral=not private)
    await send(interaction, help_message(language, "private" if private else "group"), ephemeral=not private)


PERSONAL_COMMANDS: tuple[app_commands.Command, ...] = (interview, stop, review, history, progress, language, forget,
                                                        help_, export)


def all_commands() -> tuple[app_commands.Command | app_commands.Group, ...]:
    return PERSONAL_COMMANDS + SERVER_COMMANDS + QUIZ_COMMANDS + DECK_COMMANDS


def add_commands(tree: app_commands.CommandTree) -> None:
    """Every slash command, in the order of bot.text.commands.COMMANDS."""
    order = {command.name: number for number, command in enumerate(COMMANDS)}
    for command in sorted(all_commands(), key=lambda c: order.get(c.name, len(order))):
        tree.add_command(command)


# --- --list-commands -----------------------------------------------------------------------------

def _contexts(payload: dict[str, Any]) -> str:
    names = {0: "server", 1: "DM", 2: "private channel"}
    return ", ".join(names[value] for value in payload.get("contexts") or ()) or "everywhere"


def _option_lines(option_payload: dict[str, Any], indent: str = "    ") -> list[str]:
    kind = discord.AppCommandOptionType(option_payload["type"]).name
    flags = [kind, "required" if option_payload.get("required") else "optional"]
    if option_payload.get("autocomplete"):
        flags.append("autocomplete")
    lines = [f"{indent}{option_payload['name']} (tr: {option_payload.get('name_localizations', {}).get('tr', '-')})"
             f" [{', '.join(flags)}]: {option_payload['description']}",
             f"{indent}    tr: {option_payload.get('description_localizations', {}).get('tr', '-')}"]
    for choice in option_payload.get("choices", ()):
        lines.append(f"{indent}    = {choice['value']}: {choice['name']} (tr: {choice.get('name_localizations', {}).get('tr', '-')})")
    for nested in option_payload.get("options", ()):  # a group's subcommand and its options
        lines.extend(_option_lines(nested, indent + "    "))
    return lines


async def command_payloads() -> list[dict[str, Any]]:
    """The tree as it is synced: every command's JSON with its localizations."""
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice here
    client = discord.Client(intents=discord.Intents(guilds=True))
    tree = app_commands.CommandTree(client)
    add_commands(tree)
    translator = CatalogTranslator()
    return [await command.get_translated_payload(tree, translator) for command in tree.get_commands()]


def describe_tree(payloads: list[dict[str, Any]]) -> str:
    lines = []
    for payload in payloads:
        permissions = payload.get("default_member_permissions")
        admin = " [Manage Server]" if permissions and int(permissions) & discord.Permissions(manage_guild=True).value else ""
        turkish = payload.get("name_localizations", {}).get("tr")
        named = f" (tr: /{turkish})" if turkish else ""
        lines.append(f"/{payload['name']}{admin}{named} ({_contexts(payload)}): {payload['description']}")
        lines.append(f"    tr: {payload['description_localizations'].get('tr', '-')}")
        for option_payload in payload.get("options", ()):
            lines.extend(_option_lines(option_payload))
    return "\n".join(lines)


def print_command_tree() -> None:
    """Print the slash commands with their options and Turkish/English texts (no connection)."""
    print(describe_tree(asyncio.run(command_payloads())))
