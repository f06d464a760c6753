"""The daily posts being answered now, remembered in this process: a burst of clicks on one post reads its
question, its message and its post row once, not three times a click.

Only what cannot change once a post is sent is taken from here: the question asked (its chat, its
options' order), the message it went out as, when it was sent and when it is revealed. Whether it is
still open is decided where it counts: the answer's own write transaction refuses an answer to a
question closed meanwhile, by this process or by another worker (bot/store/answer_batch.py), so a
remembered post never lets a late answer in. A post revealed here is forgotten at once.

Beside each post, its chat's record as a click last read it, for at most CHAT_FRESH_S: a burst then reads
it about once a second instead of once a click. A record can change (a group's language): a change made
here forgets it at once; one made by another worker reaches the pop-ups within CHAT_FRESH_S, a window
no shorter than the order between a click and a /language arriving at two workers at once. A chat whose
title, kind or locale the click shows differently is read (and updated) as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain import AskedQuestion, ChatRef
from bot.store.daily import DailyPost
from bot.store.people import ChatRecord

REMEMBERED = 4_096  # posts; the oldest go first (a post is answered for a day at most)
CHAT_FRESH_S = 1.0  # how long a chat's record read by a click serves the clicks after it


@dataclass(frozen=True)
class OpenPost:
    """A sent daily post as its clicks need it: the question asked, where it was posted, the post itself."""

    asked: AskedQuestion
    message_ref: str
    post: DailyPost


class OpenPosts:
    """Sent posts by their asked question's id, each until its reveal instant (or until revealed here)."""

    def __init__(self, limit: int = REMEMBERED) -> None:
        self.limit = limit
        self._posts: dict[int, OpenPost] = {}
        self._chats: dict[int, tuple[ChatRef, ChatRecord, float]] = {}  # by asked id: the ref, its record, read at

    def get(self, asked_id: int, now: float) -> OpenPost | None:
        """The remembered post of this asked question while it may still take answers, else None."""
        known = self._posts.get(asked_id)
        if known is not None and now > known.post.reveal_at:
            self.forget(asked_id)
            return None
        return known

    def remember(self, asked: AskedQuestion, message_ref: str | None, post: DailyPost, now: float) -> None:
        """Keep a post that is sent, open and knows its message: nothing about it can change but its close."""
        if (post.state != "sent" or message_ref is None or asked.closed_at is not None or now > post.reveal_at
                or post.asked_id != asked.id):
            return
        self._posts[asked.id] = OpenPost(asked, message_ref, post)
        while len(self._posts) > self.limit:
            oldest = next(iter(self._posts))
            del self._posts[oldest]
            self._chats.pop(oldest, None)

    def chat(self, asked_id: int, ref: ChatRef, now: float) -> ChatRecord | None:
        """The chat record a click on this post read at most CHAT_FRESH_S ago, if the click shows the chat
        as it did then (same id, title, kind and locale); None otherwise: read it."""
        known = self._chats.get(asked_id)
        if known is None or known[0] != ref or not 0 <= now - known[2] <= CHAT_FRESH_S:
            return None
        return known[1]

    def remember_chat(self, asked_id: int, ref: ChatRef, record: ChatRecord, now: float) -> None:
        """A click on this remembered post just read (or wrote) its chat's record."""
        if asked_id in self._posts:
            self._chats[asked_id] = (ref, record, now)

    def forget_chat(self, chat_id: int | None = None) -> None:
        """A chat's record changed here (its language; None: chats merged): its clicks read it again."""
        for asked_id in [key for key, (_, record, _) in self._chats.items() if chat_id in (None, record.id)]:
            del self._chats[asked_id]

    def forget(self, asked_id: int) -> None:
        """The post is being revealed or closed here: its clicks read the store again."""
        self._posts.pop(asked_id, None)
        self._chats.pop(asked_id, None)
