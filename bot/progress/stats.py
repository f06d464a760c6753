"""A user's progress over every answer they gave (interviews and daily questions), their interview
history, and the progress chart.

Everything is computed from the store on demand: answers are the record, so there is no running
total to drift from them. Questions no longer in the bank are left out (their topic and difficulty
are unknown), so the topic rows always add up to the totals.
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

from bot.bank.loader import Bank
from bot.domain import Breakdown, Question
from bot.text.i18n import t
from bot.interview.report import build_report
from bot.store import interviews as records
from bot.store.database import Database

CHART_SIZE_PX = (800, 450)
CHART_DPI = 100
CHART_MAX_TICKS = 10
CHART_MAX_TOPICS = 8  # more lines than this are unreadable; the tables still list every topic


@dataclass(frozen=True)
class Progress:
    """Totals, accuracy per topic and difficulty, and per topic a weekly series (week start -> tally)."""

    answered: int
    right: int
    timed_out: int
    by_topic: dict[str, Breakdown] = field(default_factory=dict)
    by_difficulty: dict[int, Breakdown] = field(default_factory=dict)
    weekly: dict[str, dict[date, Breakdown]] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        return self.right / self.answered if self.answered else 0.0

    @property
    def weeks(self) -> list[date]:
        """Every week (its Monday, UTC) with at least one answer, oldest first."""
        return sorted({week for series in self.weekly.values() for week in series})

    def answers_in(self, week: date) -> int:
        return sum(series[week].total for series in self.weekly.values() if week in series)


@dataclass(frozen=True)
class InterviewSummary:
    """One line of a user's history: when, what kind, how it went."""

    interview_id: int
    started_at: float
    kind: str  # "interview" or "review"
    status: str  # "active", "finished" or "stopped"
    topics: tuple[str, ...]
    score: int
    total: int
    total_time_ms: int


def week_start(timestamp: float) -> date:
    """The Monday (UTC) of the ISO week holding `timestamp`: the key of the weekly series."""
    day = datetime.fromtimestamp(timestamp, tz=timezone.utc).date()
    return day - timedelta(days=day.weekday())


def _tally(pairs: Iterable[tuple[object, bool]]) -> dict:
    counts: dict = defaultdict(lambda: [0, 0])
    for key, correct in pairs:
        counts[key][0] += correct
        counts[key][1] += 1
    return {key: Breakdown(right, total) for key, (right, total) in sorted(counts.items())}


async def _answers(db: Database, bank: Bank, user_id: int) -> list[tuple[Question, bool, bool, float]]:
    """(question, right, timed out, answered at) for every answer of the user still in the bank."""
    rows = await db.fetch_all(
        """SELECT q.question_id, a.option_index, a.correct, a.answered_at
           FROM answers a JOIN asked_questions q ON q.id = a.asked_id
           WHERE a.user_id = ? ORDER BY a.answered_at, a.id""",
        (user_id,),
    )
    found = []
    for row in rows:
        question = bank.get(row["question_id"])
        if question is not None:
            timed_out = row["option_index"] is None
            found.append((question, bool(row["correct"]) and not timed_out, timed_out, float(row["answered_at"])))
    return found


async def user_progress(db: Database, bank: Bank, user_id: int) -> Progress:
    """The user's progress over all their answers; a timeout counts as a wrong answer."""
    answers = await _answers(db, bank, user_id)
    weekly: dict[str, dict[date, Breakdown]] = {}
    for topic in sorted({question.topic for question, *_ in answers}):
        weekly[topic] = _tally((week_start(at), right) for question, right, _, at in answers
                               if question.topic == topic)
    return Progress(
        answered=len(answers),
        right=sum(right for _, right, _, _ in answers),
        timed_out=sum(timed_out for _, _, timed_out, _ in answers),
        by_topic=_tally((question.topic, right) for question, right, _, _ in answers),
        by_difficulty=_tally((question.difficulty, right) for question, right, _, _ in answers),
        weekly=weekly,
    )


async def history(db: Database, bank: Bank, user_id: int, limit: int = 10) -> list[InterviewSummary]:
    """The user's latest interviews and reviews, newest first, scored as their reports score them."""
    rows = await db.fetch_all(
        """SELECT id, kind, status, started_at FROM interviews WHERE user_id = ?
           ORDER BY started_at DESC, id DESC LIMIT ?""",
        (user_id, limit),
    )
    summaries = []
    for row in rows:
        report = build_report(row["id"], row["status"], bank, await records.interview_asked(db, row["id"]))
        summaries.append(InterviewSummary(row["id"], float(row["started_at"]), row["kind"], row["status"],
                                          tuple(report.by_topic), report.score, report.total,
                                          report.total_time_ms))
    return summaries


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
