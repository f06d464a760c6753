"""The adaptive benchmark's second scenario: its worlds and its calibration phase do what they say.

Figures are not asserted (a benchmark is not a test); what is checked is that the labelled world is
the first scenario's, and that the calibration phase moves the bot's item beliefs toward the truth it
was given, the way the store's step would.
"""

from __future__ import annotations

import random

from benchmarks.adaptive import LABELLED, World, _calibrate, _item_error
from bot.bank import load_bank
from bot.learner.ability import Estimate
from bot.learner.items import label_logit, starting_difficulty


def test_the_labelled_world_puts_and_believes_every_question_at_its_label() -> None:
    bank = load_bank(None)
    for question in list(bank.questions.values())[:20]:
        assert LABELLED.true_difficulty(question) == label_logit(question.difficulty)
        assert LABELLED.belief(question) == starting_difficulty(question.difficulty)
    assert _item_error(bank, LABELLED) == 0.0


def test_a_world_reads_its_truth_and_its_beliefs_before_the_labels() -> None:
    bank = load_bank(None)
    question = next(iter(bank.questions.values()))
    world = World({question.id: 2.0}, {question.id: Estimate(1.0, 0.1, 5)})
    assert world.true_difficulty(question) == 2.0
    assert world.belief(question) == Estimate(1.0, 0.1, 5)


def test_calibration_moves_mislabelled_questions_toward_their_true_difficulty() -> None:
    bank = load_bank(None)
    topic = sorted(bank.topics)[0]
    only_topic = bank.select((topic,))
    # half the topic's questions truly one logit harder than labelled, half one logit easier
    truth = {q.id: label_logit(q.difficulty) + (1.0 if n % 2 else -1.0) for n, q in enumerate(only_topic)}
    truth.update({qid: label_logit(q.difficulty) for qid, q in bank.questions.items() if qid not in truth})
    beliefs = _calibrate(random.Random(5), bank, truth, users=150, topics=(topic,))
    moved = {qid: beliefs[qid].value - label_logit(bank.questions[qid].difficulty)
             for qid in truth if qid in beliefs}
    harder = [moved[q.id] for n, q in enumerate(only_topic) if n % 2 and q.id in moved]
    easier = [moved[q.id] for n, q in enumerate(only_topic) if not n % 2 and q.id in moved]
    assert len(harder) + len(easier) >= len(only_topic) // 2
    assert sum(harder) / len(harder) > 0.1 and sum(easier) / len(easier) < -0.1
    assert all(belief.answers >= 1 for belief in beliefs.values())
    world = World(truth, beliefs)
    assert _item_error(bank, world) < _item_error(bank, World(truth))

