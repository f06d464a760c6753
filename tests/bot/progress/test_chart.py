"""The progress chart as people see it: bars per topic below a few weeks of answers, weekly lines after.

Golden images: one rendered example per case and language is kept in golden/ (look at them). The
check is the size and a sample of pixels, not the bytes: a font or matplotlib update moves some
anti-aliased text pixels, never the bars. `UPDATE_GOLDEN=1 pytest tests/bot/progress/test_chart.py`
writes them anew after an intended change.
"""

from __future__ import annotations

import io
import os
from datetime import date, timedelta
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

from bot.domain import Breakdown
from bot.progress.chart import BAR_COLOUR, WEEKS_FOR_LINES, chart_kind, progress_chart_png
from bot.progress.stats import Progress

GOLDEN = Path(__file__).parent / "golden"
SERIES = {  # (right, answered) per week, oldest first
    "sync-basics": [(3, 4), (5, 6), (4, 4), (6, 7)],
    "leakage-basics": [(1, 4), (2, 5), (4, 6), (5, 6)],
    "ml-scaling-performance": [(2, 3), (1, 3), (3, 4), (2, 2)],
}
LABELS = {
    "en": {"sync-basics": "Sync basics", "leakage-basics": "Leakage basics",
           "ml-scaling-performance": "Scaling and serving performance"},
    "tr": {"sync-basics": "Senkronizasyon temelleri", "leakage-basics": "Sızıntı temelleri",
           "ml-scaling-performance": "Ölçekleme ve servis performansı"},
}
CASES = [("bars", 1), ("lines", 4)]


def progress_over(weeks: int) -> Progress:
    start = date(2026, 5, 4)
    weekly = {topic: {start + timedelta(weeks=i): Breakdown(*counts[i]) for i in range(weeks)}
              for topic, counts in SERIES.items()}
    by_topic = {topic: Breakdown(sum(b.right for b in s.values()), sum(b.total for b in s.values()))
                for topic, s in weekly.items()}
    right, total = sum(b.right for b in by_topic.values()), sum(b.total for b in by_topic.values())
    return Progress(total, right, 0, by_topic, {2: Breakdown(right, total)}, weekly)


def pixels(png: bytes) -> np.ndarray:
    return matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3]


def colour_mask(image: np.ndarray, hex_colour: str, tolerance: float = 0.03) -> np.ndarray:
    rgb = np.array([int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return (np.abs(image - rgb) < tolerance).all(axis=-1)


@pytest.mark.parametrize("language", ["en", "tr"])
@pytest.mark.parametrize("kind,weeks", CASES)
def test_the_chart_matches_its_golden_image(kind: str, weeks: int, language: str) -> None:
    progress = progress_over(weeks)
    assert chart_kind(progress) == kind
    png = progress_chart_png(progress, language, LABELS[language])
    golden = GOLDEN / f"{kind}_{language}.png"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_bytes(png)
    drawn, kept = pixels(png), pixels(golden.read_bytes())
    assert drawn.shape == kept.shape == (450, 800, 3)
    grid = np.ix_(np.linspace(5, 444, 24).astype(int), np.linspace(5, 794, 40).astype(int))
    same = (np.abs(drawn[grid] - kept[grid]) < 0.1).all(axis=-1)
    assert same.mean() > 0.95, f"{kind}/{language}: {100 * (1 - same.mean()):.0f}% of sampled pixels moved"


def _bar_rows(image: np.ndarray) -> list[range]:
    """The pixel rows of each blue bar, top to bottom."""
    rows = np.flatnonzero(colour_mask(image, BAR_COLOUR).sum(axis=1) > 20)
    bars: list[list[int]] = []
    for row in rows:
        if bars and row == bars[-1][-1] + 1:
            bars[-1].append(row)
        else:
            bars.append([row])
    return [range(bar[0], bar[-1] + 1) for bar in bars]


def test_few_weeks_draw_one_bar_per_topic_weakest_first() -> None:
    image = pixels(progress_chart_png(progress_over(1), "en", LABELS["en"]))
    bars = _bar_rows(image)
    assert len(bars) == len(SERIES), "one bar per topic"
    lengths = [colour_mask(image[bar.start + len(bar) // 2], BAR_COLOUR).sum() for bar in bars]
    assert lengths == sorted(lengths), "the weakest topic (Leakage basics, 1/4) at the top"
    assert lengths[-1] / lengths[0] == pytest.approx(0.75 / 0.25, rel=0.05), "lengths in proportion to accuracy"


def test_lines_come_with_enough_weeks() -> None:
    assert chart_kind(progress_over(WEEKS_FOR_LINES - 1)) == "bars"
    assert chart_kind(progress_over(WEEKS_FOR_LINES)) == "lines"
    image = pixels(progress_chart_png(progress_over(4), "tr", LABELS["tr"]))
    assert colour_mask(image, BAR_COLOUR).sum() == 0, "no topic bars beside the lines"
    assert colour_mask(image, "#d9d9d9").mean() > 0.05, "answers per week as grey columns"
