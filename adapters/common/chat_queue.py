"""Per-chat send queues: a handler hands its replies over and its update slot is free at once.

A chat's sends are paced (about one a second into a private chat, 19 a minute into a group). A handler
that awaited its reply held one of the few update slots for as long as its chat's backlog lasted, so a
busy chat stalled everyone else. Here each chat has a FIFO drained by one task of its own: replies in a
chat keep their order (a question before its edit), chats never wait for each other, and a chat's
backlog is bounded. Past the bound nobody is dropped silently: an edit of a message already waiting to
be edited replaces that edit in place (only the last state matters), and a reply that does not fit is
dropped with one "busy, try again" note per backlog, put at the front of the chat's queue.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from functools import partial

from bot.port import ChatGone, DeliveryError

log = logging.getLogger(__name__)
Job = Callable[[], Awaitable[object]]
MAX_PENDING = 100  # replies waiting in one chat: five minutes of a group's pace (19 a minute)


class ChatQueues:
    """One FIFO of send jobs per chat, each drained by its own task while it has work."""

    def __init__(self, max_pending: int = MAX_PENDING) -> None:
        self.max_pending = max_pending
        self._queues: dict[Hashable, deque[Job]] = {}
        self._edits: dict[Hashable, dict[Hashable, Job]] = {}  # chat -> waiting edit's key -> its newest state
        self._busy: set[Hashable] = set()  # chats told "busy" in their current backlog
        self._tasks: dict[Hashable, asyncio.Task[None]] = {}
        self._closed = False
        self.dropped = 0

    def submit(self, chat: Hashable, job: Job, *, key: Hashable | None = None, busy: Job | None = None) -> bool:
        """Queue `job` behind the chat's earlier sends. `key` names an edit: while one with the same key waits,
        this one replaces it (coalesced). False when the chat's backlog is full: the job is dropped, and the
        chat's first refusal in this backlog queues `busy` (a short "try again" note) at the front."""
        if self._closed:
            log.warning("chat %s: a reply after shutdown began was dropped", chat)
            return False
        edits = self._edits.setdefault(chat, {})
        if key is not None and key in edits:
            edits[key] = job  # the waiting edit sends this newer state instead
            return True
        queue = self._queues.setdefault(chat, deque())
        if len(queue) >= self.max_pending:
            self.dropped += 1
            if busy is not None and chat not in self._busy:
                self._busy.add(chat)
                queue.appendleft(busy)
                log.warning("chat %s: %d replies already waiting; this one is dropped and the chat told so",
                            chat, len(queue) - 1)
            else:
                log.warning("chat %s: %d replies already waiting; this one is dropped", chat, len(queue))
            return False
        if key is not None:
            edits[key] = job
            job = partial(self._newest, edits, key)
        queue.append(job)
        if chat not in self._tasks:
            self._tasks[chat] = asyncio.create_task(self._drain(chat), name=f"chat-sends-{chat}")
        return True

    @staticmethod
    async def _newest(edits: dict[Hashable, Job], key: Hashable) -> object:
        """A queued edit: when its turn comes, it sends the newest state submitted under its key."""
        return await edits.pop(key)()

    def pending(self, chat: Hashable) -> int:
        return len(self._queues.get(chat, ()))

    async def _drain(self, chat: Hashable) -> None:
        queue = self._queues[chat]
        try:
            while queue:
                job = queue.popleft()
                try:
                    await job()
                except ChatGone as error:  # kicked or blocked: the rest cannot arrive either
                    log.info("chat %s: gone (%s); %d queued replies dropped", chat, error, len(queue))
                    queue.clear()
                except DeliveryError as error:
                    log.warning("chat %s: a reply was not delivered: %s", chat, error)
                except Exception:  # noqa: BLE001 - one failed reply must not stop the chat's others
                    log.exception("chat %s: a queued reply failed", chat)
        finally:
            del self._tasks[chat]
            self._busy.discard(chat)  # a new backlog may be told again
            if not queue:
                self._queues.pop(chat, None)
                self._edits.pop(chat, None)

    async def join(self) -> None:
        """Wait until every queue is empty (tests and shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def close(self, grace: float = 5.0) -> None:
        """Stop taking sends; give the queued ones `grace` seconds, then drop the rest (a SIGTERM during a
        flood's backlog must still end the process promptly)."""
        self._closed = True
        deadline = asyncio.get_running_loop().time() + grace
        while self._tasks:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                break
            await asyncio.wait(list(self._tasks.values()), timeout=left)
        if not self._tasks:
            return
        waiting = sum(len(queue) for queue in self._queues.values())
        log.warning("stopping: %d queued replies in %d chats dropped after %.1f s", waiting, len(self._tasks), grace)
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._queues.clear()
