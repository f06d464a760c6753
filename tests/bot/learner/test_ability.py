"""The Rasch belief: the closed-form fit, the per-answer update against the batch fit, information."""

from __future__ import annotations

import math
import random

import pytest

from bot.learner.ability import PRIOR, Estimate, fit, information, p_right, update, widen
from bot.learner.items import ITEM_PRIOR_VARIANCE, starting_difficulty

FLAT = Estimate(0.0, 1e9)  # no prior: the fit is the maximum-likelihood estimate


def test_fit_of_items_at_one_difficulty_is_the_log_odds() -> None:
    """Seven right out of ten on items at difficulty 0.5: the MLE is 0.5 + log(7/3), its variance 1/(n p q)."""
    answers = [(0.5, True)] * 7 + [(0.5, False)] * 3
    estimate = fit(answers, FLAT)
    assert estimate.value == pytest.approx(0.5 + math.log(7 / 3), abs=1e-6)
    assert estimate.variance == pytest.approx(1 / (10 * 0.7 * 0.3), rel=1e-4)
    assert estimate.answers == 10


def test_fit_with_a_prior_shrinks_towards_it() -> None:
    answers = [(0.0, True)] * 3
    assert 0 < fit(answers).value < fit(answers, Estimate(0.0, 100.0)).value


def test_per_answer_update_tracks_the_batch_fit() -> None:
    """The sequential Laplace update lands near the batch posterior mode of the same answers."""
    rng = random.Random(3)
    items = [rng.choice((-1.5, 0.0, 1.5)) for _ in range(12)]
    answers = [(b, rng.random() < p_right(0.8, b)) for b in items]
    belief = PRIOR
    for b, right in answers:
        belief, _ = update(belief, Estimate(b, 1e-12), right)
    batch = fit(answers)
    assert belief.value == pytest.approx(batch.value, abs=0.15)
    assert belief.se == pytest.approx(batch.se, abs=0.05)
    assert belief.answers == 12


def test_a_right_answer_raises_the_person_and_lowers_the_item() -> None:
    person, item = update(PRIOR, starting_difficulty(2), True)
    assert person.value > 0 and item.value < 0
    assert person.variance < PRIOR.variance and item.variance < ITEM_PRIOR_VARIANCE
    person, item = update(PRIOR, starting_difficulty(2), False)
    assert person.value < 0 and item.value > 0


def test_one_answer_barely_moves_an_item() -> None:
    """Damped: an item starts with a tight prior, so a handful of users cannot drag it."""
    item = starting_difficulty(2)
    for _ in range(5):
        _, item = update(PRIOR, item, True)
    assert -0.3 < item.value < 0


def test_information_peaks_where_difficulty_meets_ability() -> None:
    assert information(0.7, 0.7) == pytest.approx(0.25)
    grid = [b / 10 for b in range(-30, 31)]
    assert max(grid, key=lambda b: information(0.7, b)) == pytest.approx(0.7)
    assert information(0.7, 2.0) == pytest.approx(information(0.7, -0.6))  # symmetric about the ability


def test_a_belief_left_alone_widens_up_to_the_prior() -> None:
    belief = Estimate(1.0, 0.2, 9)
    assert widen(belief, 10).variance == pytest.approx(0.22)
    assert widen(belief, 10_000).variance == PRIOR.variance
    assert widen(belief, 10).value == 1.0
