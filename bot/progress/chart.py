"""The progress chart: weekly accuracy per topic over answers per week, drawn in a child process.

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

from bot.progress.stats import Progress
from bot.text.i18n import t

log = logging.getLogger(__name__)
CHART_SIZE_PX = (800, 450)
CHART_DPI = 100
CHART_MAX_TICKS = 10
CHART_MAX_TOPICS = 8  # more lines than this are unreadable; the tables still list every topic


def _chart_topics(progress: Progress) -> list[str]:
    """The most answered topics (at most CHART_MAX_TOPICS), in name order for a stable legend."""
    busiest = sorted(progress.by_topic, key=lambda topic: (-progress.by_topic[topic].total, topic))
    return sorted(busiest[:CHART_MAX_TOPICS])


def progress_chart_png(progress: Progress, language: str, labels: Mapping[str, str] | None = None) -> bytes:
    """Weekly accuracy per topic (lines, 0-100 %) over answers per week (bars), as PNG bytes.

    Draws on its own Figure and Agg canvas: no pyplot, so no global figure state or backend switch
    leaks into a long-running bot. `labels` maps topic names to what the legend shows.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.dates import DateFormatter
    from matplotlib.figure import Figure

    labels = labels or {}
    width, height = CHART_SIZE_PX
    figure = Figure(figsize=(width / CHART_DPI, height / CHART_DPI), dpi=CHART_DPI, layout="constrained")
    FigureCanvasAgg(figure)
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
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=CHART_DPI)
    return buffer.getvalue()


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
