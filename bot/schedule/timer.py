"""The core's timers: each one APScheduler job, re-armed at the earliest due moment in the store.

Posts, reveals and interview deadlines all live in the store with their instants; after every tick
the timer asks for the earliest one and re-arms its single job there (or a sweep interval ahead, at
most), and `poke` re-arms it at once when something new was scheduled. Ticks run one at a time. So
ten thousand groups at 09:00 are one wake-up and one broadcast, a reveal is on time whether its post
was scheduled or manual, and a restart reads the same instants again: nothing lives only in memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta, timezone

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger

from bot.metrics import scheduler_lag
from bot.schedule.clock import Clock

log = logging.getLogger(__name__)
SWEEP_SECONDS = 60.0  # the longest sleep: a safety net for changes made by another process
STUCK_SECONDS = 1.0  # still overdue right after a tick: something cannot be done yet; do not spin


def shared_scheduler() -> AsyncIOScheduler:
    """The process's one AsyncIOScheduler, for every timer of the core."""
    return AsyncIOScheduler(timezone=timezone.utc, job_defaults={
        "coalesce": True, "max_instances": 2, "misfire_grace_time": None})


class Timer:
    """Runs `tick` at every moment `next_moment` names; `poke` makes it look again at once.

    Several timers may share one scheduler (each is one job, `name`): the daily broadcast and the
    interview deadlines run on separate timers, so a long broadcast never delays a deadline."""

    def __init__(self, tick: Callable[[], Awaitable[object]], next_moment: Callable[[], Awaitable[float | None]],
                 clock: Clock, sweep: float = SWEEP_SECONDS, *, scheduler: AsyncIOScheduler | None = None,
                 name: str = "tick") -> None:
        self._tick, self._next_moment, self._clock, self._sweep = tick, next_moment, clock, sweep
        self.scheduler = scheduler or shared_scheduler()
        self._owns_scheduler = scheduler is None  # a shared one is shut down once, by whoever shares it
        self.name = name
        self._stopped = False
        self._lock = asyncio.Lock()
        self._again = False
        self._running: asyncio.Task[None] | None = None
        self._due_at = clock.now()  # the moment the armed tick is for (its lateness is a metric)
        self._moment: float | None = None  # the earliest due moment, as last read

    def start(self) -> None:
        """Start the scheduler with the first tick due now (it catches up on what was missed)."""
        if not self.scheduler.running:
            self.scheduler.start()
        self._arm(0.0)

    def poke(self) -> None:
        """Something was scheduled or became deliverable: tick now (or right after the running tick)."""
        if self._lock.locked():
            self._again = True  # else the running tick's own re-arming could replace the job armed below
        if self.scheduler.running:
            self._arm(0.0)

    async def stop(self, grace: float = 0.0) -> None:
        """No more ticks; a tick still running gets `grace` seconds to end (its work told to begin nothing
        new: `Core.stop_work`), then is cancelled and awaited, so the store can close after it."""
        self._stopped = True
        if self.scheduler.running and self.scheduler.get_job(self.name) is not None:
            self.scheduler.remove_job(self.name)
        running, self._running = self._running, None
        if running is not None and not running.done() and running is not asyncio.current_task():
            if grace > 0:
                await asyncio.wait([running], timeout=grace)
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
        if self._owns_scheduler and self.scheduler.running:  # after the grace: its shutdown cancels running jobs
            self.scheduler.shutdown(wait=False)

    def _arm(self, delay: float) -> None:
        if self._stopped:
            return
        when = datetime.now(timezone.utc) + timedelta(seconds=delay)
        self._due_at = self._clock.now() + delay
        self.scheduler.add_job(self._fire, DateTrigger(run_date=when), id=self.name, replace_existing=True)

    async def delay(self) -> float:
        """Seconds until the next tick is due: 0 when overdue, at most the sweep interval."""
        try:
            moment = await self._next_moment()
        except Exception:
            log.exception("reading the next due moment failed; sweeping")
            return self._sweep
        self._moment = moment
        if moment is None:
            return self._sweep
        return min(self._sweep, max(0.0, moment - self._clock.now()))

    async def _fire(self) -> None:
        if self._lock.locked():  # poked during a tick: the running tick goes round once more
            self._again = True
            return
        self._running = asyncio.current_task()
        scheduler_lag(self.name, max(0.0, self._clock.now() - self._due_at))
        before = self._moment  # the earliest moment as last read: if it is still the one due, nothing moved
        try:
            async with self._lock:
                self._again = True
                while self._again:
                    self._again = False
                    try:
                        await self._tick()
                    except Exception:  # a failing tick must not stop the timer; the next one retries from the store
                        log.exception("scheduled tick failed")
                delay = await self.delay()
        except asyncio.CancelledError:  # stopped (shutting down): the store still holds whatever was not done
            log.debug("tick cancelled at shutdown")
            return
        if self.scheduler.running:  # a poke while the delay was read means: look again now
            moved = before is not None and self._moment != before  # overdue again, but a later moment: work
            # got done and more came due meanwhile, so go on at once (a stuck moment stays the same)
            self._arm(0.0 if self._again or (delay <= 0 and moved) else delay if delay > 0 else STUCK_SECONDS)
