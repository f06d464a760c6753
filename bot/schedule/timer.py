"""The one APScheduler (3.x AsyncIOScheduler) of the process, shared by every adapter.

It only decides *when* to wake the core: a cron job per subscription at its local time (APScheduler
handles daylight saving), a one-off job per reveal and per interview deadline, and a sweep every
minute as a safety net. *What* happens is decided by the core from the store, so a duplicate or
missed wake-up is harmless, and the jobs are rebuilt from the store at every start.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.schedule.localtime import parse_hhmm, zone
from bot.store.daily import Subscription

log = logging.getLogger(__name__)
DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
SWEEP_SECONDS = 60


def subscription_trigger(subscription: Subscription) -> CronTrigger | None:
    """The cron trigger of a subscription's local post time, or None when its time or zone is unusable."""
    at, tz = parse_hhmm(subscription.post_time), zone(subscription.timezone)
    if at is None or tz is None:
        return None
    days = ",".join(DAY_NAMES[d] for d in subscription.weekdays) if subscription.weekdays else "*"
    return CronTrigger(hour=at.hour, minute=at.minute, day_of_week=days, timezone=tz)


class Wakeups:
    """Wraps the AsyncIOScheduler; every job calls the same `tick` coroutine."""

    def __init__(self, tick: Callable[[], Awaitable[object]]) -> None:
        self._tick = tick
        self.scheduler = AsyncIOScheduler(timezone=timezone.utc, job_defaults={
            "coalesce": True, "max_instances": 1, "misfire_grace_time": 3600})

    async def _run(self) -> None:
        try:
            await self._tick()
        except Exception:  # a failing tick must not kill the scheduler; the next one retries from the store
            log.exception("scheduled tick failed")

    def start(self, subscriptions: list[Subscription], moments: list[float]) -> None:
        """Build every job from the store's state, then start."""
        self.scheduler.add_job(self._run, IntervalTrigger(seconds=SWEEP_SECONDS), id="sweep", replace_existing=True)
        for subscription in subscriptions:
            self.subscription_changed(subscription)
        for moment in moments:
            self.wake_at(moment)
        if not self.scheduler.running:
            self.scheduler.start()
        log.info("scheduler started with %d jobs", len(self.scheduler.get_jobs()))

    def shutdown(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def subscription_changed(self, subscription: Subscription) -> None:
        job_id = f"daily:{subscription.chat_id}"
        trigger = subscription_trigger(subscription) if subscription.active else None
        if trigger is None:
            if self.scheduler.get_job(job_id):
                self.scheduler.remove_job(job_id)
            return
        self.scheduler.add_job(self._run, trigger, id=job_id, replace_existing=True)

    def wake_at(self, moment: float) -> None:
        """A one-off wake-up (a reveal, an interview deadline); past moments run at once."""
        when = datetime.fromtimestamp(moment, timezone.utc)
        self.scheduler.add_job(self._run, DateTrigger(run_date=when), id=f"at:{moment:.3f}", replace_existing=True)
