"""Adaptive: does the learner model measure people? Simulated candidates of known ability on the shipped bank.

Why: an adaptive interview only earns its place if it knows a candidate better than the same number
of random questions, and the verdict only if it names the right band. Candidates of known ability
answer the shipped bank under the Rasch model (each item's true difficulty is its label's logit), one
topic each, drawn from the bank's topics; the estimate is the learner model's own (bot.learner.ability
.update from the prior) and the next question the engine's own choice (bot.interview.selection
.next_adaptive). The store is left out (the core path is tested in tests/bot/interview/test_adaptive.py):
what is measured is the model and the selection, so thousands of candidates take seconds.

- RMSE of the ability estimate after 10 questions, adaptive beside random questions of the same topic
  (goal: adaptive <= 0.8 x random). Abilities are spread evenly over [-2.5, 2.5] logits, as CAT
  studies do, so every band and both tails weigh the same.
- Band accuracy after 12 adaptive questions: the estimate's band (bot.learner.verdict) against the
  true ability's (goal >= 80%).
- Item analysis (bot.learner.analysis) over 200 simulated users who each answer every question, one
  question's key planted wrong (the strong pick another option): it must be flagged wrong_key, and at
  most 2 other questions with it.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Any

from benchmarks.figures import Figure
from benchmarks.sizes import scaled
from bot.bank import load_bank
from bot.bank.loader import Bank
from bot.domain import InterviewFilters, Question
from bot.interview.selection import next_adaptive
from bot.learner.ability import PRIOR, Estimate, p_right, update
from bot.learner.analysis import AnswerRow, analyse
from bot.learner.items import label_logit, starting_difficulty
from bot.learner.verdict import band_of

NAME = "adaptive"
RATIO_GOAL = 0.8
BAND_GOAL = 0.8
OTHERS_GOAL = 2
FIGURES = (
    Figure("rmse_adaptive_10", " logit"),
    Figure("rmse_random_10", " logit"),
    Figure("rmse_ratio", "", at_most=RATIO_GOAL),
    Figure("band_accuracy_12", "", at_least=BAND_GOAL),
    Figure("band_accuracy_12_random", ""),
    Figure("planted_key_flagged", ""),
    Figure("other_wrong_key_flags", "", at_most=OTHERS_GOAL),
    Figure("seconds", " s"),
)
SPREAD = 2.5


def _answer(rng: random.Random, ability: float, question: Question) -> bool:
    return rng.random() < p_right(ability, label_logit(question.difficulty))


def _estimate(rng: random.Random, bank: Bank, topic: str, ability: float, count: int, adaptive: bool) -> Estimate:
    """One simulated interview of `count` questions on one topic; the learner model's estimate at its end."""
    filters = InterviewFilters(topics=(topic,), count=count)
    belief, asked = PRIOR, []
    pool = bank.select((topic,))
    order = rng.sample(pool, k=min(count, len(pool)))
    for n in range(min(count, len(pool))):
        question = (next_adaptive(bank, filters, asked, {topic: belief}, {}, {}, rng) if adaptive else order[n])
        assert question is not None
        asked.append(question.id)
        belief, _ = update(belief, starting_difficulty(question.difficulty), _answer(rng, ability, question))
    return belief


def _measure(rng: random.Random, bank: Bank, candidates: int) -> dict[str, Any]:
    topics = sorted(bank.topics)
    errors: dict[str, list[float]] = {"adaptive": [], "random": []}
    bands = {"adaptive": 0, "random": 0}
    for n in range(candidates):
        ability = -SPREAD + 2 * SPREAD * (n + 0.5) / candidates  # evenly over the range
        topic = rng.choice(topics)
        for way in ("adaptive", "random"):
            errors[way].append(_estimate(rng, bank, topic, ability, 10, way == "adaptive").value - ability)
            bands[way] += band_of(_estimate(rng, bank, topic, ability, 12, way == "adaptive").value) == band_of(ability)
    rmse = {way: math.sqrt(statistics.fmean(e * e for e in values)) for way, values in errors.items()}
    return {"rmse_adaptive_10": round(rmse["adaptive"], 3), "rmse_random_10": round(rmse["random"], 3),
            "rmse_ratio": round(rmse["adaptive"] / rmse["random"], 3),
            "band_accuracy_12": round(bands["adaptive"] / candidates, 3),
            "band_accuracy_12_random": round(bands["random"] / candidates, 3)}


def _item_analysis(rng: random.Random, bank: Bank, users: int) -> dict[str, Any]:
    """Every user answers every question; one key is planted wrong: the option after it is the truth."""
    planted = rng.choice(sorted(q.id for q in bank.questions.values() if q.difficulty == 2))
    rows = []
    for user in range(users):
        ability = rng.gauss(0.0, 1.0)
        for question in bank.questions.values():
            truth = question.correct_index
            if question.id == planted:
                truth = (truth + 1) % len(question.options)
            if _answer(rng, ability, question):
                chosen = truth
            else:
                chosen = rng.choice([i for i in range(len(question.options)) if i != truth])
            rows.append(AnswerRow(question.id, user, chosen, chosen == question.correct_index))
    items = analyse(rows, bank.questions, {})
    flagged = [item.id for item in items if "wrong_key" in item.flags]
    return {"planted": planted, "planted_key_flagged": planted in flagged,
            "other_wrong_key_flags": len([qid for qid in flagged if qid != planted]),
            "other_flagged_ids": [qid for qid in flagged if qid != planted][:10],
            "dead_distractor_flags": sum("dead_distractor" in item.flags for item in items),
            "answers": len(rows)}


async def run(quick: bool) -> dict[str, Any]:
    started = time.perf_counter()
    rng = random.Random(13)
    bank = load_bank(None)
    candidates = scaled(400 if quick else 1000, minimum=50)
    result = _measure(rng, bank, candidates)
    result.update(_item_analysis(rng, bank, 200))
    result["candidates"] = candidates
    result["seconds"] = round(time.perf_counter() - started, 2)
    result["notes"] = [
        f"{candidates} candidates, abilities evenly over [-{SPREAD}, {SPREAD}] logits, one topic each; "
        f"RMSE after 10: adaptive {result['rmse_adaptive_10']} vs random {result['rmse_random_10']} "
        f"(ratio {result['rmse_ratio']}); band accuracy at 12: adaptive {result['band_accuracy_12']}, "
        f"random {result['band_accuracy_12_random']}",
        f"item analysis: 200 users x {len(bank.questions)} questions ({result['answers']} answers), planted wrong key "
        f"{result['planted']} flagged: {result['planted_key_flagged']}; other wrong_key flags: "
        f"{result['other_wrong_key_flags']}; dead distractors flagged: {result['dead_distractor_flags']}",
    ]
    return result
