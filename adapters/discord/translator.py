"""Slash-command names and descriptions in Turkish and English, read from the bot's own catalogs.

Every localizable string in the command tree is an `app_commands.locale_str` whose message is the
English text and whose `key` extra names the catalog entry; the translator looks that key up for
the Discord locales we speak (tr, en-US, en-GB) and leaves the rest to Discord's default (English).
A command's own name needs no key: it is looked up as `discord.name.<name>` (Turkish names where the
catalog has them; the English name is the default, so it is not repeated); so are a group's name and
its subcommands' names (`/quiz start` is `/yarışma başlat`).
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.text.i18n import catalog, language_from_locale, t

NAMED = (app_commands.TranslationContextLocation.command_name, app_commands.TranslationContextLocation.group_name)
LOCALES: dict[discord.Locale, str] = {
    discord.Locale.turkish: "tr",
    discord.Locale.american_english: "en",
    discord.Locale.british_english: "en",
}


def text(key: str) -> app_commands.locale_str:
    """A translatable string: the English text now, the catalog entry `key` for every locale we speak."""
    return app_commands.locale_str(t("en", key), key=key)


def option_name(name: str) -> app_commands.locale_str:
    return text(f"discord.option.{name}.name")


def option_about(name: str) -> app_commands.locale_str:
    return text(f"discord.option.{name}.description")


def command_name(name: str, language: str) -> str:
    """A slash command's name as a client in `language` lists it (the English name where none is given)."""
    key = f"discord.name.{name}"
    return t(language, key) if key in catalog(language) else name


def typed_both(local: str, english: str) -> str:
    """A command as typed in the reader's language, with the English beside when they differ: which one
    the reader's client lists follows its locale, which the bot cannot always see."""
    return f"`{english}`" if local == english else f"`{local}` (`{english}`)"


def language_of(locale: discord.Locale | str | None) -> str | None:
    """'tr' or 'en' for a Discord locale, None for the others."""
    return language_from_locale(str(locale) if locale else None)


class CatalogTranslator(app_commands.Translator):
    """Looks each command string's `key` up in bot/i18n (discord.yaml and the core's catalogs)."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContext) -> str | None:
        language = LOCALES.get(locale)
        key = string.extras.get("key")
        if key is None and context.location in NAMED:
            key = f"discord.name.{string.message}"
        if language is None or key is None or key not in catalog(language):
            return None
        translated = t(language, key)
        return None if key.startswith("discord.name.") and translated == string.message else translated
