"""A subscription's post time, zone and weekdays, parsed once into the instants they mean.

The store keeps the strings the admin typed; every other place asks a `PostSchedule` for instants
and local days instead of parsing them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time
from functools import lru_cache
from zoneinfo import ZoneInfo

from bot.schedule.localtime import local_date, next_instant, parse_hhmm, zone
from bot.store.daily import Subscription


@dataclass(frozen=True)
class PostSchedule:
    """When a chat's daily question is due: `at` local time in `tz`, on `weekdays` (None: every day)."""

    at: time
    tz: ZoneInfo
    weekdays: tuple[int, ...] | None

    def next_after(self, moment: float) -> float:
        """The first post instant strictly after `moment`."""
        return next_instant(moment, self.at, self.tz, self.weekdays)

    def slot_to_post(self, stored: float, now: float, grace: float) -> float:
        """The instant whose post is due at `now`: the stored one; or, when the bot was down past its grace,
        the latest one still within its grace, if any (yesterday's is lost, today's still goes out)."""
        if now <= stored + grace:
            return stored
        latest = self.next_after(now - grace)
        return latest if latest <= now else stored

    def local_day(self, moment: float) -> str:
        """The chat's local date at `moment`, as the store keys posts by it."""
        return local_date(moment, self.tz).isoformat()


@lru_cache(maxsize=4096)
def _parse(post_time: str, timezone: str, weekdays: tuple[int, ...] | None) -> PostSchedule | None:
    at, tz = parse_hhmm(post_time), zone(timezone)
    return PostSchedule(at, tz, weekdays) if at is not None and tz is not None else None


def schedule_of(subscription: Subscription) -> PostSchedule | None:
    """The subscription's schedule, or None when its stored time or zone is unusable."""
    return _parse(subscription.post_time, subscription.timezone, subscription.weekdays)


def chat_zone(subscription: Subscription | None) -> ZoneInfo:
    """The zone a chat's days and weeks are counted in: its subscription's, else UTC."""
    schedule = schedule_of(subscription) if subscription else None
    return schedule.tz if schedule else ZoneInfo("UTC")
