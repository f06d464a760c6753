"""The level verdict: a band (junior, mid, senior) on the item scale, and how sure the model is of it.

The cut-offs sit halfway between the author labels' logits (bot/learner/items.LABEL_LOGITS: easy -1.5,
medium 0, hard +1.5): a junior answers easy questions about half the time, a mid-level candidate medium
ones, a senior hard ones, so the band of an ability is the label whose questions it meets at even odds.
The confidence is the share of the normal belief (estimate, standard error) that falls inside the band.
docs/learner.md explains the scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bot.learner.ability import PRIOR, Estimate

BANDS: tuple[str, ...] = ("junior", "mid", "senior")
CUTS: tuple[float, ...] = (-0.75, 0.75)  # junior < -0.75 <= mid < 0.75 <= senior
SURE = 0.8  # confidence at or above: "sure"
FAIRLY_SURE = 0.6  # at or above: "fairly sure"; below: "unsure"


@dataclass(frozen=True)
class Level:
    """A topic's (or the whole interview's) band with the ability and standard error behind it."""

    band: str
    ability: float
    se: float
    confidence: float
    answers: int = 0

    @property
    def certainty(self) -> str:
        """sure, fairly_sure or unsure: the word the reports use for the confidence."""
        if self.confidence >= SURE:
            return "sure"
        return "fairly_sure" if self.confidence >= FAIRLY_SURE else "unsure"


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def band_of(ability: float) -> str:
    return BANDS[sum(ability >= cut for cut in CUTS)]


def band_bounds(band: str) -> tuple[float, float]:
    index = BANDS.index(band)
    edges = (-math.inf, *CUTS, math.inf)
    return edges[index], edges[index + 1]


def level(estimate: Estimate) -> Level:
    """The band of an ability belief, with the probability that the true ability lies in it."""
    band = band_of(estimate.value)
    low, high = band_bounds(band)
    se = max(estimate.se, 1e-9)
    confidence = _normal_cdf((high - estimate.value) / se) - _normal_cdf((low - estimate.value) / se)
    return Level(band, round(estimate.value, 3) + 0.0, round(estimate.se, 3), round(confidence, 3),
                 estimate.answers)  # + 0.0: no -0.0 in a report


def combined(estimates: list[Estimate], prior: Estimate = PRIOR) -> Estimate | None:
    """Several beliefs about distinct evidence (one per specialty) as one: the overall level of an interview
    that spans specialties.

    Each belief is the prior times its own answers' likelihood, so multiplying the beliefs would count the
    prior once per specialty (three empty specialties would read as sure as a third of the prior's
    variance). Instead each belief's evidence, its precision and precision-weighted value above the
    prior's (a normal message, as in expectation propagation), is added to the prior taken once: a
    specialty with no answers adds nothing, and one belief alone comes back unchanged. The messages are
    normal curves fitted at each specialty's own estimate, so on a run of right answers the result sits a
    little short of the batch fit of all the answers (docs/learner.md gives the numbers)."""
    if not estimates:
        return None
    base = 1.0 / prior.variance
    precision = base + sum(max(0.0, 1.0 / e.variance - base) for e in estimates)
    weighted = prior.value * base + sum(e.value / e.variance - prior.value * base for e in estimates)
    return Estimate(weighted / precision, 1.0 / precision, sum(e.answers for e in estimates))
