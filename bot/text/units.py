"""How numbers read in either language: a share as a whole percent, a duration in minutes and seconds."""

from __future__ import annotations

from bot.text.i18n import t


def percent(right: int, total: int) -> int:
    """A share as a whole percent; 0 of 0 is 0."""
    return round(100 * right / total) if total else 0


def duration(language: str, ms: int) -> str:
    """'1 min 5 s' / '1 dk 5 sn': a duration as people say it, in their language."""
    seconds = round(ms / 1000)
    if seconds >= 60:
        return t(language, "history.minutes", minutes=seconds // 60, seconds=seconds % 60)
    return t(language, "history.seconds", seconds=seconds)
