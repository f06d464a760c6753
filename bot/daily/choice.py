"""Which question a daily post asks: one matching the chat's filter (or the topic asked for now), not
repeated in the chat until the filter's pool is used up; a group deck's topic reads its deck first."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from bot.bank.loader import Bank
from bot.decks.library import ready_topic
from bot.domain import Question
from bot.store.daily import Subscription


async def choose(bank: Bank, rng: random.Random, subscription: Subscription | None, seen: Mapping[str, float],
                 fits: Callable[[Question], bool] | None = None,
                 topic: str | None = None) -> tuple[Question | None, bool]:
    """A question, and whether it had to ignore `fits` (a chat that asked for polls whose filter has no
    question fitting one). With `fits`, the choice is among the pool's questions that fit, by the same
    no-repeat rule. `topic` instead of the subscription's (a post asked for by name)."""
    topic = topic or (subscription.topic if subscription else None)
    await ready_topic(bank, topic)  # a group deck's: this worker holds its current version
    pool = bank.select((topic,) if topic else (), subscription.difficulty if subscription else None)
    fitting = [question for question in pool if fits(question)] if fits is not None else pool
    unfit = fits is not None and not fitting and bool(pool)
    pool = fitting or pool
    fresh = [question for question in pool if question.id not in seen]
    if fresh:
        return rng.choice(fresh), unfit
    return (min(pool, key=lambda q: (seen[q.id], q.id)) if pool else None), unfit
