"""Bands on the item scale and their confidence."""

from __future__ import annotations

import pytest

from bot.learner.ability import Estimate
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


def test_combined_weighs_by_precision() -> None:
    both = combined([Estimate(1.0, 0.25, 4), Estimate(-1.0, 1.0, 1)])
    assert both is not None
    assert both.value == pytest.approx((1 / 0.25 - 1) / (1 / 0.25 + 1))
    assert both.variance == pytest.approx(1 / 5) and both.answers == 5
    assert combined([]) is None
