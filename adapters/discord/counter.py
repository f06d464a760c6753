"""The answer counter of a daily question in a channel: debounced edits of the message's content.

Clicks arrive in bursts; the message is edited at most once per `delay` with the latest count, and
never after the reveal has replaced it (the delivery port marks revealed messages as final).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict

import discord

from bot.text.i18n import t

log = logging.getLogger(__name__)
FINAL_REMEMBERED = 10_000


class Counters:
    """Pending counter edits per message id."""

    def __init__(self, client: discord.Client, delay: float = 2.0) -> None:
        self.client, self.delay = client, delay
        self.latest: dict[int, int] = {}
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self.final: OrderedDict[int, None] = OrderedDict()

    def bump(self, channel_id: int, message_id: int, count: int, language: str) -> None:
        """Show `count` on the message soon (one edit for a burst of clicks)."""
        if message_id in self.final:
            return
        self.latest[message_id] = max(count, self.latest.get(message_id, 0))
        if message_id not in self.tasks:
            self.tasks[message_id] = asyncio.create_task(self._flush(channel_id, message_id, language),
                                                         name=f"discord-counter-{message_id}")

    def finalize(self, message_id: int) -> None:
        """The message is being replaced (revealed): no counter edit may land after that."""
        self.final[message_id] = None
        while len(self.final) > FINAL_REMEMBERED:
            self.final.popitem(last=False)
        task = self.tasks.pop(message_id, None)
        if task is not None:
            task.cancel()
        self.latest.pop(message_id, None)

    async def _flush(self, channel_id: int, message_id: int, language: str) -> None:
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.tasks.pop(message_id, None)
        count = self.latest.pop(message_id, 0)
        if message_id in self.final or not count:
            return
        message = self.client.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            await message.edit(content=t(language, "discord.counter", count=count))
        except discord.HTTPException as error:
            log.warning("counter edit of message %d in channel %d failed: %s", message_id, channel_id, error)

    def close(self) -> None:
        for task in self.tasks.values():
            task.cancel()
        self.tasks.clear()
