"""The one timer: one tick at a time, re-armed at the store's earliest moment, poked awake at once."""

from __future__ import annotations

import asyncio

from bot.schedule.clock import ManualClock
from bot.schedule.timer import Timer


async def _until(condition, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


async def test_ticks_at_start_then_waits_for_the_next_moment_and_wakes_when_poked() -> None:
    clock = ManualClock(1000.0)
    moments: list[float | None] = [clock.now() + 30]
    ticks: list[float] = []

    async def tick() -> None:
        ticks.append(clock.now())

    async def next_moment() -> float | None:
        return moments[0]

    timer = Timer(tick, next_moment, clock)
    timer.start()
    try:
        await _until(lambda: len(ticks) == 1)
        assert await timer.delay() == 30
        moments[0] = clock.now() + 3600
        assert await timer.delay() == 60, "never longer than the sweep"
        await asyncio.sleep(0.1)
        assert len(ticks) == 1, "nothing is due yet: no second tick"
        moments[0] = clock.now()  # something became due now
        timer.poke()
        await _until(lambda: len(ticks) >= 2)
    finally:
        await timer.stop()


async def test_one_tick_at_a_time_and_a_poke_during_a_tick_runs_once_more() -> None:
    clock = ManualClock(1000.0)
    running, most, count = 0, 0, 0
    release = asyncio.Event()

    async def tick() -> None:
        nonlocal running, most, count
        running += 1
        most = max(most, running)
        count += 1
        if count == 1:
            await release.wait()
        running -= 1

    async def next_moment() -> float | None:
        return None

    timer = Timer(tick, next_moment, clock)
    timer.start()
    try:
        await _until(lambda: count == 1)
        for _ in range(5):
            timer.poke()
            await asyncio.sleep(0.02)
        release.set()
        await _until(lambda: count == 2)
        await asyncio.sleep(0.1)
        assert most == 1 and count == 2
    finally:
        await timer.stop()


async def test_an_overdue_moment_that_cannot_be_done_does_not_spin() -> None:
    clock = ManualClock(1000.0)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        ticks += 1

    async def next_moment() -> float | None:
        return clock.now() - 10  # stuck: due, but the tick cannot clear it

    timer = Timer(tick, next_moment, clock)
    timer.start()
    try:
        await asyncio.sleep(0.5)
        assert ticks == 1
    finally:
        await timer.stop()


async def test_a_poke_just_before_a_tick_ends_is_not_lost() -> None:
    """The poke's job has not fired yet when the running tick re-arms itself: the tick goes round once more
    rather than leaving the poked work for the next sweep (a quiz round's first question a minute late)."""
    clock = ManualClock(1000.0)
    count = 0
    release = asyncio.Event()

    async def tick() -> None:
        nonlocal count
        count += 1
        if count == 1:
            await release.wait()

    async def next_moment() -> float | None:
        return None  # nothing due: the next tick would be a sweep away

    timer = Timer(tick, next_moment, clock)
    timer.start()
    try:
        await _until(lambda: count == 1)
        timer.poke()
        timer.scheduler.remove_job(timer.name)  # as the tick's own re-arming does when it comes first
        release.set()
        await _until(lambda: count >= 2, 2.0)
    finally:
        await timer.stop()


async def test_work_that_came_due_during_a_tick_runs_at_once_not_a_second_later() -> None:
    """Overdue right after a tick, but at a later moment than before it: work got done and more came due
    meanwhile (quiz questions closing while others closed), so the next tick runs at once."""
    clock = ManualClock(1000.0)
    due = [2000.0]
    ticks: list[float] = []
    loop = asyncio.get_running_loop()

    async def tick() -> None:
        ticks.append(loop.time())
        if len(ticks) == 2:
            due[0] = 995.0  # the poked work is done; another came due while it ran
        elif len(ticks) == 3:
            due[0] = 2000.0

    async def next_moment() -> float | None:
        return due[0]

    timer = Timer(tick, next_moment, clock)
    timer.start()
    try:
        await _until(lambda: len(ticks) == 1)
        await asyncio.sleep(0.05)
        due[0] = 990.0
        timer.poke()
        await _until(lambda: len(ticks) >= 3, 2.0)
        assert ticks[2] - ticks[1] < 0.5, "not held back by the stuck pause"
    finally:
        await timer.stop()


async def test_a_stop_with_grace_lets_the_running_tick_end_and_cancels_one_that_does_not() -> None:
    """At shutdown the work of a running tick (the daily broadcast's sends under way) gets its grace to
    end, rather than being cut off mid-send; a tick still running after it is cancelled."""
    clock = ManualClock(1000.0)
    ended: list[str] = []
    release = asyncio.Event()

    async def tick() -> None:
        try:
            await release.wait()
            ended.append("finished")
        except asyncio.CancelledError:
            ended.append("cancelled")
            raise

    async def next_moment() -> float | None:
        return None

    for grace, release_after, expected in ((5.0, 0.05, "finished"), (0.05, None, "cancelled")):
        ended.clear()
        release.clear()
        timer = Timer(tick, next_moment, clock, name=f"grace-{grace}")
        timer.start()
        await _until(lambda: timer._running is not None)
        if release_after is not None:
            asyncio.get_running_loop().call_later(release_after, release.set)
        await timer.stop(grace)
        assert ended == [expected]
