"""Who acts, where, and in which language: resolved once per event from the platform's refs.

Every command and click starts here. The store's user and chat records (one read each when nothing
changed) and the language to answer in travel down as one value, so no use case reads them again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass
from typing import TypeVar

from bot.domain import ChatRef, UserRef
from bot.store.backend import SQLITE
from bot.store.database import Database
from bot.store.people import ChatRecord, UserRecord, ensure_chat, ensure_user, find_chat, find_user
from bot.text.i18n import resolve_language

A = TypeVar("A")
B = TypeVar("B")


@dataclass(frozen=True)
class Caller:
    """The person (if any) and the chat (if any) of one event, with the language to answer in."""

    user: UserRecord | None
    chat: ChatRecord | None
    language: str
    user_ref: UserRef | None = None
    chat_ref: ChatRef | None = None

    @property
    def private(self) -> bool:
        return self.chat is None or self.chat.kind == "private"


def language_of(user: UserRecord | None, chat: ChatRecord | None, locale: str | None = None) -> str:
    """A user's own choice wins in their DMs, then the chat's, then the platform's locale, then English."""
    private = chat is None or chat.kind == "private"
    return resolve_language(user=user.language if user and private else None,
                            chat=chat.language if chat else None,
                            locale=locale or (user.locale if user else None) or (chat.locale if chat else None))


def chat_language(record: ChatRecord) -> str:
    """What the bot speaks in a chat without a person to answer (a daily post, a quiz round): the chat's
    chosen language, else its platform locale's, else the default."""
    return resolve_language(chat=record.language, locale=record.locale)


async def _nothing() -> None:
    return None


async def side_by_side(db: Database, first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """Both results. Side by side on a database server, where each is a round trip; one after the other on
    SQLite, whose reads run at once on the event loop's own connection (bot/store/sqlite_reader.py): there a
    task each would hide nothing and cost more than the reads (about 0.1 ms a click in a burst)."""
    if db.dialect is SQLITE:
        try:
            one = await first
        except BaseException:
            if isinstance(second, Coroutine):
                second.close()  # never started: closed, so that it is not reported as never awaited
            raise
        return one, await second
    one, other = await asyncio.gather(first, second)
    return one, other


async def _known(record: ChatRecord) -> ChatRecord:
    return record


async def resolve(db: Database, now: float, user: UserRef | None = None, chat: ChatRef | None = None,
                  *, create: bool = True, chat_record: ChatRecord | None = None) -> Caller:
    """The records behind the refs (created on first sight, unless `create` is False: a refusal or a
    help text stores nothing) and the language to answer in. `chat_record`: the chat's record for this very
    ref, read moments ago by a click on the same post (bot/daily/open_posts.py says how fresh), taken
    instead of reading it again."""
    if create:  # the two side by side: with the database a network away, each is a round trip or two
        if chat_record is not None:
            place_now: Awaitable[ChatRecord | None] = _known(chat_record)
        else:
            place_now = ensure_chat(db, chat, now) if chat else _nothing()
        person, place = await side_by_side(db, ensure_user(db, user, now) if user else _nothing(), place_now)
    else:
        person = await find_user(db, user.platform, user.platform_id) if user else None
        place = await find_chat(db, chat.platform, chat.platform_id) if chat else None
    locale = (user.locale if user else None) or (chat.locale if chat else None)
    return Caller(person, place, language_of(person, place, locale), user, chat)
