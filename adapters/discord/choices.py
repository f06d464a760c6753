"""Autocomplete for slash-command options: topics from the bank and the group decks the member may play
(`deck:NAME`), deck names, and IANA time zones; a topic typed by its title (English or Turkish) instead of
picked from the list is read as the topic it names."""

from __future__ import annotations

import zoneinfo
from functools import cache

import discord
from discord import app_commands

from adapters.discord.people import chat_ref, is_private, user_ref
from adapters.discord.translator import language_of
from bot.core import Core
from bot.decks.names import TOPIC_PREFIX
from bot.text.i18n import SUPPORTED

CHOICES_MAX = 25  # Discord shows at most 25 autocomplete results
CHOICE_NAME_MAX = 100


@cache
def timezones() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def _rank(current: str, *texts: str) -> int | None:
    """0 when a text starts with what was typed, 1 when it contains it, None otherwise."""
    typed = current.casefold().strip()
    folded = [text.casefold() for text in texts]
    if any(text.startswith(typed) for text in folded):
        return 0
    return 1 if any(typed in text for text in folded) else None


async def topic(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Topics whose name or label matches what was typed, labelled in the user's language; then the decks
    of this channel (in a DM: of the member's servers) as `deck:NAME`."""
    core = interaction.client.core  # type: ignore[attr-defined]
    language = language_of(interaction.locale) or "en"
    ranked = []
    for name, label in core.topics(language):
        rank = _rank(current, name, label)
        if rank is not None:
            ranked.append((rank, label, name))
    for label, name in await _decks(interaction, core):
        rank = _rank(current, name, label)
        if rank is not None:
            ranked.append((rank, label, name))
    ranked.sort()
    return [app_commands.Choice(name=_shown(label, name)[:CHOICE_NAME_MAX], value=name)
            for _rank_, label, name in ranked[:CHOICES_MAX]]


def _shown(label: str, name: str) -> str:
    """A bank topic as its title and name; a deck as typed (its server beside it in a DM)."""
    return label if name.startswith(TOPIC_PREFIX) else f"{label} ({name})"


async def _decks(interaction: discord.Interaction, core: Core) -> list[tuple[str, str]]:
    """(label, topic) of each deck the member may play here: this channel's, or in a DM their servers'."""
    if is_private(interaction):
        return [(f"{TOPIC_PREFIX}{name} · {chat.title}", f"{TOPIC_PREFIX}{name}")
                for chat, name in await core.decks_for(user_ref(interaction))]
    return [(f"{TOPIC_PREFIX}{name}", f"{TOPIC_PREFIX}{name}") for name in await core.deck_names(chat_ref(interaction))]


async def deck_name(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """This channel's deck names matching what was typed (in a DM, those of the member's servers)."""
    core = interaction.client.core  # type: ignore[attr-defined]
    if is_private(interaction):
        names = sorted({name for _chat, name in await core.decks_for(user_ref(interaction))})
    else:
        names = await core.deck_names(chat_ref(interaction))
    ranked = sorted((rank, name) for name in names if (rank := _rank(current, name)) is not None)
    return [app_commands.Choice(name=name, value=name) for _rank_, name in ranked[:CHOICES_MAX]]


def topic_named(core: Core, typed: str | None) -> str | None:
    """The topic a member gave: its name, or its title in English or Turkish as autocomplete lists it ("Sync
    basics", "Sync basics (sync-basics)"), case aside; anything else unchanged, for the core to refuse."""
    if typed is None or typed in core.bank.topics:
        return typed
    wanted = typed.strip().casefold()
    for language in SUPPORTED:
        for name, label in core.topics(language):
            if wanted in (name.casefold(), label.casefold(), f"{label} ({name})".casefold()):
                return name
    return typed


async def timezone(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
    """IANA time zones matching what was typed (start of the name or of its city first)."""
    ranked = []
    for name in timezones():
        rank = _rank(current, name, name.rsplit("/", 1)[-1])
        if rank is not None:
            ranked.append((rank, name))
    ranked.sort()
    return [app_commands.Choice(name=name, value=name) for _rank_, name in ranked[:CHOICES_MAX]]
