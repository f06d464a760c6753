"""How numbers read in either language: a share as a whole percent, durations and time spans as people
say them, an instant in a chat's own zone, and counted nouns ("1 question", "3 questions"; "3 soru")."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.text.i18n import t
from bot.text.messages import Moment


def percent(right: int, total: int) -> int:
    """A share as a whole percent; 0 of 0 is 0."""
    return round(100 * right / total) if total else 0


def duration(language: str, ms: int) -> str:
    """'1 min 5 s' / '1 dk 5 sn': a duration as people say it, in their language."""
    seconds = round(ms / 1000)
    if seconds >= 60 and seconds % 60 == 0:
        return t(language, "history.whole_minutes", minutes=seconds // 60)
    if seconds >= 60:
        return t(language, "history.minutes", minutes=seconds // 60, seconds=seconds % 60)
    return t(language, "history.seconds", seconds=seconds)


def decimal(language: str, value: float, places: int = 1) -> str:
    """A decimal number with the language's separator: 3.2 / 3,2."""
    text = f"{value:.{places}f}"
    return text.replace(".", ",") if language == "tr" else text


def seconds_exact(language: str, ms: int) -> str:
    """'3.2 s' / '3,2 sn': a quick answer's time, to a tenth of a second."""
    return t(language, "units.seconds_exact", seconds=decimal(language, ms / 1000))


def span(language: str, seconds: float) -> str:
    """'12 h', '1 h 30 min', '6 min' / '12 saat', '1 saat 30 dakika': a window of hours, to the minute."""
    minutes = max(1, round(seconds / 60))
    hours, minutes = divmod(minutes, 60)
    if hours and minutes:
        return t(language, "units.hours_minutes", hours=hours, minutes=minutes)
    if hours:
        return t(language, "units.hours", hours=hours)
    return t(language, "units.minutes", minutes=minutes)


WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def moment(language: str, at: float, tz: ZoneInfo, since: float) -> Moment:
    """The instant `at` for a chat in zone `tz`, seen from `since` (when the message is posted):
    '21:00, Europe/Istanbul', 'tomorrow 10:00, ...', or the weekday further off."""
    local, start = datetime.fromtimestamp(at, tz), datetime.fromtimestamp(since, tz)
    values = {"time": local.strftime("%H:%M"), "zone": tz.key}
    if local.date() == start.date():
        text = t(language, "units.at_today", **values)
    elif local.date() == start.date() + timedelta(days=1):
        text = t(language, "units.at_tomorrow", **values)
    else:
        text = t(language, "units.at_day", day=t(language, f"daily.weekday.{WEEKDAYS[local.weekday()]}"), **values)
    return Moment(round(at), text)


def counted(language: str, key: str, count: int, **values: object) -> str:
    """A text about `count` things in the right grammatical number: `key.one` for exactly one in
    English, `key.other` otherwise (Turkish keeps the noun singular after a number: both read alike)."""
    form = "one" if count == 1 and language != "tr" else "other"
    return t(language, f"{key}.{form}", count=count, **values)
