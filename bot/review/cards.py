"""Spaced repetition of missed questions, scheduled by FSRS (the `fsrs` package) over a frozen card.

Only questions a user got wrong (or let time out on) enter review: a question answered right the
first time teaches nothing by coming back. Each later answer is a review rated Good (right) or Again
(wrong): FSRS keeps the card's memory stability and difficulty and puts the next review where the
chance of still knowing the answer falls to the desired retention (0.9 unless configured). On the
open-spaced-repetition benchmark FSRS predicts recall far better than SM-2, even from right/wrong
answers alone, which is all a multiple-choice click tells. Learning steps of minutes make no sense
between chat sessions, so a card goes straight to whole days; fuzzing is off so that a schedule is a
function of its answers (the tests and a restart see the same dates). Cards written under SM-2
(before schema 8) convert on first read (`from_sm2`). The functions read no clock: callers pass `now`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache

from fsrs import Card, Rating, Scheduler, State

DAY_S = 86_400.0
DEFAULT_RETENTION = 0.9
RETENTION_RANGE = (0.7, 0.99)  # outside it intervals become useless (days) or absurd (decades)
SM2_START_EASE = 2.5
SM2_MIN_EASE = 1.3


@dataclass(frozen=True)
class ReviewCard:
    """One user's schedule for one question; times are epoch seconds (UTC)."""

    stability: float  # days until recall falls to 90%
    difficulty: float  # FSRS's 1 (easy) .. 10 (hard)
    due_at: float
    lapses: int
    last_reviewed_at: float | None = None
    repetitions: int = 0  # right reviews in a row
    state: int = State.Review.value

    @property
    def interval_days(self) -> float:
        """Days from the last review to the next (0 for a card never reviewed)."""
        return (self.due_at - self.last_reviewed_at) / DAY_S if self.last_reviewed_at is not None else 0.0


@cache
def scheduler(retention: float = DEFAULT_RETENTION) -> Scheduler:
    return Scheduler(desired_retention=retention, learning_steps=(), relearning_steps=(), enable_fuzzing=False)


def _instant(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=timezone.utc)


def _fsrs_card(card: ReviewCard) -> Card:
    return Card(card_id=1, state=State(card.state), step=None if card.state == State.Review.value else 0,
                stability=card.stability, difficulty=card.difficulty, due=_instant(card.due_at),
                last_review=_instant(card.last_reviewed_at) if card.last_reviewed_at is not None else None)


def schedule(card: ReviewCard | None, correct: bool, now: float,
             retention: float = DEFAULT_RETENTION) -> ReviewCard | None:
    """The card after one answer; None when there is nothing to review (right, and never missed)."""
    if card is None and correct:
        return None
    before = Card(card_id=1, due=_instant(now)) if card is None else _fsrs_card(card)
    after, _ = scheduler(retention).review_card(before, Rating.Good if correct else Rating.Again, _instant(now))
    lapses = (card.lapses if card else 0) + (0 if correct else 1)
    repetitions = (card.repetitions + 1 if card else 1) if correct else 0
    return ReviewCard(float(after.stability), float(after.difficulty), after.due.timestamp(), lapses, now,
                      repetitions, after.state.value)


def from_sm2(repetitions: int, interval_days: float, ease: float, due_at: float, lapses: int,
             last_reviewed_at: float | None) -> ReviewCard:
    """An SM-2 card as an FSRS card in review, due when SM-2 said.

    SM-2's interval was set where it expected recall to hold, so it stands for the stability (at least a
    day); its ease (1.3 hard .. 2.5 start, higher easy) maps linearly onto FSRS's difficulty, 2.5 to the
    middle (5) and the floor 1.3 to the top (10)."""
    stability = max(1.0, interval_days)
    difficulty = min(10.0, max(1.0, 5.0 + (SM2_START_EASE - ease) * 5.0 / (SM2_START_EASE - SM2_MIN_EASE)))
    last = last_reviewed_at if last_reviewed_at is not None else due_at - interval_days * DAY_S
    return ReviewCard(stability, difficulty, due_at, lapses, last, repetitions, State.Review.value)
