"""Item analysis for authors: how each question behaves in the answers people gave.

Per question: the number of answers, the share right, the discrimination (point-biserial correlation
of being right with the person's rest score: their share right on every other question they
answered), each option's share, and flags:

- wrong_key: a likely wrong key. Negative discrimination (the stronger people are, the more they
  miss it), or a distractor that the strong third of its answerers choose more than the key and that
  draws the stronger people more than the key does (its own point-biserial is positive and above the
  key's): on a hard question the strong may split by chance, but a distractor that is really the
  answer is chosen the more, the stronger people are.
- dead_distractor: an option almost nobody takes (under 5% with 50 or more answers): it adds length,
  not measurement.
- off_label: the recalibrated difficulty lies more than a logit from where its label puts it.

Pure: it reads rows and the bank; bot/app/item_report.py fetches them and prints.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.domain import LETTERS, Question
from bot.learner.ability import Estimate
from bot.learner.items import label_logit

WRONG_KEY_BELOW = -0.05  # discrimination under this: the strong miss it more than the weak
STRONG_SHARE = 1 / 3  # the strong: the top third of an item's answerers by rest score
STRONG_MIN = 10  # ... compared only when at least this many
DEAD_BELOW = 0.05
DEAD_MIN_ANSWERS = 50
OFF_LABEL_BEYOND = 1.0  # logits between the recalibrated difficulty and the label's place


@dataclass(frozen=True)
class AnswerRow:
    """One recorded first-sight answer (reviews left out): who, which question, which option, right?"""

    question_id: str
    user_id: int
    option_index: int | None
    right: bool


@dataclass(frozen=True)
class OptionShare:
    letter: str
    share: float
    key: bool


@dataclass(frozen=True)
class ItemStats:
    id: str
    label: int
    answers: int
    p_correct: float
    discrimination: float | None
    options: tuple[OptionShare, ...]
    difficulty: float | None
    flags: tuple[str, ...]


def _correlation(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def analyse(rows: Sequence[AnswerRow], questions: Mapping[str, Question], calibrated: Mapping[str, Estimate],
            min_answers: int = 1) -> list[ItemStats]:
    """One ItemStats per bank question with at least `min_answers` answers, in id order."""
    totals: dict[int, list[int]] = defaultdict(lambda: [0, 0])  # user -> [right, answered]
    by_item: dict[str, list[AnswerRow]] = defaultdict(list)
    for row in rows:
        if row.question_id not in questions:
            continue
        totals[row.user_id][0] += row.right
        totals[row.user_id][1] += 1
        by_item[row.question_id].append(row)
    found = []
    for question_id in sorted(by_item):
        answers = by_item[question_id]
        if len(answers) < min_answers:
            continue
        found.append(_item(questions[question_id], answers, totals, calibrated.get(question_id)))
    return found


def _item(question: Question, answers: list[AnswerRow], totals: Mapping[int, list[int]],
          calibrated: Estimate | None) -> ItemStats:
    n = len(answers)
    right = [1.0 if a.right else 0.0 for a in answers]
    rests: list[tuple[float, AnswerRow]] = []
    for answer in answers:
        done_right, done = totals[answer.user_id]
        if done > 1:
            rests.append(((done_right - answer.right) / (done - 1), answer))
    discrimination = _correlation([1.0 if a.right else 0.0 for _, a in rests], [rest for rest, _ in rests])
    chosen = [a.option_index for a in answers if a.option_index is not None]
    shares = tuple(OptionShare(LETTERS[i], round(chosen.count(i) / len(chosen), 3) if chosen else 0.0,
                               i == question.correct_index) for i in range(len(question.options)))
    flags = []
    if (discrimination is not None and discrimination < WRONG_KEY_BELOW) or \
            _strong_prefer_a_distractor(question, rests, discrimination):
        flags.append("wrong_key")
    if n >= DEAD_MIN_ANSWERS and any(not o.key and o.share < DEAD_BELOW for o in shares):
        flags.append("dead_distractor")
    if calibrated is not None and abs(calibrated.value - label_logit(question.difficulty)) > OFF_LABEL_BEYOND:
        flags.append("off_label")
    return ItemStats(question.id, question.difficulty, n, round(sum(right) / n, 3),
                     None if discrimination is None else round(discrimination, 3), shares,
                     None if calibrated is None else round(calibrated.value, 3), tuple(flags))


def _strong_prefer_a_distractor(question: Question, rests: list[tuple[float, AnswerRow]],
                                discrimination: float | None) -> bool:
    strong = sorted(rests, key=lambda pair: pair[0], reverse=True)[: math.floor(len(rests) * STRONG_SHARE)]
    if len(strong) < STRONG_MIN:
        return False
    counts = [0] * len(question.options)
    for _, answer in strong:
        if answer.option_index is not None:
            counts[answer.option_index] += 1
    key = counts[question.correct_index]
    scores = [rest for rest, _ in rests]
    for index, count in enumerate(counts):
        if index == question.correct_index or count <= key:
            continue
        drawn = _correlation([1.0 if a.option_index == index else 0.0 for _, a in rests], scores)
        if drawn is not None and drawn > max(0.0, discrimination or 0.0):
            return True
    return False
