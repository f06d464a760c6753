"""Progress, history and review status as neutral Messages in the user's language."""

from __future__ import annotations

from datetime import datetime, timezone

from bot.bank.loader import Bank
from bot.domain import Breakdown
from bot.text.i18n import t
from bot.text.units import counted, duration, percent
from bot.text.messages import SLOT, Block, CommandHint, Message, Paragraph, Table
from bot.asking.view import topic_label
from bot.progress.chart import progress_chart_png
from bot.progress.stats import InterviewSummary, Progress


def _date(timestamp: float) -> str:
    """A day as YYYY-MM-DD (UTC): unambiguous in both languages."""
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).strftime("%Y-%m-%d")


def _row(language: str, name: str, tally: Breakdown) -> tuple[str, str, str]:
    return name, str(tally.total), t(language, "progress.percent", percent=percent(tally.right, tally.total))


def chart_labels(bank: Bank, progress: Progress, language: str) -> dict[str, str]:
    """What the chart's legend and the tables call each topic."""
    return {topic: topic_label(bank, topic, language) for topic in progress.by_topic}


def progress_message(bank: Bank, progress: Progress, language: str, image: bytes | None = None) -> Message:
    """Overall accuracy, a table per topic and per difficulty, and the weekly chart as the image
    (`image` when the caller drew it elsewhere, else drawn here)."""
    if progress.answered == 0:
        return _start_one(language, "progress.empty")
    blocks: list[Block] = [
        Paragraph(t(language, "progress.title"), "title"),
        Paragraph(t(language, "progress.overall", answered=progress.answered, right=progress.right,
                    percent=percent(progress.right, progress.answered))),
    ]
    if progress.timed_out:
        blocks.append(Paragraph(counted(language, "progress.timed_out", progress.timed_out), "muted"))
    header = (t(language, "progress.answered"), t(language, "progress.right_percent"))
    labels = chart_labels(bank, progress, language)
    topic_rows = sorted((_row(language, labels[topic], tally) for topic, tally in progress.by_topic.items()),
                        key=lambda row: row[0].casefold())
    blocks.append(Table((t(language, "progress.topic"), *header), tuple(topic_rows)))
    blocks.append(Table((t(language, "progress.difficulty"), *header),
                        tuple(_row(language, t(language, f"difficulty.{level}"), tally)
                              for level, tally in progress.by_difficulty.items())))
    return Message(tuple(blocks), image=image or progress_chart_png(progress, language, labels))


def _kind(language: str, summary: InterviewSummary) -> str:
    kind = t(language, f"history.kind.{summary.kind}")
    if summary.status == "finished":
        return kind
    return f"{kind} ({t(language, f'history.status.{summary.status}')})"


def _start_one(language: str, key: str) -> Message:
    """Nothing to show yet: the next step as this platform types it (`/interview`, `interview-bot console`)."""
    return Message((Paragraph(t(language, key, slot=SLOT), inline=CommandHint("interview", language=language)),))


def history_message(bank: Bank, summaries: list[InterviewSummary], language: str) -> Message:
    """The latest interviews as a table: date, kind, topics, score, time."""
    if not summaries:
        return _start_one(language, "history.empty")
    rows = tuple(
        (_date(summary.started_at), _kind(language, summary),
         ", ".join(topic_label(bank, topic, language) for topic in summary.topics) or "-",
         t(language, "history.score", score=summary.score, total=summary.total,
           percent=percent(summary.score, summary.total)),
         duration(language, summary.total_time_ms))
        for summary in summaries
    )
    header = tuple(t(language, f"history.column.{column}") for column in ("date", "kind", "topics", "score", "time"))
    return Message((Paragraph(t(language, "history.title"), "title"), Table(header, rows)))
