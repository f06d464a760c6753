"""Even pacing: one slot every 1/rate seconds, never a burst.

A token bucket lets a whole second's worth go at once; two of them in a row (the core's broadcast and
an adapter's overall limit) let through up to twice the limit in the first second, which a platform
counting over a sliding window answers with 429s. Evenly spaced slots never exceed the window.
"""

from __future__ import annotations

import asyncio


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
