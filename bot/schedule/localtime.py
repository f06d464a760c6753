"""Local-time arithmetic for chats: daily post instants, local days, weeks and months, across DST.

Everything is computed from an IANA zone with zoneinfo, so 09:00 in Europe/Berlin is 09:00 local
on both sides of a daylight-saving change.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_HHMM = re.compile(r"^([01]?\d|2[0-3])[:.]([0-5]\d)$")


def parse_hhmm(text: str) -> time | None:
    """'09:30' or '9.30' -> time(9, 30); anything else -> None."""
    match = _HHMM.match(text.strip())
    return time(int(match.group(1)), int(match.group(2))) if match else None


def zone(name: str) -> ZoneInfo | None:
    """The IANA zone, or None for a name that is not one (e.g. 'Istanbul', 'GMT+3' typos)."""
    if not name or len(name) > 64 or "/" not in name and name != "UTC":
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for the file system
        return None


def local_date(now: float, tz: ZoneInfo) -> date:
    return datetime.fromtimestamp(now, tz).date()


def instant(day: date, at: time, tz: ZoneInfo) -> float:
    """The UTC timestamp of `at` local time on `day` (a time skipped by DST resolves forward)."""
    local = datetime.combine(day, at, tzinfo=tz)
    roundtrip = local.astimezone(timezone.utc).astimezone(tz)
    if roundtrip.replace(tzinfo=None) != local.replace(tzinfo=None):
        local = datetime.combine(day, at, tzinfo=tz).replace(fold=1)
    return local.timestamp()


def next_instant(now: float, at: time, tz: ZoneInfo, weekdays: tuple[int, ...] | None = None) -> float:
    """The first instant strictly after `now` at local time `at` on an allowed weekday (Mon=0)."""
    day = local_date(now, tz)
    for offset in range(0, 9):
        candidate = day + timedelta(days=offset)
        if weekdays and candidate.weekday() not in weekdays:
            continue
        moment = instant(candidate, at, tz)
        if moment > now:
            return moment
    raise ValueError("no allowed weekday")


def week_start(now: float, tz: ZoneInfo) -> float:
    """Monday 00:00 local of the week holding `now`."""
    day = local_date(now, tz)
    return instant(day - timedelta(days=day.weekday()), time(0, 0), tz)


def month_start(now: float, tz: ZoneInfo) -> float:
    return instant(local_date(now, tz).replace(day=1), time(0, 0), tz)
