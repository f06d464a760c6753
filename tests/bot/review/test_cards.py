"""Spaced repetition: the SM-2 schedule as a table, and review cards through a real SQLite file."""

from __future__ import annotations

import pytest

from bot.schedule.clock import ManualClock
from bot.domain import LETTERS, ChatRef, InterviewFilters, UserRef
from bot.core import Core
from tests.fakes import click
from bot.interview.engine import Delivery, InterviewEngine
from bot.review.cards import DAY_S, MIN_EASE, ReviewCard, schedule
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
    assert schedule(None, True, FAST, NOW) is None
    assert schedule(None, True, None, NOW) is None


@pytest.mark.parametrize("latency_ms", [FAST, SLOW, None], ids=["wrong", "slow-wrong", "timeout"])
def test_a_miss_creates_a_card_due_tomorrow(latency_ms: int | None) -> None:
    card = schedule(None, False, latency_ms, NOW)
    assert card == ReviewCard(repetitions=0, interval_days=1.0, ease=2.3, due_at=NOW + DAY_S, lapses=1)


@pytest.mark.parametrize(
    "latency_ms, intervals, eases",
    [
        (FAST, [1, 6, 15, 39], [2.4, 2.5, 2.6, 2.7]),  # quality 5: ease grows by 0.1 each time
        (SLOW, [1, 6, 14, 32], [2.3, 2.3, 2.3, 2.3]),  # quality 4: ease stays
        (None, [1, 6, 14, 32], [2.3, 2.3, 2.3, 2.3]),  # unknown time counts as slow
        (14_999, [1, 6, 15, 39], [2.4, 2.5, 2.6, 2.7]),
        (15_000, [1, 6, 14, 32], [2.3, 2.3, 2.3, 2.3]),
    ],
)
def test_right_answers_push_a_card_further_out(latency_ms: int | None, intervals: list[int],
                                               eases: list[float]) -> None:
    card = schedule(None, False, None, NOW)
    now = NOW
    for repetition, (interval, ease) in enumerate(zip(intervals, eases), start=1):
        now = card.due_at
        card = schedule(card, True, latency_ms, now)
        assert card is not None
        assert card.repetitions == repetition and card.lapses == 1
        assert card.interval_days == interval and days_until(card, now) == pytest.approx(interval)
        assert card.ease == pytest.approx(ease)


def test_a_lapse_resets_the_repetitions_and_lowers_the_ease() -> None:
    card = schedule(None, False, None, NOW)
    for _ in range(3):
        card = schedule(card, True, FAST, card.due_at)
    assert (card.repetitions, card.interval_days, card.ease) == (3, 15.0, pytest.approx(2.6))
    later = card.due_at + 3 * DAY_S
    lapsed = schedule(card, False, FAST, later)
    assert lapsed == ReviewCard(repetitions=0, interval_days=1.0, ease=pytest.approx(2.4), due_at=later + DAY_S,
                                lapses=2)
    again = schedule(lapsed, True, FAST, lapsed.due_at)
    assert (again.repetitions, again.interval_days) == (1, 1.0), "the climb starts over"


def test_the_ease_never_falls_below_the_floor() -> None:
    card = None
    for _ in range(10):
        card = schedule(card, False, None, NOW)
    assert card.ease == MIN_EASE and card.lapses == 10
    assert schedule(card, True, SLOW, NOW).ease == MIN_EASE


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
    for interval in (1, 6, 15):
        clock.advance(DAY_S)
        while await due_questions(db, alice, clock.now()) == []:
            clock.advance(DAY_S)
        await answer(db, alice, "q", True, clock)
        card = await get_card(db, alice, "q")
        assert card.interval_days == interval and card.due_at == pytest.approx(clock.now() + interval * DAY_S)
        assert await due_questions(db, alice, clock.now()) == []
    await answer(db, alice, "q", False, clock)
    card = await get_card(db, alice, "q")
    assert (card.repetitions, card.lapses, card.interval_days) == (0, 2, 1.0)
    row = await db.fetch_one("SELECT last_reviewed_at FROM review_cards WHERE question_id = 'q'")
    assert row["last_reviewed_at"] == clock.now()


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
