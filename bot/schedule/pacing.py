"""Pacing: even slots for a broadcast (one every 1/rate seconds, never a burst), and a sliding window
for a platform's flood limit.

A token bucket lets a whole second's worth go at once; two of them in a row (the core's broadcast and
an adapter's overall limit) let through up to twice the limit in the first second, which a platform
counting over a sliding window answers with 429s. Evenly spaced slots never exceed the window.
"""

from __future__ import annotations

import asyncio
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
    allows at each boundary, which a sliding-window server answers with 429s). Waiters go in order.
    """

    def __init__(self, count: int, window: float) -> None:
        if count < 1 or window <= 0:
            raise ValueError("count and window must be positive")
        self.count, self.window = count, window
        self._ends: deque[float] = deque()  # when recent requests finished
        self._in_flight = 0
        self._turn = asyncio.Lock()  # first come, first served
        self._changed = asyncio.Event()

    def _occupied(self, now: float) -> int:
        while self._ends and self._ends[0] <= now - self.window:
            self._ends.popleft()
        return len(self._ends) + self._in_flight

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Wait for room, hold it while the request runs, and count it for `window` s after it ends."""
        loop = asyncio.get_running_loop()
        async with self._turn:
            while self._occupied(loop.time()) >= self.count:
                self._changed.clear()
                wait = self._ends[0] + self.window - loop.time() if self._ends else None
                try:
                    await asyncio.wait_for(self._changed.wait(), wait)
                except TimeoutError:
                    pass
            self._in_flight += 1
        try:
            yield
        finally:
            self._in_flight -= 1
            self._ends.append(loop.time())
            self._changed.set()
