"""The Rasch step as it runs now (inlined logistic, constants out of the loop) against its plain form,
kept here as it was written before: the same beliefs, bit for bit, over thousands of random persons,
items and answers, and along long runs of answers."""

from __future__ import annotations

import math
import random

from bot.learner.ability import (NEWTON_STEPS, PRIOR, Estimate, answer_steps, logistic, update, update_person, widen,
                                 widened_variance)
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


def _bits(estimate: Estimate) -> tuple[str, str, int]:
    """A belief's figures to the last bit (a -0.0 where 0.0 was would show here, not under ==)."""
    return estimate.value.hex(), estimate.variance.hex(), estimate.answers


def test_one_answers_three_steps_in_one_call_are_update_and_update_person_to_the_bit() -> None:
    """The store moves a topic, a specialty and the item per answer in one call: the plain forms' figures."""
    rng = random.Random(2028)
    for _ in range(20_000):
        topic, specialty, item = (_belief(rng, rng.choice((1.0, 4.0, 40.0))) for _ in range(3))
        right = rng.random() < 0.5
        moved = answer_steps(topic, specialty, item, right)
        plain_topic, plain_item = plain_update(topic, item, right)
        plain_specialty = plain_step(specialty, 1.0, item.value, item.variance, right)
        assert [_bits(belief) for belief in moved] == [_bits(plain_topic), _bits(plain_specialty), _bits(plain_item)]


def test_widened_variance_is_what_widen_gives() -> None:
    rng = random.Random(7)
    for _ in range(5_000):
        belief = _belief(rng, 4.0)
        days = rng.choice((0.0, -1.0, rng.uniform(0, 3), rng.uniform(0, 2_000)))
        assert widened_variance(belief.variance, days).hex() == widen(belief, days).variance.hex()
