"""Which questions an interview asks: matching the filters, unseen ones first, no repeats."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from bot.bank.loader import Bank
from bot.domain import InterviewFilters, Question


def plan_interview(bank: Bank, filters: InterviewFilters, seen: Mapping[str, float],
                   rng: random.Random) -> list[str]:
    """Question ids for an interview: never-seen questions in random order, then the least recently seen."""
    pool = bank.select(filters.topics, filters.difficulty, filters.seniority)
    fresh = [question for question in pool if question.id not in seen]
    rng.shuffle(fresh)
    stale = sorted((question for question in pool if question.id in seen), key=lambda q: (seen[q.id], q.id))
    chosen: Sequence[Question] = (fresh + stale)[: filters.count]
    return [question.id for question in chosen]


def shuffled_options(question: Question, rng: random.Random) -> tuple[int, ...]:
    """The order in which this delivery shows the options (indices into the file's options)."""
    order = list(range(len(question.options)))
    rng.shuffle(order)
    return tuple(order)
