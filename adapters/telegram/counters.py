"""The "N answered so far" line under a group's daily question, edited at most once every few seconds.

A click only marks the question as changed; one asyncio task per question waits `delay`, then edits
the message with the count the store holds at that moment. The edit is decided under the port's lock
for that message and skipped once the question is closed, so it can never land over the reveal.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from bot.port import DeliveryError

if TYPE_CHECKING:
    from adapters.telegram.delivery import TelegramPort
    from bot.core import Core

log = logging.getLogger(__name__)


class CounterEdits:
    """At most one counter edit per question every `delay` seconds, whatever the number of clicks."""

    def __init__(self, core: Core, port: TelegramPort, delay: float = 5.0) -> None:
        self.core, self.port, self.delay = core, port, delay
        self._pending: dict[int, asyncio.Task[None]] = {}
        self._closed = False

    def answered(self, chat_id: int, message_id: int, asked_id: int) -> None:
        """A member answered: make sure an edit of this question's counter is on its way."""
        if not self._closed and asked_id not in self._pending:
            self._pending[asked_id] = asyncio.create_task(self._edit_later(chat_id, message_id, asked_id),
                                                          name=f"counter-{asked_id}")

    async def _edit_later(self, chat_id: int, message_id: int, asked_id: int) -> None:
        try:
            await asyncio.sleep(self.delay)
            del self._pending[asked_id]  # clicks from now on schedule the next edit
            edited = await self.port.replace_if(chat_id, message_id, lambda: self.core.daily_question(asked_id))
            log.debug("asked %d: counter %s", asked_id, "edited" if edited else "skipped (closed)")
        except DeliveryError as error:
            log.warning("asked %d: counter edit in chat %d failed: %s", asked_id, chat_id, error)
        except Exception:
            log.exception("asked %d: counter edit in chat %d failed", asked_id, chat_id)
        finally:
            if self._pending.get(asked_id) is asyncio.current_task():
                del self._pending[asked_id]

    async def wait(self) -> None:
        """Let every pending edit happen (tests, and a graceful shutdown)."""
        while self._pending:
            await asyncio.gather(*list(self._pending.values()), return_exceptions=True)

    async def close(self) -> None:
        """Shutting down: no new edits, pending ones dropped (the counter is cosmetic; the reveal is not)."""
        self._closed = True
        for task in self._pending.values():
            task.cancel()
        await asyncio.gather(*self._pending.values(), return_exceptions=True)
        self._pending.clear()
