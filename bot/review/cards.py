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

The package's `Scheduler.review_card` copies the card, builds datetimes, a review log and enum matches
on every answer (about 20-30 us, as much as the SQL that stores the card, and it runs in the database
thread inside each answer's transaction). With no learning steps and no fuzzing, its states all reduce
to one path, written out below with the package's own weights and its formulas' operations in the same
order, so every figure is the same to the last bit (tests/bot/review/test_cards_equal.py checks it
against `Scheduler.review_card` over thousands of random cards).
"""

from __future__ import annotations

import math
from functools import cache
from typing import NamedTuple

from fsrs import Rating, Scheduler, State

DAY_S = 86_400.0
DEFAULT_RETENTION = 0.9
RETENTION_RANGE = (0.7, 0.99)  # outside it intervals become useless (days) or absurd (decades)
SM2_START_EASE = 2.5
SM2_MIN_EASE = 1.3


class ReviewCard(NamedTuple):
    """One user's schedule for one question; times are epoch seconds (UTC). A named tuple (immutable,
    made in a third of a frozen dataclass's time): every missed answer of a burst reads and writes one."""

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


_US_PER_S, _US_PER_DAY = 1_000_000, 86_400_000_000


def _microseconds(epoch: float) -> int:
    """The instant as whole microseconds since the epoch, rounded as `datetime.fromtimestamp` rounds
    (the fraction's microseconds half to even): the package's day counts and due dates are whole
    microseconds, and this gives them without building datetimes (2 us each)."""
    fraction, whole = math.modf(epoch)
    micro = round(fraction * 1e6)
    return int(whole) * _US_PER_S + micro


_STABILITY_MIN, _DIFFICULTY_MIN, _DIFFICULTY_MAX, _MAX_INTERVAL_DAYS = 0.001, 1.0, 10.0, 36500
_STATES = frozenset(state.value for state in State)
_AGAIN, _GOOD, _REVIEW = int(Rating.Again), int(Rating.Good), State.Review.value  # enum lookups, once


class _Formulas:
    """FSRS's per-answer formulas for one desired retention, with everything that does not depend on
    the card worked out once (each constant by the very expression the package evaluates per call)."""

    def __init__(self, retention: float) -> None:
        w = self.w = scheduler(retention).parameters
        self.decay = -w[20]
        self.factor = 0.9 ** (1 / self.decay) - 1
        self.interval_scale = (retention ** (1 / self.decay)) - 1
        again, good, easy = int(Rating.Again), int(Rating.Good), int(Rating.Easy)
        self.first_stability = max(w[again - 1], _STABILITY_MIN)  # a new card's first answer is a miss
        self.first_difficulty = min(max(w[4] - (math.e ** (w[5] * (again - 1))) + 1, _DIFFICULTY_MIN),
                                    _DIFFICULTY_MAX)
        self.reversion = w[7] * (w[4] - (math.e ** (w[5] * (easy - 1))) + 1)  # toward an easy card's difficulty
        self.keep = 1 - w[7]
        self.delta = {rating: -(w[6] * (rating - 3)) for rating in (again, good)}
        self.short_term = {rating: math.e ** (w[17] * (rating - 3 + w[18])) for rating in (again, good)}
        self.forget_short = math.e ** (w[17] * w[18])
        self.recall_base = math.e ** (w[8])
        self.first_interval_us = self.interval_days(self.first_stability) * _US_PER_DAY  # every first miss's
        self.first_card = (float(self.first_stability), float(self.first_difficulty))

    def difficulty(self, difficulty: float, rating: int) -> float:
        moved = difficulty + (10.0 - difficulty) * self.delta[rating] / 9.0
        return min(max(self.reversion + self.keep * moved, _DIFFICULTY_MIN), _DIFFICULTY_MAX)

    def stability_same_day(self, stability: float, rating: int) -> float:
        increase = self.short_term[rating] * (stability ** -self.w[19])
        if rating != _AGAIN:
            increase = max(increase, 1.0)
        return max(stability * increase, _STABILITY_MIN)

    def stability(self, difficulty: float, stability: float, elapsed_days: int | None, rating: int) -> float:
        """After a gap of whole days (None: never reviewed, recall counted as 0)."""
        w = self.w
        recall = 0 if elapsed_days is None else (1 + self.factor * max(0, elapsed_days) / stability) ** self.decay
        if rating == _AGAIN:
            long_term = (w[11] * (difficulty ** -w[12]) * (((stability + 1) ** (w[13])) - 1)
                         * (math.e ** ((1 - recall) * w[14])))
            moved = min(long_term, stability / self.forget_short)
        else:
            moved = stability * (1 + self.recall_base * (11 - difficulty) * (stability ** -w[9])
                                 * ((math.e ** ((1 - recall) * w[10])) - 1))
        return max(moved, _STABILITY_MIN)

    def interval_days(self, stability: float) -> int:
        return min(max(round((stability / self.factor) * self.interval_scale), 1), _MAX_INTERVAL_DAYS)


@cache
def _formulas(retention: float) -> _Formulas:
    return _Formulas(retention)


def schedule(card: ReviewCard | None, correct: bool, now: float,
             retention: float = DEFAULT_RETENTION) -> ReviewCard | None:
    """The card after one answer; None when there is nothing to review (right, and never missed).

    What `scheduler(retention).review_card` gives, rated Good (right) or Again (wrong): with no
    learning or relearning steps every state (Learning, Review, Relearning) moves the same way and
    lands in Review, due a whole number of days later."""
    if card is None and correct:
        return None
    formulas = _formulas(retention)
    at = _microseconds(now)
    if card is None:  # a first miss: the same card at every instant, but for its dates
        return ReviewCard(formulas.first_card[0], formulas.first_card[1],
                          (at + formulas.first_interval_us) / _US_PER_S, 1, now, 0, _REVIEW)
    if card.state not in _STATES:
        raise ValueError(f"unknown card state {card.state}")
    rating = _GOOD if correct else _AGAIN
    days = None if card.last_reviewed_at is None else (at - _microseconds(card.last_reviewed_at)) // _US_PER_DAY
    if days is not None and days < 1:
        stability = formulas.stability_same_day(card.stability, rating)
    else:
        stability = formulas.stability(card.difficulty, card.stability, days, rating)
    difficulty = formulas.difficulty(card.difficulty, rating)
    due_at = (at + formulas.interval_days(stability) * _US_PER_DAY) / _US_PER_S  # as datetime.timestamp() divides
    repetitions = card.repetitions + 1 if correct else 0
    return ReviewCard(float(stability), float(difficulty), due_at, card.lapses + (0 if correct else 1), now,
                      repetitions, _REVIEW)


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
