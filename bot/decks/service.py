"""Group decks' use cases: add or replace (administrators), list, remove with a confirmation, export,
and what `deck:NAME` means where a topic goes. Who is an administrator is the adapter's to say.

A deck is visible in its chat, and in the private chats of the people known there (on its board, or as
the one who added a deck); nowhere else. Expected refusals come back as Messages, not exceptions: the
adapters show them as they are.
"""

from __future__ import annotations

import logging
import re

from bot.caller import Caller
from bot.decks import view
from bot.decks.codec import content_hash, decode, encode
from bot.decks.library import Library
from bot.decks.names import deck_name, internal_topic, parse_topic
from bot.decks.parse import DeckRefused, parse_deck
from bot.domain import Question
from bot.errors import UserError
from bot.formats.export import export_bytes
from bot.formats.model import FormatError
from bot.limits import DECK_KEPT_AFTER_LEFT_S, DECKS_PER_CHAT
from bot.replies import ClickReply, Document
from bot.schedule.clock import Clock
from bot.store import decks as store
from bot.store.database import Database
from bot.store.decks import DeckRow, SharedChat
from bot.text.i18n import t
from bot.text.messages import Message, Paragraph

log = logging.getLogger(__name__)
EXPORT_FORMATS = ("gift", "csv")
REMOVE_PREFIX = "deck:rm:"  # deck:rm:<deck id>:<version>:<user id>: the one who asked confirms that upload's removal
_REMOVE = re.compile(r"^deck:rm:([1-9][0-9]{0,11}):([1-9][0-9]{0,8}):([1-9][0-9]{0,11})$")


def _say(language: str, key: str, **values: object) -> Message:
    return Message((Paragraph(t(language, key, **values)),))


class DeckService:
    """Decks in the store, read through the core's Library (its cache) and checked on every use."""

    def __init__(self, db: Database, library: Library, clock: Clock) -> None:
        self.db, self.library, self.clock = db, library, clock

    # --- managing ------------------------------------------------------------------------------------

    async def add(self, caller: Caller, name: str, filename: str, data: bytes, is_admin: bool,
                  by: str | None = None) -> Message:
        """Read, check and store a deck (a new one or a replace); what it holds, or what to fix. `by`: who
        added it where no person did (the operators' command)."""
        language, chat = caller.language, caller.chat
        refusal = await self.refusal_before_file(caller, name, is_admin)
        if refusal is not None or chat is None:
            return refusal or _say(language, "deck.group_only")
        wanted = deck_name(name)
        assert wanted is not None  # refusal_before_file said so otherwise
        try:
            _, questions = parse_deck(filename, data, language)
        except DeckRefused as refused:
            log.info("chat %d: deck %s refused (%d problems)", chat.id, wanted, len(refused.problems))
            return view.refused_message(language, wanted, refused.problems)
        earlier = await store.get_deck(self.db, chat.id, wanted, removed=True)
        kept, retire = None, None
        if earlier is not None:
            kept, retire = await self._carried_over(earlier, questions)
        person = caller.user
        try:
            deck, replaced = await store.save_deck(
                self.db, chat.id, wanted, encode(questions), len(questions), person.id if person else None,
                person.name if person else by or "", self.clock.now(), DECKS_PER_CHAT, retire)
        except store.TooManyDecks:
            return _say(language, "deck.too_many_decks", limit=DECKS_PER_CHAT)
        self.library.drop(deck.id)
        log.info("chat %d: deck %s (%d) %s with %d questions", chat.id, wanted, deck.id,
                 "replaced" if replaced else "added", len(questions))
        return view.added_message(language, wanted, questions, kept if replaced else None)

    async def _carried_over(self, earlier: DeckRow, questions: list[Question]) -> tuple[int, store.Retire | None]:
        """What a replace keeps of the deck it replaces: how many questions are unchanged (their ids stay),
        and how to keep the dropped ones still being asked (read in the write's transaction), so that those
        finish normally."""
        stored = await store.deck_questions(self.db, earlier.id)
        if stored is None:
            return 0, None
        before = decode(earlier.id, earlier.name, stored.questions) + decode(earlier.id, earlier.name,
                                                                              stored.retired or "[]")
        now_hashes = {content_hash(question) for question in questions}
        kept = len(now_hashes & {content_hash(question) for question in before[:earlier.count]})
        dropped = {question.id: question for question in before if content_hash(question) not in now_hashes}

        def retire(live: set[str]) -> str | None:
            still = [question for question_id, question in dropped.items() if question_id in live]
            return encode(still) if still else None
        return kept, retire

    async def refusal_before_file(self, caller: Caller, name: str, is_admin: bool) -> Message | None:
        """Whatever refuses an upload whatever the file holds (a private chat, not an admin, a bad name, a
        new name past the chat's deck limit), so adapters say it before downloading anything."""
        language, chat = caller.language, caller.chat
        if caller.private or chat is None:
            return _say(language, "deck.group_only")
        if not is_admin:
            return _say(language, "deck.admins_only")
        wanted = deck_name(name)
        if wanted is None:
            return _say(language, "deck.bad_name", name=name.strip()[:40] or '""')
        names = {deck.name for deck in await store.list_decks(self.db, chat.id)}
        if wanted not in names and len(names) >= DECKS_PER_CHAT:  # the write checks again, under its lock
            return _say(language, "deck.too_many_decks", limit=DECKS_PER_CHAT)
        return None

    async def listing(self, caller: Caller) -> Message:
        """The chat's decks; in a private chat, the decks of the person's groups."""
        if caller.private:
            return view.private_list_message(caller.language, await self.shared(caller))
        assert caller.chat is not None
        return view.list_message(caller.language, await store.list_decks(self.db, caller.chat.id))

    async def remove_request(self, caller: Caller, name: str, is_admin: bool) -> Message:
        """The confirmation to press (only by the administrator who asked), or why not."""
        language = caller.language
        if caller.private or caller.chat is None:
            return _say(language, "deck.group_only")
        if not is_admin:
            return _say(language, "deck.admins_only")
        deck = await self._named(caller, name)
        if deck is None:
            return _say(language, "deck.unknown", name=name.strip()[:40])
        assert caller.user is not None, "an administrator is a person"
        token = f"{REMOVE_PREFIX}{deck.id}:{deck.version}:{caller.user.id}"
        return view.remove_question(language, deck, token)

    async def remove_click(self, caller: Caller, token: str) -> ClickReply:
        """The confirmation pressed: the deck goes (the version asked about, in this chat, by its asker)."""
        language = caller.language
        match = _REMOVE.match(token)
        deck = await store.deck_by_id(self.db, int(match.group(1))) if match else None
        if match is None or deck is None or caller.chat is None or deck.chat_id != caller.chat.id:
            return ClickReply(t(language, "deck.remove_gone"), alert=True, refused="unknown")
        if caller.user is None or caller.user.id != int(match.group(3)):
            return ClickReply(t(language, "deck.remove_not_yours"), alert=True, refused="not_allowed")
        reveals = await store.open_reveals(self.db, deck.id)  # before: the removal may delete the row
        live = await store.live_question_ids(self.db, deck.id, self.clock.now())
        removed = await store.delete_deck(self.db, deck.id, int(match.group(2)), self.clock.now())
        if removed is None:
            return ClickReply(t(language, "deck.remove_gone"), alert=True, refused="unknown")
        self.library.drop(removed.id)
        log.info("chat %d: deck %s (%d) removed (%d questions live)", removed.chat_id, removed.name, removed.id,
                 len(live))
        text = t(language, "deck.removed", name=removed.name)
        return ClickReply(text, edit=view.removed_message(language, removed.name, bool(live), reveals))

    async def export(self, caller: Caller, name: str, fmt: str = "gift", chat_hint: str | None = None) -> Document | Message:
        """The deck as a GIFT or CSV file (in the caller's language where a question has two)."""
        language = caller.language
        if fmt.lower() not in EXPORT_FORMATS:
            return _say(language, "deck.bad_format", format=fmt[:20])
        deck = await self._visible(caller, name, chat_hint)
        if deck is None:
            return _say(language, "deck.unknown", name=name.strip()[:40])
        loaded = await self.library.ready_topic(internal_topic(deck.id))
        if loaded is None:
            return _say(language, "deck.unknown", name=name.strip()[:40])
        questions = list(loaded.questions.values())
        try:
            data = export_bytes(questions, fmt.lower(), language, deck_name=f"deck::{deck.name}")
        except FormatError:
            return _say(language, "deck.unknown", name=name.strip()[:40])
        caption = t(language, "deck.exported", name=deck.name, questions=view.questions_counted(language, len(questions)))
        return Document(f"{deck.name}.{fmt.lower()}", data, caption)

    # --- where decks are visible -------------------------------------------------------------------------

    async def shared(self, caller: Caller) -> list[tuple[SharedChat, DeckRow]]:
        """The decks of the groups this person shares with the bot (known on their board or as an uploader)."""
        if caller.user is None:
            return []
        found = []
        for chat in await store.shared_chats(self.db, caller.user.id):
            found += [(chat, deck) for deck in await store.list_decks(self.db, chat.id)]
        return found

    async def _named(self, caller: Caller, name: str) -> DeckRow | None:
        wanted = deck_name(name)
        if wanted is None or caller.chat is None:
            return None
        return await store.get_deck(self.db, caller.chat.id, wanted)

    async def _visible(self, caller: Caller, text: str, chat_hint: str | None = None) -> DeckRow | None:
        """The deck a name means for this caller: in a group, that group's; in a private chat, the one of the
        person's groups (`chat_hint`: the platform's chat id, where two of them share the name; else the
        group known to the store first)."""
        wanted = deck_name(text)
        if wanted is None:
            return None
        if not caller.private:
            assert caller.chat is not None
            if chat_hint is not None and chat_hint != caller.chat.platform_chat_id:
                return None
            return await store.get_deck(self.db, caller.chat.id, wanted)
        for chat, deck in await self.shared(caller):
            if deck.name == wanted and (chat_hint is None or chat_hint == chat.platform_chat_id):
                return deck
        return None

    async def topic(self, caller: Caller, topic: str | None) -> str | None:
        """A topic as the services take it: `deck:NAME[@chat]` becomes its deck's topic (loaded, visible to
        the caller), any other passes as typed. UserError for a deck the caller cannot see, and for the
        core's own spelling of a deck topic (`deck.12`), which nobody may type to reach another chat's."""
        if topic is None:
            return None
        asked = parse_topic(topic)
        if asked is None:
            if topic.strip().lower().startswith("deck."):
                raise UserError("deck.unknown_topic", name=topic.strip()[5:45])
            return topic
        deck = await self._visible(caller, asked.name, asked.chat)
        loaded = await self.library.ready_topic(internal_topic(deck.id)) if deck else None
        if loaded is None:
            raise UserError("deck.unknown_topic", name=asked.name[:40] + (f"@{asked.chat[:24]}" if asked.chat else ""))
        return loaded.topic.name

    async def ready_for(self, caller: Caller) -> None:
        """Load what this caller may play: the chat's decks, or in a private chat those of their groups."""
        if not caller.private and caller.chat is not None:
            await self.library.ready_chat(caller.chat.id)
        elif caller.user is not None:
            for chat in await store.shared_chats(self.db, caller.user.id):
                await self.library.ready_chat(chat.id)

    async def ready_overdue(self) -> None:
        """Load the decks of interview questions past their deadline (a timed interview on a deck, which
        another worker started): the deadline timer then closes them like any other."""
        await self.library.ready_ids(await store.overdue_deck_questions(self.db, self.clock.now()))

    # --- a chat that removed the bot ------------------------------------------------------------------

    async def purge(self) -> int:
        """Delete the decks of chats that removed the bot DECK_KEPT_AFTER_LEFT_S ago or more (whatever is
        live in them), then sweep what was kept for live questions; how many decks were deleted."""
        before = self.clock.now() - DECK_KEPT_AFTER_LEFT_S
        started = await store.next_purge(self.db)  # a read: no write transaction when nothing is due
        if started is None or started > before:
            return await self.sweep()
        gone = await store.purge_left(self.db, before)
        for deck_id in gone:
            self.library.drop(deck_id)
        if gone:
            log.info("%d decks of chats that removed the bot 30 days ago were deleted", len(gone))
        return len(gone) + await self.sweep()

    async def sweep(self) -> int:
        """Delete the removed decks nothing live refers to any more, and forget the questions a replace
        dropped once they are no longer asked; how many decks were deleted. One small read when none waits
        (the purge timer runs it at least every minute)."""
        deleted = 0
        for deck in await store.kept_for_live(self.db):
            now = self.clock.now()
            retired = None
            if deck.removed_at is None:
                stored = await store.deck_questions(self.db, deck.id)
                held = decode(deck.id, deck.name, stored.retired or "[]") if stored else []
                live = await store.live_question_ids(self.db, deck.id, now)
                still = [question for question in held if question.id in live]
                if len(still) == len(held) and held:
                    continue  # every one still being asked: nothing to write
                retired = encode(still) if still else None
            if await store.sweep(self.db, deck.id, now, retired, deck.version):
                self.library.drop(deck.id)
                log.info("chat %d: removed deck %s (%d) deleted, its last live question closed", deck.chat_id,
                         deck.name, deck.id)
                deleted += 1
        return deleted

    async def next_purge(self) -> float | None:
        started = await store.next_purge(self.db)
        return None if started is None else started + DECK_KEPT_AFTER_LEFT_S

