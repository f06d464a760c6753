"""Votes in the daily question's native quiz polls: each counts as the button answer would, exactly once.

A vote names only its poll. One that arrives before the poll's id is stored waits in the store and counts
when the poll is linked (after the send, or when a poll whose send outcome was unknown shows up in the
platform's own poll update, matched by its text: resolved, not guessed).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from bot.asking.delivery import Delivery
from bot.asking.poll import quiz_poll
from bot.bank.loader import Bank
from bot.caller import Caller, chat_language, resolve
from bot.decks.library import ready_ids
from bot.domain import LETTERS, AskedQuestion, UserRef
from bot.errors import AnswerRefused
from bot.schedule.clock import Clock
from bot.store import daily as posts
from bot.store import interviews as records
from bot.daily.answer import DailyAnswer
from bot.store import polls
from bot.store.database import Database
from bot.store.people import get_chat

log = logging.getLogger(__name__)


class PollVotes:
    """Poll votes counted through `answer` (the daily service's, so a vote is a click in all but name)."""

    def __init__(self, db: Database, bank: Bank, clock: Clock,
                 answer: Callable[[Caller, AskedQuestion, str], Awaitable[DailyAnswer]]) -> None:
        self.db, self.bank, self.clock, self._answer = db, bank, clock, answer

    async def vote(self, person: UserRef, poll_id: str, option_ids: Sequence[int]) -> DailyAnswer | None:
        """A vote in a quiz poll the bot posted, recorded as the same answer a button click would be; None for
        a retracted vote or a poll the bot did not post (nothing stored, not even the voter). AnswerRefused as
        for a click (closed, already answered)."""
        if len(option_ids) != 1:
            return None  # a retracted vote changes nothing (and a quiz takes one option)
        asked_id = await polls.asked_of_poll(self.db, person.platform, poll_id)
        if asked_id is None:  # its poll's id is not stored yet (the send is just returning, or its outcome
            # was unknown): the vote waits in the store and counts when the poll is linked
            if not await polls.hold_vote(self.db, person, poll_id, tuple(option_ids), self.clock.now()):
                log.info("vote on poll %r held until the poll is known", poll_id[:64])
                return None
            await polls.take_waiting_votes(self.db, person.platform, poll_id)  # linked meanwhile: count it now
            asked_id = await polls.asked_of_poll(self.db, person.platform, poll_id)
        return await self._count_vote(person, asked_id, option_ids)

    async def _count_vote(self, person: UserRef, asked_id: int | None,
                          option_ids: Sequence[int]) -> DailyAnswer | None:
        asked = await records.get_asked(self.db, asked_id) if asked_id is not None else None
        chat = await get_chat(self.db, asked.chat_id) if asked is not None else None
        if asked is None or chat is None:
            return None
        caller = replace(await resolve(self.db, self.clock.now(), person), chat=chat)
        position = option_ids[0]
        letter = LETTERS[position] if 0 <= position < len(asked.option_order) else "?"
        return await self._answer(caller, asked, letter)

    async def link(self, platform: str, poll_id: str, asked_id: int) -> None:
        """Store which question a poll carries, then count the votes that arrived before this."""
        await polls.save_poll(self.db, platform, poll_id, asked_id)
        for vote in await polls.take_waiting_votes(self.db, platform, poll_id):
            try:
                await self._count_vote(vote.person, asked_id, vote.option_ids)
            except AnswerRefused as refused:
                log.info("held vote on poll %r refused (%s)", poll_id[:64], refused.reason)

    async def seen(self, platform: str, poll_id: str, question: str, options: Sequence[str]) -> bool:
        """The platform showed one of the bot's polls (Telegram's `poll` update, on every vote): when its id
        is unknown because its send's outcome was, find the post it is by its text, link it and count the
        votes that waited for it. Resolved, not guessed: only a single match among such posts is linked."""
        if await polls.asked_of_poll(self.db, platform, poll_id) is not None:
            return False
        matches = []
        for post in await posts.unknown_posts(self.db, platform, self.clock.now() - polls.WAITING_KEPT_S):
            asked = await records.get_asked(self.db, post.asked_id)
            record = await get_chat(self.db, post.chat_id)
            await ready_ids(self.bank, [asked.question_id] if asked else [])
            question_ = self.bank.get(asked.question_id) if asked else None
            if asked is None or record is None or question_ is None:
                continue
            poll = quiz_poll(Delivery(asked, question_, 1, 1, chat_language(record), None), 0)
            if poll is not None and poll.question == question and tuple(poll.options) == tuple(options):
                matches.append(post)
        if len(matches) != 1:
            log.info("poll %r seen; %d unknown posts match it: not linked", poll_id[:64], len(matches))
            return False
        [post] = matches
        await self.link(platform, poll_id, post.asked_id)
        await posts.mark_post(self.db, post.id, "sent", self.clock.now())
        log.info("chat %d: post %d's unknown poll send resolved: it arrived as poll %r", post.chat_id, post.id,
                 poll_id[:64])
        return True
