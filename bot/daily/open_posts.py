"""The daily posts being answered now, remembered in this process: a burst of clicks on one post reads its
question, its message and its post row once, not three times a click.

Only what cannot change once a post is sent is taken from here: the question asked (its chat, its
options' order), the message it went out as, when it was sent and when it is revealed. Whether it is
still open is decided where it counts: the answer's own write transaction refuses an answer to a
question closed meanwhile, by this process or by another worker (bot/store/answer_batch.py), so a
remembered post never lets a late answer in. A post revealed here is forgotten at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.domain import AskedQuestion
from bot.store.daily import DailyPost

REMEMBERED = 4_096  # posts; the oldest go first (a post is answered for a day at most)


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

    def get(self, asked_id: int, now: float) -> OpenPost | None:
        """The remembered post of this asked question while it may still take answers, else None."""
        known = self._posts.get(asked_id)
        if known is not None and now > known.post.reveal_at:
            del self._posts[asked_id]
            return None
        return known

    def remember(self, asked: AskedQuestion, message_ref: str | None, post: DailyPost, now: float) -> None:
        """Keep a post that is sent, open and knows its message: nothing about it can change but its close."""
        if (post.state != "sent" or message_ref is None or asked.closed_at is not None or now > post.reveal_at
                or post.asked_id != asked.id):
            return
        self._posts[asked.id] = OpenPost(asked, message_ref, post)
        while len(self._posts) > self.limit:
            del self._posts[next(iter(self._posts))]

    def forget(self, asked_id: int) -> None:
        """The post is being revealed or closed here: its clicks read the store again."""
        self._posts.pop(asked_id, None)
