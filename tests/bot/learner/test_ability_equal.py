"""The Rasch step as it runs now (inlined logistic, constants out of the loop) against its plain form,
kept here as it was written before: the same beliefs, bit for bit, over thousands of random persons,
items and answers, and along long runs of answers."""

from __future__ import annotations

import math
import random

from bot.learner.ability import NEWTON_STEPS, PRIOR, Estimate, logistic, update, update_person
from bot.learner.items import starting_difficulty


def plain_step(belief: Estimate, sign: float, other: float, other_variance: float, right: bool) -> Estimate:
    g = 1.0 / math.sqrt(1.0 + 3.0 * other_variance / math.pi ** 2)
    y = 1.0 if right else 0.0
    x = belief.value
    for _ in range(NEWTON_STEPS):
        p = logistic(g * sign * (x - other))
        gradient = -(x - belief.value) / belief.variance + sign * g * (y - p)
        curvature = 1.0 / belief.variance + g * g * p * (1.0 - p)
        x += gradient / curvature
    p = logistic(g * sign * (x - other))
    variance = 1.0 / (1.0 / belief.variance + g * g * p * (1.0 - p))
    return Estimate(x, variance, belief.answers + 1)


def plain_update(person: Estimate, item: Estimate, right: bool) -> tuple[Estimate, Estimate]:
    return (plain_step(person, 1.0, item.value, item.variance, right),
            plain_step(item, -1.0, person.value, person.variance, right))


def _belief(rng: random.Random, spread: float) -> Estimate:
    return Estimate(rng.uniform(-spread, spread), 10 ** rng.uniform(-3, 1.5), rng.randrange(200))


def test_random_answers_move_both_beliefs_exactly_as_the_plain_step() -> None:
    rng = random.Random(28)
    for _ in range(20_000):
        person, item = _belief(rng, rng.choice((1.0, 4.0, 40.0))), _belief(rng, rng.choice((1.0, 4.0, 40.0)))
        right = rng.random() < 0.5
        assert update(person, item, right) == plain_update(person, item, right)
        assert update_person(person, item, right) == plain_update(person, item, right)[0]


def test_long_runs_of_answers_stay_equal() -> None:
    """A person answering many items, each item answered by many: the beliefs drift the same way."""
    rng = random.Random(3)
    ours = {name: PRIOR for name in "abcd"}
    theirs = dict(ours)
    items = {label: starting_difficulty(label) for label in (1, 2, 3)}
    their_items = dict(items)
    for _ in range(3_000):
        name, label, right = rng.choice("abcd"), rng.choice((1, 2, 3)), rng.random() < 0.6
        ours[name], items[label] = update(ours[name], items[label], right)
        theirs[name], their_items[label] = plain_update(theirs[name], their_items[label], right)
        assert ours == theirs and items == their_items
