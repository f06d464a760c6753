"""Spaced repetition of missed questions: the SM-2 schedule as one pure function over a frozen card.

Only questions a user got wrong (or let time out on) enter review: a question answered right the
first time teaches nothing by coming back. Each right answer on a card pushes it further out (1 day,
6 days, then the previous interval times the card's ease); each miss brings it back to tomorrow and
makes it easier to come back (lower ease). The function reads no clock: callers pass `now`.
"""

from __future__ import annotations

from dataclasses import dataclass

DAY_S = 86_400.0
START_EASE = 2.5
MIN_EASE = 1.3  # SM-2's floor: below it a hard card would come back almost daily for ever
LAPSE_EASE_PENALTY = 0.2
FAST_ANSWER_MS = 15_000  # a right answer this quick is "perfect recall" (quality 5), otherwise 4


@dataclass(frozen=True)
class ReviewCard:
    """One user's schedule for one question; `due_at` is epoch seconds (UTC)."""

    repetitions: int
    interval_days: float
    ease: float
    due_at: float
    lapses: int


def quality(latency_ms: int | None) -> int:
    """SM-2 quality of a right answer: 5 when known to be quick, else 4 (slow or unknown time)."""
    return 5 if latency_ms is not None and latency_ms < FAST_ANSWER_MS else 4


def schedule(card: ReviewCard | None, correct: bool, latency_ms: int | None, now: float) -> ReviewCard | None:
    """The card after one answer; None when there is nothing to review (right, and never missed)."""
    if not correct:
        return _lapse(card, now)
    if card is None:
        return None
    return _recall(card, quality(latency_ms), now)


def _lapse(card: ReviewCard | None, now: float) -> ReviewCard:
    """A miss: back to tomorrow, from the first repetition, with a lower ease."""
    ease = START_EASE if card is None else card.ease
    lapses = 0 if card is None else card.lapses
    return ReviewCard(repetitions=0, interval_days=1.0, ease=round(max(MIN_EASE, ease - LAPSE_EASE_PENALTY), 4),
                      due_at=now + DAY_S, lapses=lapses + 1)


def _recall(card: ReviewCard, q: int, now: float) -> ReviewCard:
    """A right answer: the next interval uses the ease as it was, then the ease moves by quality."""
    repetitions = card.repetitions + 1
    if repetitions == 1:
        interval = 1.0
    elif repetitions == 2:
        interval = 6.0
    else:
        interval = float(round(card.interval_days * card.ease))
    ease = round(max(MIN_EASE, card.ease + 0.1 - (5 - q) * (0.08 + (5 - q) * 0.02)), 4)  # no float drift
    return ReviewCard(repetitions=repetitions, interval_days=interval, ease=ease,
                      due_at=now + interval * DAY_S, lapses=card.lapses)
