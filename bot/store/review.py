"""Review cards in the store: one row per (user, question) the user has missed, with its FSRS schedule.

`record_review` runs inside the caller's answer transaction, so an answer and the card it moves are
committed together or not at all. The readers accept `known` (the bank's question ids) so that a
question dropped from the bank never fills a review with something that cannot be asked. A row
written under SM-2 (stability NULL) is read as its FSRS equivalent (bot/review/cards.from_sm2) and
written back as FSRS at its next answer.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, NamedTuple

from bot.review.cards import DEFAULT_RETENTION, ReviewCard, from_sm2, schedule
from bot.store.database import Database, Transaction, placeholders

_COLUMNS = "repetitions, interval_days, ease, due_at, lapses, last_reviewed_at, stability, card_difficulty, state"


def _card(row: Any) -> ReviewCard:
    repetitions, interval_days, ease, due_at, lapses, last, stability, difficulty, state = row
    if stability is None:
        return from_sm2(int(repetitions), float(interval_days), float(ease), float(due_at), int(lapses),
                        None if last is None else float(last))
    return ReviewCard(float(stability), float(difficulty), float(due_at), int(lapses),
                      None if last is None else float(last), int(repetitions), int(state))


async def get_card(db: Database, user_id: int, question_id: str) -> ReviewCard | None:
    """The user's card for a question, or None when it never entered review."""
    row = await db.fetch_one(f"SELECT {_COLUMNS} FROM review_cards WHERE user_id = ? AND question_id = ?",
                             (user_id, question_id))
    return _card(tuple(row)) if row else None


async def record_review(connection: Transaction, user_id: int, question_id: str, correct: bool,
                        latency_ms: int | None, now: float, retention: float = DEFAULT_RETENTION) -> None:
    """Inside a caller's transaction: move the question's card by one answer (a right first answer
    creates nothing)."""
    await record_reviews(connection, [ReviewAnswer(user_id, question_id, correct, latency_ms, now)], retention)


class ReviewAnswer(NamedTuple):
    """One answer as its review card sees it (a named tuple: a burst makes one per answer)."""

    user_id: int
    question_id: str
    correct: bool
    latency_ms: int | None
    at: float


def cards_query(users: list[int], questions: list[str]) -> tuple[str, tuple[Any, ...]]:
    """The read of these people's cards for these questions (for a caller that joins it to its own reads)."""
    return (f"""SELECT user_id, question_id, {_COLUMNS} FROM review_cards
                WHERE user_id IN ({placeholders(users)}) AND question_id IN ({placeholders(questions)})""",
            (*users, *questions))


async def record_reviews(connection: Transaction, answers: list[ReviewAnswer],
                         retention: float = DEFAULT_RETENTION, rows: list[Any] | None = None) -> None:
    """Inside a caller's transaction: move the cards of many answers, in order, in two statements (one,
    given `rows`: what `cards_query` read after the caller took the people's key locks)."""
    if not answers:
        return
    if rows is None:
        users = sorted({answer.user_id for answer in answers})
        await connection.lock("person", users)  # a card is read, moved and written back: one worker at a time
        rows = await connection.fetch_all(*cards_query(users, sorted({answer.question_id for answer in answers})))
    cards = {(row[0], row[1]): _card(tuple(row)[2:]) for row in rows}
    changed: dict[tuple[int, str], tuple] = {}
    for answer in answers:
        key = (answer.user_id, answer.question_id)
        card = schedule(cards.get(key), answer.correct, answer.at, retention)
        if card is not None:
            cards[key] = card
            changed[key] = (*key, card.repetitions, card.interval_days, card.due_at, card.lapses, answer.at,
                            card.stability, card.difficulty, card.state)
    if changed:
        await connection.executemany(
            """INSERT INTO review_cards (user_id, question_id, repetitions, interval_days, due_at, lapses,
                                         last_reviewed_at, stability, card_difficulty, state)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (user_id, question_id) DO UPDATE SET
                   repetitions = excluded.repetitions, interval_days = excluded.interval_days,
                   due_at = excluded.due_at, lapses = excluded.lapses,
                   last_reviewed_at = excluded.last_reviewed_at, stability = excluded.stability,
                   card_difficulty = excluded.card_difficulty, state = excluded.state""",
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


async def card_questions(db: Database, user_id: int, known: Collection[str] | None = None) -> list[str]:
    """Every question the user has a card for (each one they missed at least once), most overdue first."""
    return [question_id for question_id, _ in await _by_due(db, user_id, None, known)]
