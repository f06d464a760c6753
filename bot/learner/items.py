"""Item difficulty: where a question starts on the ability scale, and how answers recalibrate it.

An author's label (1 easy, 2 medium, 3 hard) places a question at a fixed logit; answers across users
then move it as a Bayesian belief (bot/learner/ability.update), starting from a tight prior so that a
few users cannot drag an item: one answer moves a fresh item by at most ITEM_PRIOR_VARIANCE (0.06
logit), and each answer makes the next one count less. Reviews move neither item nor person: a
question seen again after its explanation is no longer a fresh measurement of either.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain import Question
from bot.learner.ability import Estimate

LABEL_LOGITS: dict[int, float] = {1: -1.5, 2: 0.0, 3: 1.5}
ITEM_PRIOR_VARIANCE = 0.25 ** 2  # as sure as about sixty answers of evidence


@dataclass(frozen=True)
class Item:
    """What the learner model needs of a question: its id, where it belongs, and its author's label."""

    question_id: str
    topic: str
    specialty: str
    label: int

    @classmethod
    def of(cls, question: Question) -> Item:
        return cls(question.id, question.topic, question.specialty, question.difficulty)


def label_logit(label: int) -> float:
    """The author's label on the logit scale (an unknown label sits in the middle)."""
    return LABEL_LOGITS.get(label, 0.0)


def starting_difficulty(label: int) -> Estimate:
    """An item nobody has answered yet: its label's logit, held with the item prior."""
    return Estimate(label_logit(label), ITEM_PRIOR_VARIANCE, 0)
