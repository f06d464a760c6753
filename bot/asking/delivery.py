"""A question being asked: which one, in which option order, where it stands (question n of N), in which
language. Interviews, daily questions and quiz rounds each make them; the views show them."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.domain import AskedQuestion, Question


@dataclass(frozen=True)
class Delivery:
    """A question ready to show: which one, in which option order, where it stands in the interview."""

    asked: AskedQuestion
    question: Question
    number: int
    total: int
    language: str
    interview_id: int | None


def shuffled_options(question: Question, rng: random.Random) -> tuple[int, ...]:
    """The order in which this delivery shows the options (indices into the file's options)."""
    order = list(range(len(question.options)))
    rng.shuffle(order)
    return tuple(order)
