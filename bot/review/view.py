"""What /review says when it does not start a review."""

from __future__ import annotations

from datetime import datetime, timezone

from bot.text.i18n import t
from bot.text.messages import Message, Paragraph


def _date(timestamp: float) -> str:
    """A day as YYYY-MM-DD (UTC): unambiguous in both languages."""
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).strftime("%Y-%m-%d")


def review_status_message(due: int, next_due_at: float | None, language: str) -> Message:
    """What /review says when it does not start: nothing due yet (and when), or nothing missed yet."""
    if due > 0:
        return Message((Paragraph(t(language, "review.due", count=due)),))
    if next_due_at is not None:
        return Message((Paragraph(t(language, "review.nothing_due", date=_date(next_due_at))),))
    return Message((Paragraph(t(language, "review.no_cards")),))
