"""Band accuracy against the exact optimum (issue 26), measured large enough to be read at 0.01.

The share of candidates whose band the adaptive verdict names right after 12 answers is a proportion:
over 1,000 candidates its standard error is 0.013 (0.016 as a share of the optimum), as large as the
distance to the goal, so one run could meet or miss it by chance. It is measured here over several
seeds of candidates (pooled, and the spread across seeds reported), on the same population as the
optimum: abilities evenly over [-SPREAD, SPREAD] logits, one topic each, the labelled bank (every
question truly at its label's logit), 12 answers, the engine's own choice of question
(bot.interview.selection.next_adaptive) and the learner model's own update and verdict.

Beside it, the same interviews read by the best verdict there is (the band most probable under the
exact posterior, with the true population as prior): how much of the gap is the choice of questions and
how much the verdict, whose prior (bot.learner.ability.PRIOR) is not the test population.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from typing import Any

from bot.bank.loader import Bank
from bot.domain import InterviewFilters
from bot.interview.selection import next_adaptive
from bot.learner.ability import PRIOR, p_right, update_person
from bot.learner.items import LABEL_LOGITS, label_logit, starting_difficulty
from bot.learner.verdict import BANDS, band_of, level

SPREAD = 2.5  # the population: abilities evenly over [-SPREAD, SPREAD] (as benchmarks/adaptive's)
ANSWERS = 12
GRID = 200  # the optimum's and the best verdict's ability grid over the population


def band_optimum(answers: int, grid: int = GRID) -> float:
    """The exact best band accuracy any selection policy could reach with `answers` answers on the
    labelled bank, the population evenly over [-SPREAD, SPREAD].

    Dynamic programming over the answers so far, counted right and wrong per label (all a policy can
    know when the questions of one label are alike): each step asks the label whose expected final
    accuracy is highest, and the verdict is the band most probable a posteriori under the true
    population. Weights are kept unnormalised (the probability of the sequence and the ability
    together), so the value of a state is the sum over its two outcomes. A topic's ~13-15 questions
    per label are not a limit here, which can only flatter the optimum."""
    abilities = _grid(grid)
    labels = sorted(LABEL_LOGITS.values())
    chance = [[p_right(a, b) for a in abilities] for b in labels]
    bands = [[g for g, a in enumerate(abilities) if band_of(a) == band] for band in BANDS]
    memo: dict[tuple[int, ...], float] = {}

    def value(state: tuple[int, ...], weights: list[float], left: int) -> float:
        if state in memo:
            return memo[state]
        if left == 0:
            best = max(sum(weights[g] for g in members) for members in bands)
        else:
            best = 0.0
            for k, p in enumerate(chance):
                right = list(state)
                right[2 * k] += 1
                wrong = list(state)
                wrong[2 * k + 1] += 1
                best = max(best, value(tuple(right), [w * q for w, q in zip(weights, p)], left - 1)
                           + value(tuple(wrong), [w * (1.0 - q) for w, q in zip(weights, p)], left - 1))
        memo[state] = best
        return best

    return value((0,) * (2 * len(labels)), [1.0 / grid] * grid, answers)


def _grid(grid: int) -> list[float]:
    return [-SPREAD + 2 * SPREAD * (g + 0.5) / grid for g in range(grid)]


def best_verdict(history: Sequence[tuple[float, bool]], grid: int = GRID) -> str:
    """The band most probable under the exact posterior, the true population as prior: the verdict the
    optimum uses, applied to whatever questions were asked."""
    mass = dict.fromkeys(BANDS, 0.0)
    for ability in _grid(grid):
        weight = 1.0
        for difficulty, right in history:
            chance = p_right(ability, difficulty)
            weight *= chance if right else 1.0 - chance
        mass[band_of(ability)] += weight
    return max(BANDS, key=lambda band: mass[band])


def _seed(bank: Bank, seed: int, candidates: int) -> dict[str, float]:
    """One seed's candidates: bands right by the bot's verdict and by the best one, stated confidence."""
    rng = random.Random(seed)
    topics = sorted(bank.topics)
    right = best = stated = 0.0
    for n in range(candidates):
        ability = -SPREAD + 2 * SPREAD * (n + 0.5) / candidates
        topic = rng.choice(topics)
        filters = InterviewFilters(topics=(topic,), count=ANSWERS)
        belief, asked, history = PRIOR, [], []
        for _ in range(ANSWERS):
            question = next_adaptive(bank, filters, asked, {topic: belief}, {}, {}, rng)
            assert question is not None
            truth = label_logit(question.difficulty)
            answer = rng.random() < p_right(ability, truth)
            asked.append(question.id)
            history.append((truth, answer))
            belief = update_person(belief, starting_difficulty(question.difficulty), answer)
        right += band_of(belief.value) == band_of(ability)
        best += best_verdict(history) == band_of(ability)
        stated += level(belief).confidence
    return {"right": right / candidates, "best": best / candidates, "stated": stated / candidates}


def measure(bank: Bank, seeds: Sequence[int], candidates: int) -> dict[str, Any]:
    """Band accuracy at ANSWERS answers pooled over `seeds` (each `candidates` candidates), its share of
    the exact optimum, the per-seed spread, the best verdict's share, and the stated confidence's gap."""
    optimum = band_optimum(ANSWERS)
    runs = [_seed(bank, seed, candidates) for seed in seeds]
    pooled = {key: statistics.fmean(run[key] for run in runs) for key in ("right", "best", "stated")}
    shares = [run["right"] / optimum for run in runs]
    return {"band_accuracy": round(pooled["right"], 3), "band_accuracy_optimum": round(optimum, 3),
            "band_accuracy_share_of_optimum": round(pooled["right"] / optimum, 3),
            "band_accuracy_share_min": round(min(shares), 3), "band_accuracy_share_max": round(max(shares), 3),
            "band_accuracy_share_sd": round(statistics.stdev(shares), 3) if len(shares) > 1 else 0.0,
            "band_accuracy_best_verdict_share": round(pooled["best"] / optimum, 3),
            "confidence_stated": round(pooled["stated"], 3),
            "confidence_gap": round(abs(pooled["stated"] - pooled["right"]), 3),
            "band_accuracy_seeds": list(seeds), "band_accuracy_candidates": candidates * len(seeds)}
