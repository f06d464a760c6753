"""What the daily question needs of a chat besides its subscription: the language its posts speak, and
what happens when the chat is gone."""

from __future__ import annotations

import logging

from bot.store import daily as posts
from bot.store.database import Database
from bot.store.people import ChatRecord
from bot.text.i18n import resolve_language

log = logging.getLogger(__name__)


def chat_language(record: ChatRecord) -> str:
    """The chat's chosen language, else its platform locale's, else the default."""
    return resolve_language(chat=record.language, locale=record.locale)


async def chat_gone(db: Database, record: ChatRecord, now: float, what: str) -> None:
    """The bot was removed or blocked: the chat's daily question stops (a new /subscribe starts it again)."""
    await posts.deactivate_subscription(db, record.id, now)
    log.warning("chat %d is gone (%s): subscription deactivated", record.id, what)
