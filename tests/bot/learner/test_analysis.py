"""Item analysis: a planted wrong key, a dead distractor, an item off its label, on simulated answers."""

from __future__ import annotations

import random

import pytest

from bot.bank.loader import Bank
from bot.learner.ability import Estimate, p_right
from bot.learner.analysis import AnswerRow, _correlation, analyse
from bot.learner.items import label_logit


def _simulate(bank: Bank, users: int, wrong_key: str | None = None, seed: int = 4) -> list[AnswerRow]:
    """Rasch answers; on `wrong_key` the truth is the option after the key, so the strong pick that one."""
    rng = random.Random(seed)
    rows = []
    for user in range(users):
        ability = rng.gauss(0, 1)
        for question in bank.questions.values():
            knows = rng.random() < p_right(ability, label_logit(question.difficulty))
            truth = question.correct_index
            if question.id == wrong_key:
                truth = (truth + 1) % len(question.options)
            others = [i for i in range(len(question.options)) if i != truth]
            chosen = truth if knows else rng.choice(others)
            rows.append(AnswerRow(question.id, user, chosen, chosen == question.correct_index))
    return rows


def test_point_biserial_is_pearson() -> None:
    assert _correlation([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == pytest.approx(0.9899, abs=1e-4)
    assert _correlation([1, 1, 1], [0.1, 0.5, 0.9]) is None  # no spread: undefined, not zero


def test_a_planted_wrong_key_is_flagged_and_the_others_are_not(bank: Bank) -> None:
    items = {item.id: item for item in analyse(_simulate(bank, 300, "fx-002"), bank.questions, {})}
    assert "wrong_key" in items["fx-002"].flags and items["fx-002"].discrimination < 0
    assert [i for i, item in items.items() if "wrong_key" in item.flags] == ["fx-002"]
    assert all(item.discrimination > 0 for i, item in items.items() if i != "fx-002")
    key = next(o for o in items["fx-001"].options if o.key)
    assert items["fx-001"].answers == 300 and key.share == pytest.approx(items["fx-001"].p_correct, abs=1e-3)
    assert sum(o.share for o in items["fx-001"].options) == pytest.approx(1.0, abs=0.01)


def test_dead_distractors_and_items_off_their_label(bank: Bank) -> None:
    rows = [AnswerRow("fx-001", user, 0 if user % 2 else (1 if user % 4 else 2), bool(user % 2))
            for user in range(60)]
    question = bank.questions["fx-001"]
    rows = [AnswerRow(r.question_id, r.user_id, question.correct_index if r.right else
                      [i for i in range(4) if i != question.correct_index][r.option_index], r.right) for r in rows]
    off = {"fx-001": Estimate(label_logit(question.difficulty) + 1.4, 0.01, 60)}
    [item] = analyse(rows, bank.questions, off)
    assert "dead_distractor" in item.flags and "off_label" in item.flags
    assert analyse(rows, bank.questions, {}, min_answers=61) == []
