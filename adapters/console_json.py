"""The console's final report as one JSON object (`console --json`), for scripts; a module of its own so the
interview loop stays one concept."""

from __future__ import annotations

from typing import Any

from bot.core import Report


def report_json(report: Report) -> dict[str, Any]:
    """The report as one JSON-able object, for scripts."""
    return {
        "interview_id": report.interview_id,
        "status": report.status,
        "ended_sure": report.ended_sure,
        "score": report.score,
        "total": report.total,
        "accuracy": round(report.score / report.total, 3) if report.total else 0.0,
        "total_time_ms": report.total_time_ms,
        "mean_time_ms": report.mean_time_ms,
        "weakest_topic": report.weakest_topic,
        "levels": {name: _level_json(level) for name, level in report.levels.items()},
        "level": _level_json(report.level) if report.level is not None else None,
        "by_topic": {name: {"right": b.right, "total": b.total} for name, b in report.by_topic.items()},
        "by_difficulty": {str(level): {"right": b.right, "total": b.total} for level, b in report.by_difficulty.items()},
        "questions": [
            {"id": r.question.id, "topic": r.question.topic, "difficulty": r.question.difficulty,
             "chosen": r.chosen_letter, "correct_letter": r.correct_letter, "right": r.correct,
             "latency_ms": r.latency_ms}
            for r in report.results
        ],
    }


def _level_json(level: Any) -> dict[str, Any]:
    """A verdict as data: the band, the ability and its standard error (logits), the band's confidence."""
    return {"band": level.band, "ability": level.ability, "se": level.se, "confidence": level.confidence}
