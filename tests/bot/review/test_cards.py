"""Spaced repetition: the FSRS schedule, SM-2 cards migrated, and review cards through a real SQLite file."""

from __future__ import annotations

import pytest

from bot.schedule.clock import ManualClock
from bot.domain import LETTERS, ChatRef, InterviewFilters, UserRef
from bot.core import Core
from tests.fakes import click
from bot.interview.engine import Delivery, InterviewEngine
from bot.review.cards import DAY_S, ReviewCard, from_sm2, schedule
from bot.store import Database
from bot.store.people import ensure_user
from bot.store.review import due_count, due_questions, get_card, next_due_at, record_review
from bot.tokens import answer_token

NOW = 1_780_000_000.0
ALICE = UserRef("test", "alice", "Alice", "en")
BOB = UserRef("test", "bob", "Bob", "en")
FAST, SLOW = 4_000, 40_000


def days_until(card: ReviewCard, now: float) -> float:
    return (card.due_at - now) / DAY_S


# --- the schedule, pure ----------------------------------------------------------------------------

def test_a_right_answer_on_a_new_question_creates_nothing() -> None:
    assert schedule(None, True, NOW) is None


def test_a_miss_creates_a_card_due_tomorrow() -> None:
    card = schedule(None, False, NOW)
    assert card is not None and card.lapses == 1 and card.repetitions == 0
    assert days_until(card, NOW) == pytest.approx(1.0)
    assert card.last_reviewed_at == NOW and 0 < card.stability < 1 and 1 <= card.difficulty <= 10


def test_right_answers_push_a_card_further_out() -> None:
    """FSRS-6's default weights: after a miss, right answers on time give 2, 6, 17, 44 days."""
    card = schedule(None, False, NOW)
    intervals = []
    for repetition in range(1, 5):
        now = card.due_at
        card = schedule(card, True, now)
        assert card.repetitions == repetition and card.lapses == 1
        intervals.append(round(days_until(card, now)))
        assert card.interval_days == pytest.approx(days_until(card, now))
    assert intervals == [2, 6, 17, 44]


def test_a_lapse_shortens_the_next_interval_and_hardens_the_card() -> None:
    card = schedule(None, False, NOW)
    for _ in range(3):
        card = schedule(card, True, card.due_at)
    later = card.due_at + 3 * DAY_S
    lapsed = schedule(card, False, later)
    assert lapsed.lapses == 2 and lapsed.repetitions == 0
    assert lapsed.stability < card.stability and lapsed.difficulty > card.difficulty
    assert days_until(lapsed, later) < card.interval_days


def test_a_higher_retention_brings_reviews_sooner() -> None:
    card = ReviewCard(stability=10.0, difficulty=5.0, due_at=NOW, lapses=1, last_reviewed_at=NOW - 10 * DAY_S)
    relaxed, strict = schedule(card, True, NOW, 0.8), schedule(card, True, NOW, 0.95)
    assert days_until(strict, NOW) < days_until(schedule(card, True, NOW), NOW) < days_until(relaxed, NOW)


def test_an_sm2_card_converts_due_when_sm2_said() -> None:
    card = from_sm2(repetitions=3, interval_days=15.0, ease=2.6, due_at=NOW, lapses=1,
                    last_reviewed_at=NOW - 15 * DAY_S)
    assert (card.stability, card.due_at, card.lapses, card.repetitions) == (15.0, NOW, 1, 3)
    assert card.difficulty == pytest.approx(5 - 0.1 * 5 / 1.2)
    assert from_sm2(0, 1.0, 1.3, NOW, 4, None).difficulty == 10.0
    assert from_sm2(0, 1.0, 1.3, NOW, 4, None).last_reviewed_at == NOW - DAY_S
    assert from_sm2(5, 0.2, 3.5, NOW, 0, None).stability == 1.0
    assert from_sm2(5, 30.0, 3.5, NOW, 0, None).difficulty == 1.0


# --- the store -------------------------------------------------------------------------------------

async def user_id(db: Database, user: UserRef, clock: ManualClock) -> int:
    return (await ensure_user(db, user, clock.now())).id


async def answer(db: Database, user: int, question_id: str, correct: bool, clock: ManualClock,
                 latency_ms: int | None = FAST) -> None:
    async with db.transaction() as connection:
        await record_review(connection, user, question_id, correct, latency_ms, clock.now())


async def test_missed_questions_fall_due_most_overdue_first(db: Database, clock: ManualClock) -> None:
    alice = await user_id(db, ALICE, clock)
    await answer(db, alice, "q-right", True, clock)
    await answer(db, alice, "q-early", False, clock)
    clock.advance(3600)
    await answer(db, alice, "q-late", False, clock)
    assert await get_card(db, alice, "q-right") is None, "a right first answer never enters review"
    assert await due_questions(db, alice, clock.now()) == []
    assert await due_count(db, alice, clock.now()) == 0
    assert await next_due_at(db, alice) == pytest.approx(clock.now() - 3600 + DAY_S)

    clock.advance(DAY_S - 3600)
    assert await due_questions(db, alice, clock.now()) == ["q-early"]
    clock.advance(3600)
    assert await due_questions(db, alice, clock.now()) == ["q-early", "q-late"]
    assert await due_questions(db, alice, clock.now(), limit=1) == ["q-early"]
    assert await due_count(db, alice, clock.now()) == 2


async def test_a_right_review_moves_the_card_and_a_miss_brings_it_back(db: Database, clock: ManualClock) -> None:
    alice = await user_id(db, ALICE, clock)
    await answer(db, alice, "q", False, clock)
    for interval in (2, 6, 17):
        clock.advance(DAY_S)
        while await due_questions(db, alice, clock.now()) == []:
            clock.advance(DAY_S)
        await answer(db, alice, "q", True, clock)
        card = await get_card(db, alice, "q")
        assert round(card.interval_days) == interval and card.due_at == pytest.approx(clock.now() + interval * DAY_S)
        assert await due_questions(db, alice, clock.now()) == []
    await answer(db, alice, "q", False, clock)
    card = await get_card(db, alice, "q")
    assert (card.repetitions, card.lapses) == (0, 2)
    row = await db.fetch_one("SELECT last_reviewed_at FROM review_cards WHERE question_id = 'q'")
    assert row["last_reviewed_at"] == clock.now()


async def test_sm2_cards_of_an_older_store_migrate(db_path, clock: ManualClock) -> None:
    """A store written under SM-2 (schema 7) opens on FSRS: each card keeps its due date, then moves on FSRS."""
    old = await Database.open(db_path, migrate_to=7)
    alice = await user_id(old, ALICE, clock)
    async with old.transaction() as connection:
        await connection.execute(
            """INSERT INTO review_cards (user_id, question_id, repetitions, interval_days, ease, due_at, lapses,
                                         last_reviewed_at) VALUES (?, 'q', 3, 15, 2.6, ?, 1, ?)""",
            (alice, NOW, NOW - 15 * DAY_S))
    await old.close()
    db = await Database.open(db_path)
    try:
        card = await get_card(db, alice, "q")
        assert card == from_sm2(3, 15.0, 2.6, NOW, 1, NOW - 15 * DAY_S)
        assert await due_questions(db, alice, NOW) == ["q"] and await due_questions(db, alice, NOW - 1) == []
        clock.set(NOW)
        await answer(db, alice, "q", True, clock)
        moved = await get_card(db, alice, "q")
        assert moved.repetitions == 4 and moved.stability > 15 and days_until(moved, NOW) > 15
        row = await db.fetch_one("SELECT stability, state FROM review_cards WHERE question_id = 'q'")
        assert row["stability"] == pytest.approx(moved.stability) and row["state"] == 2
    finally:
        await db.close()


async def test_cards_belong_to_one_user(db: Database, clock: ManualClock) -> None:
    alice, bob = await user_id(db, ALICE, clock), await user_id(db, BOB, clock)
    await answer(db, alice, "q", False, clock)
    clock.advance(2 * DAY_S)
    assert await due_questions(db, bob, clock.now()) == [] and await next_due_at(db, bob) is None
    assert await due_questions(db, alice, clock.now()) == ["q"]


async def test_a_rolled_back_answer_leaves_no_card(db: Database, clock: ManualClock) -> None:
    alice = await user_id(db, ALICE, clock)
    with pytest.raises(RuntimeError):
        async with db.transaction() as connection:
            await record_review(connection, alice, "q", False, None, clock.now())
            raise RuntimeError("the answer's insert failed")
    assert await get_card(db, alice, "q") is None


async def test_questions_gone_from_the_bank_are_skipped(db: Database, clock: ManualClock) -> None:
    alice = await user_id(db, ALICE, clock)
    await answer(db, alice, "gone", False, clock)
    clock.advance(60)
    await answer(db, alice, "kept", False, clock)
    clock.advance(DAY_S)
    known = {"kept"}
    assert await due_questions(db, alice, clock.now()) == ["gone", "kept"]
    assert await due_questions(db, alice, clock.now(), known=known) == ["kept"]
    assert await due_count(db, alice, clock.now(), known=known) == 1
    assert await next_due_at(db, alice, known=known) == pytest.approx(clock.now() - DAY_S + DAY_S)


def wrong_letter(delivery: Delivery) -> str:
    return next(LETTERS[p] for p, i in enumerate(delivery.asked.option_order) if i != delivery.question.correct_index)


async def test_missed_interview_questions_come_back_for_review(core: Core, engine: InterviewEngine, db: Database,
                                                               clock: ManualClock) -> None:
    """How the engine wires it: each recorded answer moves its card (here replayed from the store)."""
    delivery = await engine.start(await core.caller(ALICE, ChatRef("test", "dm")), InterviewFilters(count=4))
    missed = []
    while delivery is not None:
        clock.advance(5)
        right = delivery.asked.shown_letter_of(delivery.question.correct_index)
        letter = wrong_letter(delivery) if delivery.number % 2 else right
        if letter != right:
            missed.append(delivery.question.id)
        delivery = (await click(core, ALICE, ChatRef("test", "dm"), answer_token(delivery.asked.id, letter))).result.next
    rows = await db.fetch_all("""SELECT a.user_id, q.question_id, a.correct, a.latency_ms, a.answered_at
                                 FROM answers a JOIN asked_questions q ON q.id = a.asked_id ORDER BY a.id""")
    async with db.transaction() as connection:
        for row in rows:
            await record_review(connection, row["user_id"], row["question_id"], bool(row["correct"]),
                                row["latency_ms"], row["answered_at"])
    alice = await user_id(db, ALICE, clock)
    clock.advance(DAY_S)
    assert sorted(await due_questions(db, alice, clock.now())) == sorted(missed) and len(missed) == 2
