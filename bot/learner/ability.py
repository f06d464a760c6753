"""Ability under the Rasch (1PL) model, kept as a normal belief (estimate, variance) updated per answer.

P(right) = 1 / (1 + exp(-(ability - difficulty))), both in logits on one scale. A person's belief about
a topic starts at PRIOR and each answer moves it by one Bayesian step: the posterior mode of
prior x likelihood is found by Newton's method (the log posterior is concave, three steps are plenty)
and its curvature gives the new variance (a Laplace approximation). The other side's uncertainty
(an item's difficulty is itself an estimate) damps the step through Glickman's g factor, as in Glicko.

Why hand-written and not `adaptivetesting`: that library re-estimates from a session's whole response
pattern in memory (a numerical integral over 1,000 points per estimate) and brings pandas, scipy and
tqdm; here the belief must live in the store as two numbers per (person, topic), move by one answer
inside the answer's own transaction, and survive across interviews and daily questions.
The update below is that, in a few lines, and tests check it against the closed-form fit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

PRIOR_VARIANCE = 2.0  # people spread as widely as the labels (easy -1.5 .. hard +1.5) and a little beyond
DRIFT_PER_DAY = 0.002  # a belief left alone widens (people learn and forget), up to the prior
NEWTON_STEPS = 4


class Estimate(NamedTuple):
    """A belief on the logit scale: the value, its variance, and how many answers shaped it.

    A named tuple rather than a frozen dataclass: every answer makes about eight of them inside its
    write transaction, and a tuple is made in a third of a frozen dataclass's time (as immutable)."""

    value: float
    variance: float
    answers: int = 0

    @property
    def se(self) -> float:
        return math.sqrt(self.variance)


PRIOR = Estimate(0.0, PRIOR_VARIANCE, 0)


def logistic(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def p_right(ability: float, difficulty: float) -> float:
    """The Rasch model's chance of a right answer."""
    return logistic(ability - difficulty)


def information(ability: float, difficulty: float) -> float:
    """Fisher information of one answer about the ability: p(1 - p), largest (1/4) where they are equal."""
    p = p_right(ability, difficulty)
    return p * (1.0 - p)


_PI_SQUARED = math.pi ** 2


def damping(variance: float) -> float:
    """Glickman's g: how much an uncertain opponent's outcome says (1 when it is exactly known)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * variance / _PI_SQUARED)


def _step(belief: Estimate, sign: float, other: float, other_variance: float, right: bool) -> Estimate:
    """One Bayesian step for `belief` facing `other`; sign +1 for a person (right raises them), -1 for an item."""
    g = damping(other_variance)
    return _newton(belief, g * sign, g * g, other, 1.0 if right else 0.0)


def _newton(belief: Estimate, g_sign: float, g_squared: float, other: float, y: float) -> Estimate:
    """The step's Newton iterations, given the other side's damping (g times the sign, and g squared).

    It runs three times per answer inside the answer's transaction (on SQLite, on the write connection
    beside the event loop), so the logistic is inlined and the loop's constants are taken out of it;
    every operation is the one the plain form does, in the same order (tests/bot/learner/
    test_ability_equal.py checks the results bit for bit against it)."""
    start, spread = belief.value, belief.variance
    precision, exp = 1.0 / spread, math.exp
    x = start
    for step in range(NEWTON_STEPS + 1):  # the last pass only gives p at the final x, for the variance
        z = g_sign * (x - other)  # p: the person's chance of a right answer, logistic(z)
        if z >= 0:
            p = 1.0 / (1.0 + exp(-z))
        else:
            e = exp(z)
            p = e / (1.0 + e)
        if step == NEWTON_STEPS:
            break
        x += (-(x - start) / spread + g_sign * (y - p)) / (precision + g_squared * p * (1.0 - p))
    return Estimate(x, 1.0 / (precision + g_squared * p * (1.0 - p)), belief.answers + 1)


def update(person: Estimate, item: Estimate, right: bool) -> tuple[Estimate, Estimate]:
    """Both beliefs after one answer: the person's ability and the item's difficulty, each from the other's
    belief before the answer."""
    return update_person(person, item, right), update_item(item, person, right)


def update_person(person: Estimate, item: Estimate, right: bool) -> Estimate:
    """The person's belief alone after one answer (when the item is not to be recalibrated)."""
    return _step(person, 1.0, item.value, item.variance, right)


def update_item(item: Estimate, person: Estimate, right: bool) -> Estimate:
    """The item's belief alone after one answer, from the person's belief before it (a logged step folded
    later: bot/store/item_steps.py); the same figures `answer_steps` gives the item."""
    return _step(item, -1.0, person.value, person.variance, right)


def answer_steps(topic: Estimate, specialty: Estimate, item: Estimate,
                 right: bool) -> tuple[Estimate, Estimate, Estimate]:
    """One first-sight answer's three steps in one call: `update(topic, item)` and
    `update_person(specialty, item)`, the same figures, with the item's damping worked out once
    (the store makes these steps for every answer of a burst, inside its write transaction)."""
    y = 1.0 if right else 0.0
    g = damping(item.variance)
    h = damping(topic.variance)
    g_squared = g * g
    return (_newton(topic, g, g_squared, item.value, y), _newton(specialty, g, g_squared, item.value, y),
            _newton(item, -h, h * h, topic.value, y))


def widened_variance(variance: float, days: float, ceiling: float = PRIOR_VARIANCE) -> float:
    """A belief's variance after `days` without news: a little larger, never above the prior's."""
    if days <= 0 or variance >= ceiling:
        return variance
    return min(ceiling, variance + DRIFT_PER_DAY * days)


def widen(belief: Estimate, days: float, ceiling: float = PRIOR_VARIANCE) -> Estimate:
    """A belief after `days` without news: a little less sure, never less sure than the prior."""
    if days <= 0 or belief.variance >= ceiling:
        return belief
    return Estimate(belief.value, widened_variance(belief.variance, days, ceiling), belief.answers)


def fit(answers: Iterable[tuple[float, bool]], prior: Estimate = PRIOR, steps: int = 50) -> Estimate:
    """The batch fit (posterior mode and its variance) of one ability from (item difficulty, right) pairs:
    the reference the per-answer update approximates, and a flat prior (huge variance) gives the
    maximum-likelihood estimate."""
    pairs = list(answers)
    x = prior.value
    for _ in range(steps):
        gradient = -(x - prior.value) / prior.variance + sum((1.0 if y else 0.0) - p_right(x, b) for b, y in pairs)
        curvature = 1.0 / prior.variance + sum(information(x, b) for b, _ in pairs)
        move = gradient / curvature
        x += max(-1.0, min(1.0, move))  # bounded: a perfect run heads off slowly instead of overflowing
        if abs(move) < 1e-10:
            break
    variance = 1.0 / (1.0 / prior.variance + sum(information(x, b) for b, _ in pairs))
    return Estimate(x, variance, prior.answers + len(pairs))
