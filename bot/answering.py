"""The core's doors for answers: a button press (an interview's, a daily post's, a quiz round's question)
and a vote in one of the bot's quiz polls, each recorded once where it was asked, or refused with a
reason and nothing recorded. `Core` inherits them; kept apart so that core.py stays one screenful per
concern."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.caller import Caller, resolve, side_by_side
from bot.daily.answer import DailyAnswer
from bot.decks.service import REMOVE_PREFIX
from bot.domain import ChatRef, UserRef
from bot.errors import AnswerRefused
from bot.metrics import count_answer
from bot.replies import ClickReply
from bot.store import interviews as records
from bot.store import polls
from bot.text.i18n import t
from bot.tokens import FORGET_TOKEN, parse_answer_token

if TYPE_CHECKING:
    from bot.daily.service import DailyService
    from bot.decks.library import Library
    from bot.decks.service import DeckService
    from bot.interview.service import InterviewService
    from bot.quiz.service import QuizService
    from bot.schedule.clock import Clock
    from bot.store.database import Database

log = logging.getLogger(__name__)


class AnswerDoors:
    """Button presses and poll votes: the answer recorded by the feature that asked, or a refusal."""

    db: Database
    clock: Clock
    daily: DailyService
    interviews: InterviewService
    quiz: QuizService
    library: Library
    decks: DeckService
    if TYPE_CHECKING:  # Core's and ForgetDoors'
        async def caller(self, user: UserRef | None = None, chat: ChatRef | None = None) -> Caller: ...
        async def _forget_click(self, user: UserRef) -> ClickReply: ...

    async def posted(self, asked_id: int, ref: str) -> None:
        """Where an adapter posted a question, so that deadlines and reveals can edit it later."""
        await records.set_message_ref(self.db, asked_id, ref)

    async def click(self, user: UserRef, chat: ChatRef, token: str, message_ref: str | None = None,
                    holder: str | None = None) -> ClickReply:
        """A button press: an interview answer or a daily answer; a refusal pop-up records nothing.

        The token is parsed and its asked question read once here; it counts only where it was asked: in
        its chat, and (when the adapter says which message was clicked) on the message it was posted as."""
        if token == FORGET_TOKEN:
            return await self._forget_click(user)
        if token.startswith(REMOVE_PREFIX):
            return await self.decks.remove_click(await self.caller(user, chat), token)
        parsed = parse_answer_token(token)
        known = self.daily.open_posts.get(parsed.asked_id, self.clock.now()) if parsed else None
        if parsed is None:
            caller, (asked, posted) = await self.caller(user, chat), (None, None)
        elif known is not None:  # a sent daily post, remembered since an earlier click (bot/daily/open_posts.py)
            caller, asked, posted = await self._post_caller(user, chat, parsed.asked_id), known.asked, known.message_ref
        else:  # side by side: with the database a network away each read is a round trip on the click's path
            caller, (asked, posted) = await side_by_side(self.db, self.caller(user, chat),
                                                         records.get_asked_and_ref(self.db, parsed.asked_id))
        if asked is not None:
            await self.library.ready_ids([asked.question_id])  # a group deck's question: its deck, loaded here
        try:
            if parsed is None or asked is None:
                raise AnswerRefused("unknown")
            if message_ref is not None and caller.chat is not None and caller.chat.id == asked.chat_id:
                if posted is not None and posted != message_ref:  # (another chat: the services say so)
                    raise AnswerRefused("wrong_message")
            if asked.interview_id is not None:
                reply = await self.interviews.answer(caller, asked, parsed.letter, holder)
                if reply.refused is None:
                    count_answer(user.platform, "interview")
                return reply
            try:
                answer = await self.daily.answer(caller, asked, parsed.letter, posted)
            except AnswerRefused as refused:
                if refused.reason != "unknown":
                    raise
                # not a daily post's: a quiz round's, or "unknown" from the quiz too (the same refusal)
                scored = await self.quiz.answer(caller, asked, parsed.letter)
                count_answer(user.platform, "quiz")
                return ClickReply(t(caller.language, "quiz.correct" if scored.correct else "quiz.wrong",
                                    points=scored.points), correct=scored.correct)
            count_answer(user.platform, "daily")
        except AnswerRefused as refused:
            log.info("click refused (%s): user %s:%s chat %s token %r", refused.reason, user.platform,
                     user.platform_id, chat.platform_id, token[:64])
            return ClickReply(t(caller.language, refused.message_key), alert=True, refused=refused.reason)
        return ClickReply(t(caller.language, "daily.right" if answer.correct else "daily.wrong"),
                          counter=(answer.asked_id, answer.answered), correct=answer.correct)

    async def _post_caller(self, user: UserRef, chat: ChatRef, asked_id: int) -> Caller:
        """The caller of a click on a remembered daily post, its chat's record read at most once a moment
        for all the post's clicks (bot/daily/open_posts.py)."""
        now, posts = self.clock.now(), self.daily.open_posts
        record = posts.chat(asked_id, chat, now)
        caller = await resolve(self.db, now, user, chat, chat_record=record)
        if record is None and caller.chat is not None:
            posts.remember_chat(asked_id, chat, caller.chat, now)
        return caller

    async def poll_seen(self, platform: str, poll_ref: str, question: str, options: Sequence[str]) -> bool:
        """The platform showed the state of one of the bot's polls: if it is a poll whose send outcome was
        unknown, it is linked to its post now and the votes that waited for it count."""
        return await self.daily.poll_seen(platform, poll_ref, question, options)

    async def poll_answer(self, user: UserRef, poll_ref: str, option_ids: Sequence[int]) -> DailyAnswer | None:
        """A vote in a quiz poll the bot posted (`poll_ref`: the platform's poll id; `option_ids`: positions as
        shown): the same answer a button click records. None when nothing was recorded: a retracted vote, a
        poll the bot did not post, a closed question, a second answer. Nobody is told (a poll shows its own)."""
        try:
            asked_id = await polls.asked_of_poll(self.db, user.platform, poll_ref)
            if asked_id is not None and await self.quiz.owns(asked_id):
                await self.quiz.poll_vote(user, asked_id, option_ids)
                count_answer(user.platform, "quiz")
                return None
            answer = await self.daily.poll_answer(user, poll_ref, option_ids)
        except AnswerRefused as refused:
            log.info("poll answer refused (%s): user %s:%s poll %r", refused.reason, user.platform, user.platform_id,
                     poll_ref[:64])
            return None
        if answer is None:
            log.info("poll answer ignored: user %s:%s poll %r options %s", user.platform, user.platform_id,
                     poll_ref[:64], list(option_ids)[:12])
        else:
            count_answer(user.platform, "daily")  # a vote is a daily answer, as a click is
        return answer
