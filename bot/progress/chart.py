"""The progress chart, drawn in a child process: with a few weeks of answers, weekly accuracy per topic
over answers per week; before that (a line needs points to say anything), accuracy per topic as bars
with their counts.

matplotlib costs a running bot about 37 MB once loaded, for a chart asked for now and then, so it
lives in a worker process, kept warm while charts are asked for and closed after five idle minutes
(its memory goes with it). If a child cannot be started, the chart is drawn in a thread instead:
slower to free, never missing.
"""

from __future__ import annotations

import asyncio
import io
import logging
import multiprocessing
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bot.progress.stats import Progress
from bot.text.i18n import t

log = logging.getLogger(__name__)
CHART_SIZE_PX = (800, 450)
CHART_DPI = 100
CHART_MAX_TICKS = 10
CHART_MAX_TOPICS = 8  # more lines than this are unreadable; the tables still list every topic
WEEKS_FOR_LINES = 3  # fewer weeks than this: the bars (one week of lines is a dot over a grey block)
BARS_MAX_TOPICS = 12
BAR_COLOUR, TRACK_COLOUR = "#3b75af", "#e4e4e4"


def _chart_topics(progress: Progress) -> list[str]:
    """The most answered topics (at most CHART_MAX_TOPICS), in name order for a stable legend."""
    busiest = sorted(progress.by_topic, key=lambda topic: (-progress.by_topic[topic].total, topic))
    return sorted(busiest[:CHART_MAX_TOPICS])


def chart_kind(progress: Progress) -> str:
    """"lines" once there are WEEKS_FOR_LINES weeks of answers, "bars" before."""
    return "lines" if len(progress.weeks) >= WEEKS_FOR_LINES else "bars"


def progress_chart_png(progress: Progress, language: str, labels: Mapping[str, str] | None = None) -> bytes:
    """The chart as PNG bytes: the weekly lines, or the topic bars while there are too few weeks.

    Draws on its own Figure and Agg canvas: no pyplot, so no global figure state or backend switch
    leaks into a long-running bot. `labels` maps topic names to what the chart shows.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    width, height = CHART_SIZE_PX
    figure = Figure(figsize=(width / CHART_DPI, height / CHART_DPI), dpi=CHART_DPI, layout="constrained")
    FigureCanvasAgg(figure)
    if chart_kind(progress) == "lines":
        _weekly_lines(figure, progress, language, labels or {})
    else:
        _topic_bars(figure, progress, language, labels or {})
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=CHART_DPI, pil_kwargs={"compress_level": 1})  # fast to encode; a few KB more
    return buffer.getvalue()


def _topic_bars(figure: Any, progress: Progress, language: str, labels: Mapping[str, str]) -> None:
    """Accuracy per topic as horizontal bars on a 0-100 % track, each with its right/answered count,
    the weakest topic first."""
    busiest = sorted(progress.by_topic, key=lambda topic: (-progress.by_topic[topic].total, topic))[:BARS_MAX_TOPICS]
    # the weakest at the top, where the eye starts (barh draws row 0 at the bottom)
    topics = sorted(busiest, key=lambda topic: (progress.by_topic[topic].accuracy, labels.get(topic, topic)),
                    reverse=True)
    axes = figure.add_subplot()
    rows = range(len(topics))
    shares = [100 * progress.by_topic[topic].accuracy for topic in topics]
    axes.barh(rows, [100] * len(topics), color=TRACK_COLOUR, height=0.6)
    axes.barh(rows, shares, color=BAR_COLOUR, height=0.6)
    for row, topic, share in zip(rows, topics, shares):
        tally = progress.by_topic[topic]
        axes.text(101.5, row, t(language, "progress.chart.count", percent=round(share), right=tally.right,
                                total=tally.total), va="center", fontsize="medium")
    axes.set_yticks(list(rows), [labels.get(topic, topic) for topic in topics])
    axes.set_xlim(0, 125)
    axes.set_xticks([0, 25, 50, 75, 100])
    axes.set_xlabel(t(language, "progress.chart.accuracy"))
    axes.spines[["top", "right"]].set_visible(False)
    axes.spines["bottom"].set_bounds(0, 100)
    axes.tick_params(axis="y", length=0)
    axes.set_title(t(language, "progress.chart.bars_title", weeks=WEEKS_FOR_LINES))


def _weekly_lines(figure: Any, progress: Progress, language: str, labels: Mapping[str, str]) -> None:
    """Weekly accuracy per topic (lines, 0-100 %) over answers per week (grey bars)."""
    from matplotlib.dates import DateFormatter

    accuracy_axes = figure.add_subplot()
    count_axes = accuracy_axes.twinx()
    weeks = progress.weeks
    count_axes.bar(weeks, [progress.answers_in(week) for week in weeks], width=5, color="#d9d9d9",
                   label=t(language, "progress.chart.answers"))
    for topic in _chart_topics(progress):
        series = progress.weekly[topic]
        points = sorted(series)
        accuracy_axes.plot(points, [100 * series[week].accuracy for week in points], marker="o",
                           label=labels.get(topic, topic))
    accuracy_axes.set_zorder(count_axes.get_zorder() + 1)  # lines over bars
    accuracy_axes.patch.set_visible(False)
    accuracy_axes.set_ylim(-5, 105)
    accuracy_axes.set_ylabel(t(language, "progress.chart.accuracy"))
    accuracy_axes.set_xlabel(t(language, "progress.chart.week"))
    count_axes.set_ylabel(t(language, "progress.chart.answers"))
    count_axes.yaxis.get_major_locator().set_params(integer=True)
    accuracy_axes.set_xticks(weeks[:: max(1, -(-len(weeks) // CHART_MAX_TICKS))])  # a tick per week, thinned
    accuracy_axes.xaxis.set_major_formatter(DateFormatter("%d.%m" if language == "tr" else "%d %b"))
    accuracy_axes.set_title(t(language, "progress.chart.title"))
    accuracy_axes.legend(loc="upper left", fontsize="small")


class ChartWorker:
    """One child process that draws charts, kept while charts are asked for and closed after IDLE_S.

    Starting a child (and importing matplotlib in it) is most of a /progress call's time: a busy bot
    keeps the worker warm, an idle one gives its memory back."""

    IDLE_S = 300.0

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._idle: asyncio.TimerHandle | None = None

    def _ensure(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        loop = asyncio.get_running_loop()
        if self._idle is not None:
            self._idle.cancel()
        self._idle = loop.call_later(self.IDLE_S, self.close)
        return self._pool

    def close(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    async def draw(self, progress: Progress, language: str, labels: Mapping[str, str]) -> bytes:
        loop = asyncio.get_running_loop()
        try:
            pool = self._ensure()
        except (OSError, ValueError) as error:
            log.warning("no child process for the chart (%s): drawing it here", error)
            return await asyncio.to_thread(progress_chart_png, progress, language, dict(labels))
        try:
            return await loop.run_in_executor(pool, progress_chart_png, progress, language, dict(labels))
        except Exception as error:  # a broken child (killed, out of memory): the chart still comes
            log.warning("chart child process failed (%s): drawing it here", error)
            self.close()
            return await asyncio.to_thread(progress_chart_png, progress, language, dict(labels))


_WORKER = ChartWorker()


async def draw_progress_chart(progress: Progress, language: str, labels: Mapping[str, str]) -> bytes:
    """The chart as PNG bytes, drawn by the process's one chart worker."""
    return await _WORKER.draw(progress, language, labels)


def close_chart_worker() -> None:
    _WORKER.close()
