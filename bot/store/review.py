"""Review cards in the store: one row per (user, question) the user has missed, with its SM-2 schedule.

`record_review` runs inside the caller's answer transaction, so an answer and the card it moves are
committed together or not at all. The readers accept `known` (the bank's question ids) so that a
question dropped from the bank never fills a review with something that cannot be asked.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import aiosqlite

from bot.review.cards import ReviewCard, schedule
from bot.store.database import Database, placeholders


async def _card(connection: aiosqlite.Connection, user_id: int, question_id: str) -> ReviewCard | None:
    async with connection.execute(
        """SELECT repetitions, interval_days, ease, due_at, lapses FROM review_cards
           WHERE user_id = ? AND question_id = ?""",
        (user_id, question_id),
    ) as cursor:
        row = await cursor.fetchone()
    return ReviewCard(int(row[0]), float(row[1]), float(row[2]), float(row[3]), int(row[4])) if row else None


async def get_card(db: Database, user_id: int, question_id: str) -> ReviewCard | None:
    """The user's card for a question, or None when it never entered review."""
    return await _card(db.connection, user_id, question_id)


async def record_review(connection: aiosqlite.Connection, user_id: int, question_id: str, correct: bool,
                        latency_ms: int | None, now: float) -> None:
    """Inside a caller's transaction: move the question's card by one answer (a right first answer
    creates nothing)."""
    await record_reviews(connection, [ReviewAnswer(user_id, question_id, correct, latency_ms, now)])


@dataclass(frozen=True)
class ReviewAnswer:
    user_id: int
    question_id: str
    correct: bool
    latency_ms: int | None
    at: float


async def record_reviews(connection: aiosqlite.Connection, answers: list[ReviewAnswer]) -> None:
    """Inside a caller's transaction: move the cards of many answers, in order, in two statements."""
    if not answers:
        return
    users = sorted({answer.user_id for answer in answers})
    questions = sorted({answer.question_id for answer in answers})
    rows = await connection.execute_fetchall(
        f"""SELECT user_id, question_id, repetitions, interval_days, ease, due_at, lapses FROM review_cards
            WHERE user_id IN ({placeholders(users)}) AND question_id IN ({placeholders(questions)})""",
        (*users, *questions),
    )
    cards = {(row[0], row[1]): ReviewCard(int(row[2]), float(row[3]), float(row[4]), float(row[5]), int(row[6]))
             for row in rows}
    changed: dict[tuple[int, str], tuple] = {}
    for answer in answers:
        key = (answer.user_id, answer.question_id)
        card = schedule(cards.get(key), answer.correct, answer.latency_ms, answer.at)
        if card is not None:
            cards[key] = card
            changed[key] = (*key, card.repetitions, card.interval_days, card.ease, card.due_at, card.lapses, answer.at)
    if changed:
        await connection.executemany(
            """INSERT INTO review_cards (user_id, question_id, repetitions, interval_days, ease, due_at, lapses,
                                         last_reviewed_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (user_id, question_id) DO UPDATE SET
                   repetitions = excluded.repetitions, interval_days = excluded.interval_days,
                   ease = excluded.ease, due_at = excluded.due_at, lapses = excluded.lapses,
                   last_reviewed_at = excluded.last_reviewed_at""",
            list(changed.values()),
        )


async def _by_due(db: Database, user_id: int, until: float | None,
                  known: Collection[str] | None) -> list[tuple[str, float]]:
    """The user's cards (due by `until`, if given) as (question id, due at), most overdue first."""
    rows = await db.fetch_all(
        "SELECT question_id, due_at FROM review_cards WHERE user_id = ? AND due_at <= coalesce(?, due_at)"
        " ORDER BY due_at, question_id",
        (user_id, until),
    )
    return [(row[0], float(row[1])) for row in rows if known is None or row[0] in known]


async def due_questions(db: Database, user_id: int, now: float, limit: int = 10,
                        known: Collection[str] | None = None) -> list[str]:
    """Question ids due for review at `now`, most overdue first: what a /review interview asks."""
    return [question_id for question_id, _ in await _by_due(db, user_id, now, known)][:limit]


async def due_count(db: Database, user_id: int, now: float, known: Collection[str] | None = None) -> int:
    """How many questions are due at `now` (all of them, not just one review's worth)."""
    return len(await _by_due(db, user_id, now, known))


async def next_due_at(db: Database, user_id: int, known: Collection[str] | None = None) -> float | None:
    """When the user's earliest card falls due (possibly already past), or None without cards."""
    cards = await _by_due(db, user_id, None, known)
    return cards[0][1] if cards else None
