"""A broadcast: many chats' posts or reveals due at one moment, paced as one stream per platform.

A thousand groups that chose 09:00 are one broadcast, not a thousand: a bounded set of workers takes
the next chat from one list, each send waits for its slot of one even pacer per platform, so the
platform's overall limit holds and memory does not grow with the number of chats. Once `stopping` is
set (the process is shutting down) no worker takes another chat: the sends under way finish, the chats
not reached are left as they were, still due for the next start.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

from bot.schedule.pacing import EvenPacer

log = logging.getLogger(__name__)
Item = TypeVar("Item")
Result = TypeVar("Result")
IN_FLIGHT_SECONDS = 2.0  # workers per platform: enough sends in flight to fill this many seconds of the pace


async def broadcast(items: Iterable[tuple[str, Item]], rates: dict[str, float],
                    work: Callable[[Item], Awaitable[Result]], stopping: asyncio.Event | None = None) -> list[Result]:
    """Run `work` on every (platform, item), each platform at its own even rate, until `stopping` is set;
    failures are logged, not raised."""
    by_platform: dict[str, list[Item]] = defaultdict(list)
    for platform, item in items:
        if platform in rates:
            by_platform[platform].append(item)
    results: list[Result] = []

    async def stream(platform: str, queue: list[Item]) -> None:
        pacer = EvenPacer(rates[platform])
        pending = iter(queue)

        async def worker() -> None:
            for item in pending:  # the workers share one iterator: each takes the next chat
                await pacer.acquire()
                if stopping is not None and stopping.is_set():
                    return
                try:
                    results.append(await work(item))
                except Exception:  # one chat's failure must not stop the others' posts
                    log.exception("%s: broadcast item failed", platform)

        workers = max(1, min(len(queue), int(rates[platform] * IN_FLIGHT_SECONDS) + 1))
        await asyncio.gather(*(worker() for _ in range(workers)))

    await asyncio.gather(*(stream(platform, queue) for platform, queue in by_platform.items()))
    return results
