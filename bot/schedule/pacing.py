"""Pacing: even slots for a broadcast (one every 1/rate seconds, never a burst), and a sliding window
for a platform's flood limit.

A token bucket lets a whole second's worth go at once; two of them in a row (the core's broadcast and
an adapter's overall limit) let through up to twice the limit in the first second, which a platform
counting over a sliding window answers with 429s. Evenly spaced slots never exceed the window.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class EvenPacer:
    """Callers get slots in the order they ask, `1 / rate` seconds apart."""

    def __init__(self, rate: float) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.interval = 1.0 / rate
        self._next = 0.0

    async def acquire(self) -> None:
        now = asyncio.get_running_loop().time()
        slot = max(now, self._next)
        self._next = slot + self.interval  # reserved before sleeping, so concurrent callers queue up
        if slot > now:
            await asyncio.sleep(slot - now)


class SlidingWindow:
    """At most `count` requests in any `window` seconds, as a platform counting over a sliding window sees them.

    A request may reach the server any time between its start and its response, so each one counts
    from its start until `window` seconds after its response: the server's window can never hold more
    than `count`, whatever the latency, and no second's worth is let out twice (the burst a token bucket
    allows at each boundary, which a sliding-window server answers with 429s). Waiters go by lane
    (`priority`, lower first: bot/lanes.py), then in order of arrival.
    """

    def __init__(self, count: int, window: float) -> None:
        if count < 1 or window <= 0:
            raise ValueError("count and window must be positive")
        self.count, self.window = count, window
        self._ends: deque[float] = deque()  # when recent requests finished
        self._in_flight = 0
        self._waiting: list[list] = []  # a heap of [priority, arrival, future]: only the first is ever woken
        self._arrivals = itertools.count()

    def _occupied(self, now: float) -> int:
        while self._ends and self._ends[0] <= now - self.window:
            self._ends.popleft()
        return len(self._ends) + self._in_flight

    def _wake_first(self) -> None:
        if self._waiting and not self._waiting[0][2].done():
            self._waiting[0][2].set_result(None)

    async def _enter(self, priority: int) -> None:
        loop = asyncio.get_running_loop()
        if not self._waiting and self._occupied(loop.time()) < self.count:
            self._in_flight += 1  # room and nobody waiting: no queue at all
            return
        ticket = [priority, next(self._arrivals), loop.create_future()]
        heapq.heappush(self._waiting, ticket)
        try:
            while self._waiting[0] is not ticket or self._occupied(loop.time()) >= self.count:
                if ticket[2].done():
                    ticket[2] = loop.create_future()
                first = self._waiting[0] is ticket
                timer = loop.call_later(self._ends[0] + self.window - loop.time(), self._wake_first) \
                    if first and self._ends else None
                try:
                    await ticket[2]
                finally:
                    if timer is not None:
                        timer.cancel()
        except BaseException:  # cancelled while waiting: the next in line must not wait for us
            self._waiting.remove(ticket)
            heapq.heapify(self._waiting)
            self._wake_first()
            raise
        heapq.heappop(self._waiting)
        self._in_flight += 1
        self._wake_first()  # the next in line may have room too

    @asynccontextmanager
    async def slot(self, priority: int = 0) -> AsyncIterator[None]:
        """Wait for room (behind every waiter of a lower `priority` number), hold it while the request runs,
        and count it for `window` s after it ends."""
        await self._enter(priority)
        try:
            yield
        finally:
            self._in_flight -= 1
            self._ends.append(asyncio.get_running_loop().time())
            self._wake_first()
