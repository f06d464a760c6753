"""The "N answered so far" counter under a group's daily question, edited at most once per `delay`.

Clicks come in bursts; each only marks its message as changed. One task per message waits `delay`,
then calls the platform's `flush`, which reads the count from the store at that moment (so a
restart or several workers lose nothing) and edits the message. A message being revealed is
finalized first: no counter edit may land over the answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)
Key = TypeVar("Key", bound=Hashable)
FINAL_REMEMBERED = 10_000


class CounterDebouncer(Generic[Key]):
    """At most one `flush(key)` per key every `delay` seconds, whatever the number of clicks; none once final."""

    def __init__(self, flush: Callable[[Key], Awaitable[object]], delay: float) -> None:
        self.flush, self.delay = flush, delay
        self._pending: dict[Key, asyncio.Task[None]] = {}
        self._final: OrderedDict[Key, None] = OrderedDict()
        self._closed = False

    def mark(self, key: Key) -> None:
        """A member answered: make sure a counter edit for `key` is on its way."""
        if self._closed or key in self._final or key in self._pending:
            return
        self._pending[key] = asyncio.create_task(self._later(key), name=f"counter-{key}")

    def finalize(self, key: Key) -> None:
        """The message is being replaced (revealed): drop a pending edit, and never edit it again."""
        self._final[key] = None
        while len(self._final) > FINAL_REMEMBERED:
            self._final.popitem(last=False)
        task = self._pending.pop(key, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _later(self, key: Key) -> None:
        try:
            await asyncio.sleep(self.delay)
            if self._pending.get(key) is asyncio.current_task():
                del self._pending[key]  # clicks from now on schedule the next edit
            if key not in self._final:
                await self.flush(key)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - a counter is cosmetic: log it, never break a click
            log.warning("counter %s: edit failed: %s", key, error)
        finally:
            if self._pending.get(key) is asyncio.current_task():
                del self._pending[key]

    async def wait(self) -> None:
        """Let every pending edit happen (tests, and a graceful shutdown)."""
        while self._pending:
            await asyncio.gather(*list(self._pending.values()), return_exceptions=True)

    async def close(self) -> None:
        """Shutting down: no new edits, pending ones dropped (the counter is cosmetic; the reveal is not)."""
        self._closed = True
        tasks = list(self._pending.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._pending.clear()
