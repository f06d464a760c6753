"""Group decks in the store: one row per deck, its questions as one JSON text, a version that moves on
every replace and removal (the cache key of every worker), and when a chat removed the bot (its decks'
countdown).

A live question (an open daily post, a quiz round's question, an interview's asked question) finishes
normally after its deck is removed or replaced: a removal only marks the row (`removed_at`: no longer
listed, named or drawn from), and a replace keeps the questions it drops that are still live (`retired`).
Both are swept once nothing live refers to them (`sweep`); the 30-day purge deletes regardless.

Every deck SQL statement lives here; the rules (who may, how many, what a file must hold) are bot/decks'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.limits import DECK_LIVE_AT_MOST_S, DECK_REMOVAL_GRACE_S
from bot.store.backend import Row, Transaction
from bot.store.database import Database


Retire = Callable[[set[str]], "str | None"]  # the ids live now -> the dropped questions to keep, encoded


class TooManyDecks(Exception):
    """The chat holds its limit of decks already: a new name is refused (a replace is not)."""


@dataclass(frozen=True)
class DeckRow:
    """A deck as listed: which chat holds it, under which name, who added it (blank once forgotten) and when."""

    id: int
    chat_id: int
    name: str
    version: int
    count: int
    added_by: int | None
    added_by_name: str
    added_at: float
    removed_at: float | None = None  # removed by an administrator, kept only while a question of it is live


@dataclass(frozen=True)
class StoredQuestions:
    """What a worker loads of one deck, read together so that they match: its questions as JSON, and those
    a replace dropped that were still being asked (None: none)."""

    version: int
    questions: str
    retired: str | None
    removed: bool


@dataclass(frozen=True)
class SharedChat:
    """A group a person shares with the bot that holds decks: the store's id and the platform's."""

    id: int
    platform: str
    platform_chat_id: str
    title: str


_COLUMNS = "id, chat_id, name, version, question_count, added_by, added_by_name, added_at, removed_at"
_LIVE = "removed_at IS NULL"
AWAITING_SWEEP = "removed_at IS NOT NULL OR retired IS NOT NULL"  # the predicate of the partial index (migration 16)


def _deck(row: Row) -> DeckRow:
    return DeckRow(int(row[0]), int(row[1]), str(row[2]), int(row[3]), int(row[4]),
                   None if row[5] is None else int(row[5]), str(row[6]), float(row[7]),
                   None if row[8] is None else float(row[8]))


async def list_decks(db: Database, chat_id: int, removed: bool = False) -> list[DeckRow]:
    """The chat's decks by name (no questions read: the versions are the cache's freshness check); with
    `removed`, also those removed but kept for a live question."""
    rows = await db.fetch_all(f"SELECT {_COLUMNS} FROM decks WHERE chat_id = ? {'' if removed else 'AND ' + _LIVE}"
                              " ORDER BY name", (chat_id,))
    return [_deck(row) for row in rows]


async def get_deck(db: Database, chat_id: int, name: str, removed: bool = False) -> DeckRow | None:
    """The chat's deck of that name; a removed one is nobody's to name any more (but an upload of its name
    takes its row up again: `removed`)."""
    row = await db.fetch_one(f"SELECT {_COLUMNS} FROM decks WHERE chat_id = ? AND name = ?"
                             f"{'' if removed else ' AND ' + _LIVE}", (chat_id, name))
    return _deck(row) if row else None


async def deck_by_id(db: Database, deck_id: int) -> DeckRow | None:
    """One deck by id, a removed one included (its `removed_at` says so)."""
    row = await db.fetch_one(f"SELECT {_COLUMNS} FROM decks WHERE id = ?", (deck_id,))
    return _deck(row) if row else None


async def deck_questions(db: Database, deck_id: int) -> StoredQuestions | None:
    """What a worker loads of one deck (removed or not); None once it is deleted."""
    row = await db.fetch_one("SELECT version, questions, retired, removed_at FROM decks WHERE id = ?", (deck_id,))
    if row is None:
        return None
    return StoredQuestions(int(row[0]), str(row[1]), None if row[2] is None else str(row[2]), row[3] is not None)


# Live asks, found from the few rows that can be live (each through an index): daily posts before their
# reveal, questions of running quiz rounds, active interviews' open questions; none asked before the window.
_LIVE_ASKS = """SELECT DISTINCT question_id FROM (
    SELECT q.question_id FROM daily_posts p JOIN asked_questions q ON q.id = p.asked_id
     WHERE p.state IN ('pending', 'sent', 'unknown', 'failed') AND q.asked_at > ?
    UNION SELECT q.question_id FROM quiz_rounds r JOIN quiz_questions z ON z.round_id = r.id
          JOIN asked_questions q ON q.id = z.asked_id WHERE r.state = 'running'
    UNION SELECT q.question_id FROM interviews i JOIN asked_questions q ON q.interview_id = i.id
     WHERE i.status = 'active' AND q.closed_at IS NULL AND q.asked_at > ?) AS live WHERE question_id LIKE ?"""


async def live_question_ids(reader: Database | Transaction, deck_id: int, now: float) -> set[str]:
    """The deck's questions being asked now: a daily post's until its reveal is done, a running quiz round's,
    an active interview's open question; asked within DECK_LIVE_AT_MOST_S."""
    since = now - DECK_LIVE_AT_MOST_S
    rows = await reader.fetch_all(_LIVE_ASKS, (since, since, f"deck.{deck_id}.%"))
    return {str(row[0]) for row in rows}


async def open_reveals(db: Database, deck_id: int) -> list[tuple[float, str]]:
    """(when, the chat's time zone) of the deck's daily posts still waiting for their reveal."""
    rows = await db.fetch_all(
        """SELECT p.reveal_at, coalesce(s.timezone, 'UTC') FROM daily_posts p
           JOIN asked_questions q ON q.id = p.asked_id LEFT JOIN subscriptions s ON s.chat_id = p.chat_id
           WHERE p.state IN ('pending', 'sent', 'unknown') AND q.question_id LIKE ? ORDER BY p.reveal_at""",
        (f"deck.{deck_id}.%",))
    return [(float(row[0]), str(row[1])) for row in rows]


async def save_deck(db: Database, chat_id: int, name: str, questions: str, count: int, user_id: int | None,
                    user_name: str, now: float, max_decks: int, retire: Retire | None = None) -> tuple[DeckRow, bool]:
    """Add the deck, or replace the one of that name (same row and id, version + 1); (the deck, replaced?).
    `retire`: given the ids live now (read inside this transaction), the earlier questions this replace
    drops that are still live, encoded, kept for them alone (None: none). A removed
    deck of that name (kept for a live question) is taken up again, as a new deck for the limit and the
    reply. TooManyDecks when a new name would pass `max_decks` (counted in the same transaction)."""
    async with db.transaction() as connection:
        # The chat's key lock first: two uploads to one chat take turns (SQLite's writers take turns anyway),
        # so neither the count below nor a new name uploaded twice at once can be passed by a race.
        await connection.lock("chat", [chat_id])
        row = await connection.fetch_one("SELECT id, removed_at FROM decks WHERE chat_id = ? AND name = ?",
                                         (chat_id, name))
        held = await connection.fetch_one(f"SELECT count(*) FROM decks WHERE chat_id = ? AND {_LIVE}", (chat_id,))
        if row is not None and (row[1] is None or held is None or int(held[0]) < max_decks):
            retired = retire(await live_question_ids(connection, int(row[0]), now)) if retire else None
            await connection.execute(
                """UPDATE decks SET version = version + 1, questions = ?, question_count = ?, added_by = ?,
                   added_by_name = ?, added_at = ?, retired = ?, removed_at = NULL WHERE id = ?""",
                (questions, count, user_id, user_name, now, retired, row[0]))
            deck_id, replaced = int(row[0]), row[1] is None
        else:
            if held is not None and int(held[0]) >= max_decks:
                raise TooManyDecks(name)
            deck_id = await connection.insert_returning_id(
                """INSERT INTO decks (chat_id, name, version, questions, question_count, added_by, added_by_name,
                   added_at) VALUES (?, ?, 1, ?, ?, ?, ?, ?) RETURNING id""",
                (chat_id, name, questions, count, user_id, user_name, now))
            replaced = False
        saved = await connection.fetch_one(f"SELECT {_COLUMNS} FROM decks WHERE id = ?", (deck_id,))
    assert saved is not None
    return _deck(saved), replaced


async def delete_deck(db: Database, deck_id: int, version: int | None, now: float) -> DeckRow | None:
    """Remove a deck (only at `version`, when given: a confirmation given for one upload never removes the
    next); a daily question set to its topic goes back to every topic. None when nothing was removed.
    Asked questions and answers stay: boards keep counting them. The row is marked removed (version + 1,
    so every worker's cache sees it) and `sweep` deletes it once DECK_REMOVAL_GRACE_S went by and nothing
    of it is live: a daily post another worker was creating from it as the removal committed (its deck
    read a moment before) is live by then, and keeps what its reveal needs."""
    async with db.transaction() as connection:
        found = await connection.fetch_one("SELECT chat_id FROM decks WHERE id = ?", (deck_id,))
        if found is None:
            return None
        await connection.lock("chat", [int(found[0])])  # after a replace or a sweep of this chat, never beside one
        row = await connection.fetch_one(f"SELECT {_COLUMNS} FROM decks WHERE id = ? AND {_LIVE}", (deck_id,))
        if row is None or (version is not None and int(row[3]) != version):
            return None
        await connection.execute("UPDATE subscriptions SET topic = NULL WHERE topic = ?", (f"deck.{deck_id}",))
        await connection.execute("UPDATE decks SET removed_at = ?, version = version + 1 WHERE id = ?",
                                 (now, deck_id))
    return _deck(row)


async def kept_for_live(db: Database) -> list[DeckRow]:
    """Decks removed, or holding questions a replace dropped, while a question of theirs was live: what
    `sweep` looks at (none, mostly: one small read)."""
    rows = await db.fetch_all(f"SELECT {_COLUMNS} FROM decks WHERE {AWAITING_SWEEP}")
    return [_deck(row) for row in rows]


async def sweep(db: Database, deck_id: int, now: float, retired: str | None, version: int) -> bool:
    """After the live questions of a kept deck closed: a removed deck is deleted (True), a replaced one
    keeps `retired` (the dropped questions still live, read at `version`; None clears them). Checked again
    under the chat's lock, so a question asked or a replace made meanwhile keeps what it needs."""
    async with db.transaction() as connection:
        row = await connection.fetch_one("SELECT chat_id FROM decks WHERE id = ?", (deck_id,))
        if row is None:
            return False
        await connection.lock("chat", [int(row[0])])
        # read again under the lock: an upload of its name may have taken the removed deck up meanwhile
        row = await connection.fetch_one("SELECT removed_at FROM decks WHERE id = ?", (deck_id,))
        if row is None:
            return False
        if row[0] is not None:
            if float(row[0]) > now - DECK_REMOVAL_GRACE_S:
                return False
            if not await live_question_ids(connection, deck_id, now):
                await _delete(connection, [deck_id])
                return True
            return False
        await connection.execute("UPDATE decks SET retired = ? WHERE id = ? AND version = ?",
                                 (retired, deck_id, version))
    return False


async def _delete(connection: Transaction, deck_ids: list[int]) -> None:
    for deck_id in deck_ids:
        await connection.execute("UPDATE subscriptions SET topic = NULL WHERE topic = ?", (f"deck.{deck_id}",))
        await connection.execute("DELETE FROM decks WHERE id = ?", (deck_id,))


async def forget_uploader(connection: Transaction, user_id: int) -> int:
    """Inside /forget's transaction, before the person's row goes: their name leaves the decks they added;
    the decks stay with their groups."""
    return (await connection.execute(
        "UPDATE decks SET added_by = NULL, added_by_name = '' WHERE added_by = ?", (user_id,))).rowcount


async def move_decks(connection: Transaction, old_chat: int, new_chat: int) -> None:
    """Inside a chat merge (bot.store.people.move_chat), before the old record goes: its decks follow,
    unless the new one has a deck of that name (the new one's wins)."""
    await connection.execute(
        """UPDATE decks SET chat_id = ? WHERE chat_id = ?
           AND name NOT IN (SELECT name FROM decks WHERE chat_id = ?)""", (new_chat, old_chat, new_chat))
    rows = await connection.fetch_all("SELECT id FROM decks WHERE chat_id = ?", (old_chat,))
    await _delete(connection, [int(row[0]) for row in rows])


async def shared_chats(db: Database, user_id: int) -> list[SharedChat]:
    """Groups holding decks where this person is known: on its board, by an answer there, or as an uploader.
    Read from the decks (few) outward, so that it costs nothing where no group has one."""
    rows = await db.fetch_all(
        """SELECT c.id, c.platform, c.platform_chat_id, c.title FROM chats c
           WHERE c.id IN (SELECT DISTINCT chat_id FROM decks WHERE removed_at IS NULL) AND c.kind <> 'private'
             AND (EXISTS (SELECT 1 FROM board_totals b WHERE b.chat_id = c.id AND b.user_id = ?)
                  OR EXISTS (SELECT 1 FROM answers a JOIN asked_questions q ON q.id = a.asked_id
                             WHERE a.user_id = ? AND q.chat_id = c.id)
                  OR EXISTS (SELECT 1 FROM decks d WHERE d.chat_id = c.id AND d.added_by = ?))
           ORDER BY c.id""", (user_id, user_id, user_id))
    return [SharedChat(int(row[0]), str(row[1]), str(row[2]), str(row[3])) for row in rows]


async def overdue_deck_questions(db: Database, now: float) -> list[str]:
    """Deck questions open past their deadline (timed interviews), by the open-deadline index."""
    rows = await db.fetch_all(
        """SELECT DISTINCT question_id FROM asked_questions
           WHERE closed_at IS NULL AND deadline IS NOT NULL AND deadline <= ? AND question_id LIKE 'deck.%'""",
        (now,))
    return [str(row[0]) for row in rows]


async def mark_left(db: Database, chat_id: int, now: float) -> None:
    """The bot was removed from the chat: its decks' 30 days start (the first removal counts)."""
    await db.in_one_call(lambda connection: connection.execute(
        "UPDATE chats SET left_at = ? WHERE id = ? AND left_at IS NULL", (now, chat_id)))


async def mark_back(db: Database, chat_id: int) -> bool:
    """The bot is in the chat again: its decks stay. True when a countdown was stopped."""
    result = await db.in_one_call(lambda connection: connection.execute(
        "UPDATE chats SET left_at = NULL WHERE id = ? AND left_at IS NOT NULL", (chat_id,)))
    return result.rowcount > 0


async def purge_left(db: Database, before: float) -> list[int]:
    """Delete the decks of chats that removed the bot at or before `before`; the deck ids deleted."""
    async with db.transaction() as connection:
        rows = await connection.fetch_all(
            """SELECT d.id FROM decks d JOIN chats c ON c.id = d.chat_id
               WHERE c.left_at IS NOT NULL AND c.left_at <= ? ORDER BY d.id""", (before,))
        deck_ids = [int(row[0]) for row in rows]
        await _delete(connection, deck_ids)
    return deck_ids


async def next_purge(db: Database) -> float | None:
    """When the earliest countdown of a chat holding decks started (None: nothing is counting down)."""
    row = await db.fetch_one(
        "SELECT min(c.left_at) FROM chats c WHERE c.left_at IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM decks d WHERE d.chat_id = c.id)")
    return float(row[0]) if row and row[0] is not None else None
