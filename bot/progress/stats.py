"""A user's progress over every answer they gave (interviews and daily questions), and their history.

Everything is computed from the store on demand: answers are the record, so there is no running
total to drift from them. Questions no longer in the bank are left out (their topic and difficulty
are unknown), so the topic rows always add up to the totals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from zoneinfo import ZoneInfo

from bot.bank.loader import Bank
from bot.domain import Breakdown, Question, tally
from bot.interview.report import build_report
from bot.schedule.localtime import local_date, week_start
from bot.store import interviews as records
from bot.store.database import Database
from bot.store.progress import answers_of, recent_interviews

UTC = ZoneInfo("UTC")


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


def week_of(timestamp: float) -> date:
    """The Monday (UTC) of the week holding `timestamp`: the key of the weekly series."""
    return local_date(week_start(timestamp, UTC), UTC)


async def _answers(db: Database, bank: Bank, user_id: int) -> list[tuple[Question, bool, bool, float]]:
    """(question, right, timed out, answered at) for every answer of the user still in the bank."""
    found = []
    for answer in await answers_of(db, user_id):
        question = bank.get(answer.question_id)
        if question is not None:
            timed_out = answer.option_index is None
            found.append((question, answer.correct and not timed_out, timed_out, answer.answered_at))
    return found


async def user_progress(db: Database, bank: Bank, user_id: int) -> Progress:
    """The user's progress over all their answers; a timeout counts as a wrong answer."""
    answers = await _answers(db, bank, user_id)
    weekly: dict[str, dict[date, Breakdown]] = {}
    for topic in sorted({question.topic for question, *_ in answers}):
        weekly[topic] = tally((week_of(at), right) for question, right, _, at in answers
                               if question.topic == topic)
    return Progress(
        answered=len(answers),
        right=sum(right for _, right, _, _ in answers),
        timed_out=sum(timed_out for _, _, timed_out, _ in answers),
        by_topic=tally((question.topic, right) for question, right, _, _ in answers),
        by_difficulty=tally((question.difficulty, right) for question, right, _, _ in answers),
        weekly=weekly,
    )


async def history(db: Database, bank: Bank, user_id: int, limit: int = 10) -> list[InterviewSummary]:
    """The user's latest interviews and reviews, newest first, scored as their reports score them."""
    summaries = []
    for interview in await recent_interviews(db, user_id, limit):
        report = build_report(interview.id, interview.status, bank, await records.interview_asked(db, interview.id))
        summaries.append(InterviewSummary(interview.id, interview.started_at, interview.kind, interview.status,
                                          tuple(report.by_topic), report.score, report.total,
                                          report.total_time_ms))
    return summaries
