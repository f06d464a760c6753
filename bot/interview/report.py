"""The scored end of an interview: score, accuracy per topic and difficulty, time, what to review."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from bot.bank.loader import Bank
from bot.domain import AskedQuestion, Breakdown, QuestionResult, RecordedAnswer, Report, tally
from bot.learner.ability import Estimate
from bot.learner.verdict import combined, level


def build_report(interview_id: int, status: str, bank: Bank,
                 asked: list[tuple[AskedQuestion, RecordedAnswer | None]]) -> Report:
    """A report from what the store recorded. Only answered questions count (a timeout is an answer,
    a wrong one); the question on screen when an interview was stopped does not. Questions no longer
    in the bank are left out."""
    results: list[QuestionResult] = []
    for delivery, answer in asked:
        question = bank.get(delivery.question_id)
        if question is None or answer is None:
            continue
        results.append(QuestionResult(question, delivery, answer.option_index, answer.correct, answer.latency_ms))
    by_topic = tally((result.question.topic, result.correct) for result in results)
    by_difficulty = tally((result.question.difficulty, result.correct) for result in results)
    times = [result.latency_ms for result in results if result.latency_ms is not None]
    return Report(
        interview_id=interview_id,
        status=status,
        results=tuple(results),
        by_topic=by_topic,
        by_difficulty=by_difficulty,
        total_time_ms=sum(times),
        mean_time_ms=round(sum(times) / len(times)) if times else 0,
        weakest_topic=_weakest(by_topic),
    )


def _weakest(by_topic: dict[str, Breakdown]) -> str | None:
    """The topic with the lowest accuracy (more questions breaks a tie); None when nothing was missed."""
    missed = [(b.accuracy, -b.total, name) for name, b in by_topic.items() if b.right < b.total]
    return min(missed)[2] if missed else None


def with_levels(report: Report, bank: Bank, topics: Mapping[str, Estimate],
                specialties: Mapping[str, Estimate]) -> Report:
    """The report with the verdict: a level per topic it asked (from the person's ability there, which
    this interview's answers moved) and one overall, from the abilities in the specialties it touched."""
    asked_topics = [name for name in report.by_topic if name in topics]
    touched = sorted({result.question.specialty for result in report.results})
    overall = combined([specialties[name] for name in touched if name in specialties])
    return replace(report, levels={name: level(topics[name]) for name in asked_topics},
                   level=level(overall) if overall is not None else None)
