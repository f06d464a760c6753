"""The bank as the services see it, with the group decks they need looked up beside it.

Decks are never merged into the shared bank: a `Library` answers a lookup by id (`get`, `in`, `[id]`)
from the bank first, then from the decks loaded in this process; iterating it, listing its topics or
selecting without a topic gives the bank alone, so no chat ever draws, lists or names another's deck.
Decks are loaded per chat when a use case is about to need them (`ready_*`), and kept while their
version in the store is the one loaded: every worker sees a replace or a removal at its next check.

A question still live when its deck was removed, or dropped by a replace, is still looked up (its reveal,
its answers, its report need it) but never asked again: `askable` says which, and `select` never draws
one. Review cards count only askable questions, so a removed deck's cards stop being due.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from bot.bank.loader import Bank
from bot.decks.codec import decode
from bot.decks.names import deck_of_question, deck_of_topic, internal_topic, spelled
from bot.domain import Question, Topic
from bot.store import decks as store
from bot.store.database import Database

V = TypeVar("V")
CACHED_DECKS = 256  # decks kept per worker (least recently readied dropped first); at most 500 questions each


class _Overlay(Mapping[str, V]):
    """Lookups see the bank's entries, then the loaded decks'; iteration and length are the bank's alone."""

    def __init__(self, shared: Mapping[str, V], extra: Mapping[str, V]) -> None:
        self._shared, self._extra = shared, extra

    def __getitem__(self, key: str) -> V:
        found = self._shared.get(key)
        if found is not None:
            return found
        return self._extra[key]

    def __contains__(self, key: object) -> bool:
        return key in self._shared or key in self._extra

    def __iter__(self) -> Iterator[str]:
        return iter(self._shared)

    def __len__(self) -> int:
        return len(self._shared)


@dataclass(frozen=True)
class LoadedDeck:
    """One deck as this worker holds it: at `version`, its questions by id, and its topic."""

    id: int
    chat_id: int
    name: str
    version: int
    questions: dict[str, Question]
    topic: Topic
    removed: bool = False  # removed while a question of it was live: looked up, never drawn from
    retired: Mapping[str, Question] = field(default_factory=dict)  # dropped by a replace while live


class _Askable(Collection[str]):
    """The ids a new question, a review or a plan may use: the bank's, and the loaded decks' current ones."""

    def __init__(self, library: Library) -> None:
        self._library = library

    def __contains__(self, question_id: object) -> bool:
        return isinstance(question_id, str) and self._library.askable(question_id)

    def __iter__(self) -> Iterator[str]:
        return (qid for qid in self._library.questions if self._library.askable(qid))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Library(Bank):
    """The shared bank plus the decks loaded for the chats at hand (see the module's docstring)."""

    def __init__(self, bank: Bank, db: Database) -> None:
        self.shared, self.db = bank, db
        self._decks: OrderedDict[int, LoadedDeck] = OrderedDict()
        self._deck_questions: dict[str, Question] = {}
        self._deck_topics: dict[str, Topic] = {}
        self._held_only: set[str] = set()  # loaded deck questions only looked up: removed or retired, still live
        self.askable_ids: Collection[str] = _Askable(self)
        super().__init__(_Overlay(bank.questions, self._deck_questions),  # type: ignore[arg-type]
                         _Overlay(bank.topics, self._deck_topics), bank.files)  # type: ignore[arg-type]

    def topic_named(self, text: str) -> str | None:
        return self.shared.topic_named(text)  # typed names are the bank's; decks are `deck:NAME`, resolved apart

    def select(self, topics: Sequence[str] = (), difficulty: int | None = None,
               seniority: str | None = None) -> list[Question]:
        """As the bank's; a deck's topic selects from that deck (when loaded), and no topic means the bank."""
        decks = [deck if deck and not deck.removed else None
                 for deck in (self._decks.get(deck_of_topic(topic) or 0) for topic in topics if deck_of_topic(topic))]
        if not decks:
            return self.shared.select(topics, difficulty, seniority)
        others = [topic for topic in topics if deck_of_topic(topic) is None]
        chosen = self.shared.select(others, difficulty, seniority) if others else []
        for deck in decks:
            chosen += [question for question in (deck.questions.values() if deck else ())
                       if (difficulty is None or question.difficulty == difficulty)
                       and (seniority is None or question.seniority == seniority)]
        return chosen

    def loaded(self, deck_id: int) -> LoadedDeck | None:
        return self._decks.get(deck_id)

    def askable(self, question_id: str) -> bool:
        """May this question be asked anew (a plan's next one, a review, a quiz's next)? Not once its deck
        was removed or a replace dropped it, though its live asks still look it up."""
        return question_id in self.questions and question_id not in self._held_only

    def removed_topic(self, topic: str) -> bool:
        """A deck topic whose deck this worker holds as removed (an interview on it ends with a line)."""
        deck = self._decks.get(deck_of_topic(topic) or 0)
        return deck is not None and deck.removed

    # --- loading ---------------------------------------------------------------------------------------

    async def ready_chat(self, chat_id: int) -> list[LoadedDeck]:
        """The chat's decks, each loaded (again) unless this worker holds its current version; decks gone
        from the store are dropped, a removed one kept only at its current version (a live question may
        be looking it up). One small read when nothing changed."""
        rows = await store.list_decks(self.db, chat_id, removed=True)
        current = {row.id for row in rows}
        for deck in [deck for deck in self._decks.values() if deck.chat_id == chat_id and deck.id not in current]:
            self.drop(deck.id)
        found = []
        for row in rows:
            deck = self._decks.get(row.id)
            if deck is None or deck.version != row.version or deck.chat_id != row.chat_id:
                if row.removed_at is not None and deck is None:
                    continue  # removed: loaded by ready_ids for a live question only, never offered
                deck = await self._load(row.id)
            if deck is not None and not deck.removed:
                self._decks.move_to_end(deck.id)
                found.append(deck)
        return found

    async def ready_ids(self, question_ids: Iterable[str]) -> None:
        """Hold the current version of the decks these question ids belong to (one read each; none for bank
        ids): a deck removed meanwhile, by any worker, answers nothing here either."""
        for deck_id in sorted({deck_of_question(qid) for qid in question_ids} - {None}):  # type: ignore[type-var]
            row = await store.deck_by_id(self.db, deck_id)
            held = self._decks.get(deck_id)
            if row is None:
                self.drop(deck_id)
            elif held is None or held.version != row.version:
                await self._load(deck_id)

    async def ready_topic(self, topic: str | None) -> LoadedDeck | None:
        """The deck behind an internal deck topic, current; None for a bank topic or a removed deck."""
        deck_id = deck_of_topic(topic)
        if deck_id is None:
            return None
        row = await store.deck_by_id(self.db, deck_id)
        if row is None:
            self.drop(deck_id)
            return None
        if row.removed_at is not None:
            return None
        return next((deck for deck in await self.ready_chat(row.chat_id) if deck.id == deck_id), None)

    def drop(self, deck_id: int) -> None:
        """Forget a deck held here (replaced, removed, or the least recently used of too many)."""
        deck = self._decks.pop(deck_id, None)
        if deck is None:
            return
        for question_id in [*deck.questions, *deck.retired]:
            self._deck_questions.pop(question_id, None)
            self._held_only.discard(question_id)
        self._deck_topics.pop(deck.topic.name, None)

    async def _load(self, deck_id: int) -> LoadedDeck | None:
        self.drop(deck_id)
        row = await store.deck_by_id(self.db, deck_id)
        stored = await store.deck_questions(self.db, deck_id)
        if row is None or stored is None:
            return None
        questions = {question.id: question for question in decode(deck_id, row.name, stored.questions)}
        retired = {question.id: question for question in decode(deck_id, row.name, stored.retired or "[]")
                   if question.id not in questions}
        title = spelled(row.name)
        deck = LoadedDeck(deck_id, row.chat_id, row.name, stored.version, questions,
                          Topic("deck", "deck", internal_topic(deck_id), {"en": title, "tr": title}),
                          stored.removed, retired)
        self._decks[deck_id] = deck
        self._deck_questions.update(questions)
        self._deck_questions.update(retired)
        self._held_only.update([*questions, *retired] if stored.removed else retired)
        self._deck_topics[deck.topic.name] = deck.topic
        while len(self._decks) > CACHED_DECKS:
            self.drop(next(iter(self._decks)))
        return deck


async def ready_ids(bank: Bank, question_ids: Iterable[str]) -> None:
    """For services handed either a Library or a plain bank (tests, tools): load the decks of these ids."""
    if isinstance(bank, Library):
        await bank.ready_ids(question_ids)


def askable(bank: Bank, question_id: str) -> bool:
    """For services handed either a Library or a plain bank: may this question be asked anew?"""
    return bank.askable(question_id) if isinstance(bank, Library) else question_id in bank.questions


async def plan_as_decks_stand(bank: Bank, plan: list[str], position: int) -> tuple[list[str], bool]:
    """An interview's plan as the group decks stand now (a replace or a removal since the plan was made):
    its next question's deck read again, and when that question may no longer be asked, the rest readied
    and every question that may not be asked left out; (the plan, whether it changed)."""
    if deck_of_question(plan[position]) is not None:
        await ready_ids(bank, plan[position:position + 1])
    if askable(bank, plan[position]):
        return plan, False
    await ready_ids(bank, plan[position + 1:])
    return plan[:position] + [qid for qid in plan[position + 1:] if askable(bank, qid)], True


def askable_ids(bank: Bank) -> Collection[str]:
    """The question ids a review card or a plan may use (a removed deck's questions are not among them)."""
    return bank.askable_ids if isinstance(bank, Library) else bank.questions


def any_removed(bank: Bank, topics: Iterable[str]) -> bool:
    """Is one of these topics a deck this worker holds as removed (an interview on it ends early)?"""
    return isinstance(bank, Library) and any(bank.removed_topic(topic) for topic in topics)


async def ready_topic(bank: Bank, topic: str | None) -> None:
    if isinstance(bank, Library):
        await bank.ready_topic(topic)
