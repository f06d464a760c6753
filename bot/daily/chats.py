"""What the daily question needs of a chat besides its subscription: what happens when the chat is gone (the subscription stops for good) or refuses the bot for now (it
pauses: still scheduled, and the next post that gets through resumes it)."""

from __future__ import annotations

import logging

from bot.store import daily as posts
from bot.store import decks
from bot.store.database import Database
from bot.store.people import ChatRecord

log = logging.getLogger(__name__)


async def chat_gone(db: Database, record: ChatRecord, now: float, what: str) -> None:
    """The bot was removed or blocked: the chat's daily question stops (a new /subscribe starts it again), and
    its decks' 30 days start (they are deleted then, unless the bot is back)."""
    await posts.deactivate_subscription(db, record.id, now)
    await decks.mark_left(db, record.id, now)
    log.warning("chat %d is gone (%s): subscription deactivated", record.id, what)


async def chat_forbidden(db: Database, record: ChatRecord, now: float, what: str) -> None:
    """The bot may not post there now (a lost permission): the daily question pauses, and /settings says why."""
    paused = await posts.pause_subscription(db, record.id, "forbidden", now)
    log.warning("chat %d (%s %s) refuses the bot (%s): %s", record.id, record.platform, record.platform_chat_id,
                what, "daily question paused" if paused else "no daily question to pause")


async def chat_allowed(db: Database, record: ChatRecord, now: float) -> None:
    """A post got through: a paused daily question resumes."""
    if await posts.resume_subscription(db, record.id, now):
        log.info("chat %d: a post got through; daily question resumed", record.id)
