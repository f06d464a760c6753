"""The review schedule written out (bot/review/cards.schedule) against the `fsrs` package's own
`Scheduler.review_card`, the way the schedule called it before: the same card after every answer, to
the last bit, over thousands of random cards, gaps (same day, whole-day boundaries, years), states
and retentions, and along chains of answers."""

from __future__ import annotations

import random
from datetime import datetime, timezone

from fsrs import Card, Rating, Scheduler, State

from bot.review.cards import DAY_S, DEFAULT_RETENTION, RETENTION_RANGE, ReviewCard, _microseconds, schedule

NOW = 1_780_000_000.0


def _instant(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=timezone.utc)


def package_schedule(card: ReviewCard | None, correct: bool, now: float, retention: float) -> ReviewCard | None:
    """The schedule as it was: a package Card in, `review_card`, a ReviewCard out."""
    if card is None and correct:
        return None
    scheduler = Scheduler(desired_retention=retention, learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    if card is None:
        before = Card(card_id=1, due=_instant(now))
    else:
        before = Card(card_id=1, state=State(card.state), step=None if card.state == State.Review.value else 0,
                      stability=card.stability, difficulty=card.difficulty, due=_instant(card.due_at),
                      last_review=_instant(card.last_reviewed_at) if card.last_reviewed_at is not None else None)
    after, _ = scheduler.review_card(before, Rating.Good if correct else Rating.Again, _instant(now))
    lapses = (card.lapses if card else 0) + (0 if correct else 1)
    repetitions = (card.repetitions + 1 if card else 1) if correct else 0
    return ReviewCard(float(after.stability), float(after.difficulty), after.due.timestamp(), lapses, now,
                      repetitions, after.state.value)


def _gap_s(rng: random.Random) -> float:
    """Seconds since the last review: same day, right at a whole-day boundary, days, years, or negative."""
    kind = rng.randrange(5)
    if kind == 0:
        return rng.uniform(0, DAY_S)
    if kind == 1:
        return rng.randrange(1, 60) * DAY_S + rng.choice((-1e-6, 0.0, 1e-6, -0.4e-6, 0.5e-6))
    if kind == 2:
        return rng.uniform(DAY_S, 90 * DAY_S)
    if kind == 3:
        return rng.uniform(90 * DAY_S, 3_000 * DAY_S)
    return -rng.uniform(0, 3 * DAY_S)


def _random_card(rng: random.Random, now: float) -> ReviewCard:
    last = None if rng.random() < 0.05 else now - _gap_s(rng)
    return ReviewCard(stability=10 ** rng.uniform(-3, 4), difficulty=rng.uniform(1.0, 10.0),
                      due_at=now + rng.uniform(-30, 30) * DAY_S, lapses=rng.randrange(5), last_reviewed_at=last,
                      repetitions=rng.randrange(6), state=rng.choice([s.value for s in State]))


def _retention(rng: random.Random) -> float:
    return DEFAULT_RETENTION if rng.random() < 0.5 else rng.uniform(*RETENTION_RANGE)


def test_random_cards_move_exactly_as_the_package_moves_them() -> None:
    rng = random.Random(20261202)
    for _ in range(5_000):
        now = NOW + rng.uniform(0, 400 * DAY_S)
        card = None if rng.random() < 0.1 else _random_card(rng, now)
        correct, retention = rng.random() < 0.5, _retention(rng)
        assert schedule(card, correct, now, retention) == package_schedule(card, correct, now, retention), card


def test_chains_of_answers_stay_equal_to_the_package() -> None:
    """A card's whole life, answered at random times (on time, early, the same day, late)."""
    rng = random.Random(7)
    for _ in range(300):
        retention, now = _retention(rng), NOW + rng.uniform(0, DAY_S)
        ours = theirs = None
        for _ in range(12):
            correct = rng.random() < 0.6
            ours, theirs = schedule(ours, correct, now, retention), package_schedule(theirs, correct, now, retention)
            assert ours == theirs
            if ours is not None:
                now = ours.due_at + rng.choice((0.0, -0.7, 0.3, 3.0)) * DAY_S * rng.random()
            else:
                now += rng.uniform(0, 2 * DAY_S)


def test_instants_round_to_the_microsecond_as_datetime_does() -> None:
    """Whole microseconds as `datetime.fromtimestamp` makes them, half-microsecond ties and negative
    fractions included."""
    rng = random.Random(11)
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    instants = [NOW + rng.uniform(-1e9, 1e9) for _ in range(20_000)]
    instants += [NOW + rng.randrange(10**6) / 1e6 + tie for tie in (5e-7, -5e-7, 4.9e-7) for _ in range(5_000)]
    instants += [-rng.uniform(0, 1e6) for _ in range(2_000)] + [0.0, 0.9999995, 1.9999999, -0.0000005]
    for instant in instants:
        moment = _instant(instant) - epoch
        assert _microseconds(instant) == (moment.days * 86_400 + moment.seconds) * 10**6 + moment.microseconds, instant
