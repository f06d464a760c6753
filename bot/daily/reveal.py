"""Reveals: a daily post closed, and its answer, explanation and fastest right answers shown, once.

Due reveals go out as one paced broadcast; each is claimed first, so that with several workers on one
database exactly one of them reveals it. A quiz poll cannot be edited into its reveal: it is stopped,
and the reveal follows as a new message. A reveal the chat refuses (a lost permission) is not retried:
the post is marked revealed and the chat's daily question pauses (bot/daily/chats.py).
"""

from __future__ import annotations

import asyncio
import logging

from bot.bank.loader import Bank
from bot.daily.broadcast import broadcast
from bot.lanes import lane
from bot.caller import chat_language
from bot.daily.chats import chat_forbidden, chat_gone
from bot.daily.open_posts import OpenPosts
from bot.daily.view import reveal_message
from bot.decks.library import ready_ids
from bot.asking.delivery import Delivery
from bot.port import (UNOWNED_AFTER_S, ChatForbidden, ChatGone, DeliveryError, DeliveryPort, PollPort, poll_port,
                      sends_here)
from bot.schedule.clock import Clock
from bot.store import daily as posts
from bot.store import interviews as records
from bot.store import polls
from bot.store.database import Database
from bot.store.people import ChatRecord, get_chat, get_chats

log = logging.getLogger(__name__)


class Reveals:
    """The reveals of every platform whose adapter registered its port (the ports dict is shared, live)."""

    def __init__(self, db: Database, bank: Bank, clock: Clock, ports: dict[str, DeliveryPort],
                 open_posts: OpenPosts | None = None, stopping: asyncio.Event | None = None) -> None:
        self.db, self.bank, self.clock, self.ports = db, bank, clock, ports
        self.open_posts = open_posts if open_posts is not None else OpenPosts()  # the clicks' memory of sent posts
        # set at shutdown: no new reveal begins (bot/daily/broadcast.py)
        self.stopping = stopping if stopping is not None else asyncio.Event()

    async def due(self) -> int:
        """Every reveal that is due, as one paced broadcast (a thousand posts at 09:00 reveal together)."""
        now = self.clock.now()
        due = await posts.posts_to_reveal(self.db, now, self.ports, abandoned_before=now - UNOWNED_AFTER_S)
        chats = await get_chats(self.db, [post.chat_id for post in due])
        work = [(record.platform, post) for post in due if (record := chats.get(post.chat_id)) is not None
                and sends_here(self.ports.get(record.platform), record.address, now - post.reveal_at)]
        rates = {name: port.posts_per_second for name, port in self.ports.items()}
        with lane("reveal"):  # behind people's replies, ahead of a posting broadcast
            return sum(await broadcast(work, rates, self.reveal, self.stopping))

    async def reveal(self, post: posts.DailyPost) -> bool:
        """Reveal a post once, whichever of several workers found it due: the one that claims it, if it
        is still unrevealed when claimed."""
        async with self.db.claim("reveal", post.id) as mine:
            current = await posts.get_post(self.db, post.id) if mine else None
            if current is None or current.state == "revealed":
                return False
            if current.state == "pending":
                log.warning("chat %d: post %d was being sent when a bot process stopped; it may have gone out, "
                            "so it is revealed as one whose outcome is unknown", post.chat_id, post.id)
            return await self._reveal(post)

    async def _reveal(self, post: posts.DailyPost) -> bool:
        """Close the post and show the answer, explanation and who got it right (edit, else a new message).

        Answers stop first; the post is marked revealed only after the edit, so a crash in between
        repeats the (harmless) edit at the next run instead of losing the reveal."""
        record = await get_chat(self.db, post.chat_id)
        port = self.ports.get(record.platform) if record else None
        if record is not None and port is None:
            return False  # its adapter is not running yet: reveal when it is, rather than unseen
        async with self.db.transaction() as connection:
            await records.close_asked(connection, post.asked_id, self.clock.now())
        self.open_posts.forget(post.asked_id)  # its clicks are refused at once from here on
        asked = await records.get_asked(self.db, post.asked_id)
        await ready_ids(self.bank, [asked.question_id] if asked else [])  # a deck's question: its deck, if still there
        question = self.bank.get(asked.question_id) if asked else None
        if record is None or port is None or asked is None or question is None:  # nothing left to show
            await posts.mark_post(self.db, post.id, "revealed", self.clock.now())
            return True
        stats = await posts.post_stats(self.db, asked.id)
        delivery = Delivery(asked, question, 1, 1, chat_language(record), None)
        message = reveal_message(self.bank, delivery, stats)
        ref = await records.message_ref(self.db, asked.id)
        try:
            closer = poll_port(port) if await polls.poll_of_asked(self.db, asked.id) else None
            if closer is not None and ref is not None:  # a poll cannot become the reveal: stop it, then tell
                await self._close_poll(closer, record, ref)
                await self._send_once(port, record, post, message)
            elif ref is not None:
                await port.edit(record.address, ref, message)  # an edit: repeating it after a crash is harmless
            else:
                await self._send_once(port, record, post, message)
        except ChatGone as gone:
            await chat_gone(self.db, record, self.clock.now(), f"reveal of post {post.id}: {gone}")
        except ChatForbidden as forbidden:  # the reveal is lost; the daily question pauses until a post gets through
            await chat_forbidden(self.db, record, self.clock.now(), f"reveal of post {post.id}: {forbidden}")
        except DeliveryError as error:
            log.error("chat %d: reveal of post %d failed: %s", record.id, post.id, error)
        await posts.mark_post(self.db, post.id, "revealed", self.clock.now())
        log.info("chat %d: post %d revealed (%d answered, %d right)", record.id, post.id, stats.answered, stats.right)
        return True

    async def _send_once(self, port: DeliveryPort, record: ChatRecord, post: posts.DailyPost, message) -> None:
        """A reveal that is a new message is recorded before it is sent: a run after a crash in between
        finds it recorded and does not send it again (at most once; the log says it may be missing)."""
        if not await posts.start_reveal(self.db, post.id, self.clock.now()):
            log.warning("chat %d: post %d's reveal was being sent when the bot stopped; not sending it twice",
                        record.id, post.id)
            return
        await port.send(record.address, message)

    async def _close_poll(self, port: PollPort, record: ChatRecord, ref: str) -> None:
        """Stop the poll's votes at the reveal; a failure is logged, the reveal still goes out."""
        try:
            await port.close_poll(record.address, ref)
        except (ChatGone, ChatForbidden):
            raise
        except DeliveryError as error:
            log.warning("chat %d: closing poll %s failed: %s", record.id, ref, error)
