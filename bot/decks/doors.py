"""The core's doors for group decks: the facade methods adapters call (`Core` inherits them), kept apart
so that core.py stays one screenful per concern. Who administers a chat is the adapter's to say."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bot.caller import Caller, resolve
from bot.decks.names import is_internal_topic, parse_topic
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.replies import Document
from bot.store import decks as deck_store
from bot.text.messages import Message

if TYPE_CHECKING:
    from bot.decks.service import DeckService
    from bot.schedule.clock import Clock
    from bot.store.database import Database


class DeckDoors:
    """/deck add|list|remove|export, the decks a person may play in private, and the bot leaving a chat."""

    db: Database
    clock: Clock
    decks: DeckService
    if TYPE_CHECKING:  # Core's
        async def caller(self, user: UserRef | None = None, chat: ChatRef | None = None) -> Caller: ...
        def _poke(self) -> None: ...

    async def _with_decks(self, user: UserRef, chat: ChatRef | None = None) -> Caller:
        """The caller, with the group decks they may play loaded (their interviews and cards may hold some)."""
        caller = await self.caller(user, chat)
        await self.decks.ready_for(caller)
        return caller

    async def _deck_filters(self, caller: Caller, filters: InterviewFilters) -> InterviewFilters:
        """An interview's topics with each `deck:NAME[@chat]` as its deck's (UserError for one not visible)."""
        if not any(parse_topic(topic) or is_internal_topic(topic) for topic in filters.topics):
            return filters
        return replace(filters, topics=tuple([await self.decks.topic(caller, topic) or topic
                                              for topic in filters.topics]))

    async def _present(self, caller: Caller) -> Caller:
        """A command in a group shows the bot is there: a countdown of its decks (bot removed) stops."""
        if caller.chat is not None and not caller.private:
            await deck_store.mark_back(self.db, caller.chat.id)
        return caller

    async def deck_add(self, user: UserRef, chat: ChatRef, name: str, filename: str, data: bytes,
                       is_admin: bool) -> Message:
        """/deck add NAME with a file: an administrator adds the group's deck (or replaces the one of that
        name, keeping the ids of unchanged questions); the reply says what it holds, or what to fix
        (`line N: ...`, and nothing is stored)."""
        caller = await self._present(await self.caller(user, chat))
        return await self.decks.add(caller, name, filename, data, is_admin)

    async def deck_add_refusal(self, user: UserRef, chat: ChatRef, name: str, is_admin: bool) -> Message | None:
        """What refuses `/deck add NAME` before its file is read (None: go on and download it): the adapter
        asks first, so a bad name or a full chat costs no download."""
        return await self.decks.refusal_before_file(await self.caller(user, chat), name, is_admin)

    async def deck_list(self, chat: ChatRef, user: UserRef | None = None) -> Message:
        """/deck list: the chat's decks (name, questions, who added it, when); in a private chat with `user`,
        the decks of the groups they share with the bot, with each group's chat id."""
        return await self.decks.listing(await self.caller(user, chat))

    async def deck_names(self, chat: ChatRef) -> list[str]:
        """The chat's deck names, for autocomplete (stores nothing about who asked)."""
        record = (await resolve(self.db, self.clock.now(), None, chat, create=False)).chat
        return [deck.name for deck in await deck_store.list_decks(self.db, record.id)] if record else []

    async def deck_remove(self, user: UserRef, chat: ChatRef, name: str, is_admin: bool) -> Message:
        """/deck remove NAME: the confirmation button (its token goes to `click`; only the same administrator's
        press counts) or a polite refusal. Once confirmed its questions stop being asked; answers stay, and a
        question of it open now (a daily post, a quiz question, an interview's) finishes with its reveal."""
        return await self.decks.remove_request(await self.caller(user, chat), name, is_admin)

    async def deck_export(self, user: UserRef, chat: ChatRef, name: str, fmt: str = "gift") -> Document | Message:
        """/deck export NAME [gift|csv]: the deck as a file, or a message saying why not. In a private chat,
        a deck of the person's groups (`NAME@<chat id>` where two share the name)."""
        topic = parse_topic(name if name.strip().lower().startswith("deck:") else f"deck:{name}")
        assert topic is not None
        return await self.decks.export(await self.caller(user, chat), topic.name, fmt, topic.chat)

    async def decks_for(self, user: UserRef) -> list[tuple[ChatRef, str]]:
        """(group, deck name) of every deck the person may play in a private chat: the decks of the groups
        they share with the bot (known there by an answer, or as an uploader). Stores nothing about them."""
        caller = await resolve(self.db, self.clock.now(), user, create=False)
        return [(ChatRef(chat.platform, chat.platform_chat_id, "group", chat.title), deck.name)
                for chat, deck in await self.decks.shared(caller)]

    async def bot_left_chat(self, chat: ChatRef) -> None:
        """The platform says the bot was removed from the chat: its decks are deleted 30 days later unless
        the bot is back by then (`bot_joined_chat`). A post that finds the chat gone does the same."""
        record = (await resolve(self.db, self.clock.now(), None, chat, create=False)).chat
        if record is not None:
            await deck_store.mark_left(self.db, record.id, self.clock.now())
            self._poke()

    async def bot_joined_chat(self, chat: ChatRef) -> None:
        """The bot is (again) a member of the chat: its decks stay."""
        record = (await resolve(self.db, self.clock.now(), None, chat, create=False)).chat
        if record is not None:
            await deck_store.mark_back(self.db, record.id)
