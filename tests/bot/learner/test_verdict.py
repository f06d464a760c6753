"""Bands on the item scale and their confidence."""

from __future__ import annotations

import math
import random

import pytest

from bot.learner.ability import PRIOR, PRIOR_VARIANCE, Estimate, fit, p_right, update_person
from bot.learner.verdict import CUTS, band_of, combined, level


def test_bands_are_cut_halfway_between_the_labels() -> None:
    assert [band_of(x) for x in (-2.0, -0.76, -0.75, 0.0, 0.74, 0.75, 3.0)] == \
        ["junior", "junior", "mid", "mid", "mid", "senior", "senior"]
    assert CUTS == (-0.75, 0.75)


def test_confidence_is_the_share_of_the_belief_inside_the_band() -> None:
    sure = level(Estimate(0.0, 0.1 ** 2))
    assert sure.band == "mid" and sure.confidence > 0.999 and sure.certainty == "sure"
    edge = level(Estimate(0.75, 0.5 ** 2))
    assert edge.band == "senior" and edge.confidence == pytest.approx(0.5, abs=1e-3)
    assert edge.certainty == "unsure"


def test_the_overall_verdict_counts_the_prior_once() -> None:
    """Three specialties without answers are the prior, not three priors multiplied (SE 1.41, not 0.82)."""
    nothing = combined([PRIOR, PRIOR, PRIOR])
    assert nothing is not None
    assert nothing.value == 0.0 and nothing.se == pytest.approx(math.sqrt(PRIOR_VARIANCE)) and nothing.answers == 0
    assert combined([]) is None


def test_specialties_without_answers_add_nothing_and_one_belief_comes_back_unchanged() -> None:
    known = Estimate(1.2, 0.3, 7)
    for alone in (combined([known]), combined([known, PRIOR, PRIOR])):
        assert alone is not None
        assert alone.value == pytest.approx(known.value) and alone.variance == pytest.approx(known.variance)
        assert alone.answers == 7


def _specialty(answers: list[tuple[float, bool]]) -> Estimate:
    belief = PRIOR
    for difficulty, right in answers:
        belief = update_person(belief, Estimate(difficulty, 0.0), right)
    return belief


def test_the_overall_verdict_is_near_the_fit_of_all_answers_with_one_prior() -> None:
    """Six right answers at medium over three specialties: one prior gives 1.76 +- 0.89; multiplying the
    three beliefs gave 1.04 +- 0.61. Mixed answers over three
    specialties: half within 0.05 of the one fit, 95% within 0.2."""
    beliefs = [_specialty([(0.0, True)] * 2) for _ in range(3)]
    overall, reference = combined(beliefs), fit([(0.0, True)] * 6)
    assert overall is not None and reference.value == pytest.approx(1.76, abs=0.01)
    assert abs(overall.value - reference.value) < 0.15 and abs(overall.se - reference.se) < 0.15
    assert overall.value > 1.5 and overall.se > 0.7, "not the three-priors verdict (1.04 +- 0.61)"
    rng = random.Random(3)
    gaps = []
    for _ in range(200):
        ability = rng.uniform(-2.0, 2.0)
        answers = [[(d, rng.random() < p_right(ability, d)) for d in rng.choices((-1.5, 0.0, 1.5), k=6)]
                   for _ in range(3)]
        overall, reference = combined([_specialty(part) for part in answers]), fit(sum(answers, []))
        assert overall is not None
        gaps.append((abs(overall.value - reference.value), abs(overall.se - reference.se)))
    gaps.sort()
    assert gaps[100][0] < 0.05 and gaps[190][0] < 0.2, "mixed answers: the one fit, give or take"
    assert sorted(se for _, se in gaps)[100] < 0.03
