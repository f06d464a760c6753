"""Band accuracy against the exact optimum: the optimum and the best verdict are what they claim, and the
measurement compares the bot with them on equal terms (figures themselves are not asserted)."""

from __future__ import annotations

import math

from benchmarks.adaptive_band import SPREAD, band_optimum, best_verdict, measure
from bot.bank import load_bank
from bot.learner.ability import p_right
from bot.learner.verdict import CUTS


def test_with_no_answers_the_optimum_names_the_widest_band() -> None:
    """Before any answer the best guess is junior or senior, each 1.75 of the 5 logits of the population."""
    assert math.isclose(band_optimum(0), (CUTS[0] + SPREAD) / (2 * SPREAD), abs_tol=0.005)


def test_one_answer_by_hand_and_more_answers_never_hurt() -> None:
    """One medium question (difficulty 0): 'right' says senior, 'wrong' junior; the accuracy is the chance
    that a senior answers right plus that a junior answers wrong, averaged over the grid."""
    grid = 200
    abilities = [-SPREAD + 2 * SPREAD * (g + 0.5) / grid for g in range(grid)]
    by_hand = sum(p_right(a, 0.0) for a in abilities if a >= CUTS[1]) / grid
    by_hand += sum(1 - p_right(a, 0.0) for a in abilities if a < CUTS[0]) / grid
    assert band_optimum(1, grid) >= by_hand - 1e-9
    values = [band_optimum(n, 60) for n in range(5)]
    assert values == sorted(values) and values[4] > values[0] + 0.2


def test_the_best_verdict_reads_clear_answers() -> None:
    assert best_verdict([(1.5, True)] * 6) == "senior"
    assert best_verdict([(-1.5, False)] * 6) == "junior"
    assert best_verdict([(-1.5, True), (1.5, False)] * 4) == "mid"


def test_the_measurement_reports_its_share_of_the_optimum_and_its_spread() -> None:
    bank = load_bank(None)
    figures = measure(bank, (1, 2), 30)
    assert figures["band_accuracy_candidates"] == 60 and figures["band_accuracy_seeds"] == [1, 2]
    assert math.isclose(figures["band_accuracy_share_of_optimum"],
                        figures["band_accuracy"] / figures["band_accuracy_optimum"], abs_tol=0.002)
    assert figures["band_accuracy_share_min"] <= figures["band_accuracy_share_max"]
    assert math.isclose(figures["confidence_gap"], abs(figures["confidence_stated"] - figures["band_accuracy"]),
                        abs_tol=0.002)
