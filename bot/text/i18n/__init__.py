"""User-facing text in Turkish and English, kept as data: every YAML file in en/ and tr/ beside this file.

Each file holds one area's keys (core.yaml, telegram.yaml, discord.yaml ...); a key may be defined
in only one file, and tr/ and en/ must hold the same keys (tests check both).

`t(language, "answer.right", letter="b")` looks a dotted key up; a missing key falls back to English
and then to the key itself, so a gap in a catalog never breaks a reply.
"""

from __future__ import annotations

import logging
from functools import cache
from importlib import resources
from typing import Any

import yaml

from bot.errors import UserError

log = logging.getLogger(__name__)
SUPPORTED = ("en", "tr")
DEFAULT = "en"


def _flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = str(value)
    return flat


def catalog_files(language: str) -> dict[str, dict[str, str]]:
    """Each catalog file of a language with its flattened keys."""
    folder = resources.files("bot.text.i18n").joinpath(language)
    files = sorted((entry for entry in folder.iterdir() if entry.name.endswith(".yaml")), key=lambda e: e.name)
    return {entry.name: _flatten(yaml.safe_load(entry.read_text(encoding="utf-8")) or {}) for entry in files}


@cache
def catalog(language: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for keys in catalog_files(language).values():
        merged.update(keys)
    return merged


def t(language: str, key: str, /, **values: Any) -> str:
    """The text for `key` in `language`, with {placeholders} filled."""
    template = catalog(language if language in SUPPORTED else DEFAULT).get(key) or catalog(DEFAULT).get(key)
    if template is None:
        log.error("i18n key missing: %s", key)
        return key
    return template.format(**values)


def language_from_locale(locale: str | None) -> str | None:
    """'tr', 'tr-TR' -> 'tr'; 'en-GB' -> 'en'; anything else -> None."""
    if not locale:
        return None
    base = locale.replace("_", "-").split("-")[0].lower()
    return base if base in SUPPORTED else None


def resolve_language(*, user: str | None = None, chat: str | None = None, locale: str | None = None,
                     default: str = DEFAULT) -> str:
    """A user's own choice wins, then the chat's, then the platform's locale, then the default."""
    return user or chat or language_from_locale(locale) or default


def user_error_text(language: str, error: UserError) -> str:
    """The text a user's mistake carries, in their language: the one path every platform uses."""
    return t(language, error.key, **error.values)
