"""Votes and reveals exactly once, at the edges: a vote that arrives before its poll's id is stored, a
sendPoll whose outcome is unknown, and a crash between a poll's reveal and its mark."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from bot.core import Core
from bot.domain import ChatAddress, ChatRef, UserRef
from bot.port import DeliveryUnknown
from bot.text.messages import Message
from tests.fakes import RecordingPort

GROUP = ChatRef("test", "g1", "group", "Study group")
UNA, VED = UserRef("test", "u1", "Una"), UserRef("test", "u2", "Ved")


class Crash(BaseException):
    """The process dying mid-send: nothing after it in that run happens."""


@dataclass
class PollingPort(RecordingPort):
    """A RecordingPort with native polls; hooks run while a poll's send is still in flight."""

    polls: list[tuple[str, Message]] = field(default_factory=list)
    during_send: list = field(default_factory=list)  # coroutine functions called with (poll id, message)
    unknown_outcome: bool = False
    crash_on_send: bool = False

    async def send_poll(self, chat: ChatAddress, message: Message) -> tuple[str, str]:
        poll_id = f"poll-{len(self.polls) + 1}"
        self.polls.append((poll_id, message))
        for hook in self.during_send:
            await hook(poll_id, message)
        if self.unknown_outcome:
            raise DeliveryUnknown("sendPoll: timed out")
        return f"{chat.platform_id}/p{len(self.polls)}", poll_id

    async def close_poll(self, chat: ChatAddress, ref: str) -> None:
        self.edits.append((chat.platform_id, ref, Message(())))

    async def send(self, chat: ChatAddress, message: Message) -> str:
        ref = await super().send(chat, message)
        if self.crash_on_send:
            raise Crash()
        return ref


async def polling_core(db, bank, clock) -> tuple[Core, PollingPort]:
    port = PollingPort()
    core = Core(db, bank, clock, random.Random(3), scheduled=False)
    core.add_port(port)
    await core.subscribe(GROUP, "09:00", "UTC", "leakage-basics", as_poll=True)
    return core, port


async def answers(db) -> int:
    return (await db.fetch_one("SELECT count(*) FROM answers"))[0]


async def test_a_vote_before_the_polls_id_is_stored_still_counts(db, bank, clock) -> None:
    core, port = await polling_core(db, bank, clock)
    early = []

    async def vote_now(poll_id: str, message: Message) -> None:
        early.append(await core.poll_answer(UNA, poll_id, [message.poll.correct]))

    port.during_send.append(vote_now)
    assert await core.post_daily_now(GROUP)
    assert early == [None], "nothing to say yet: the vote waits for its poll"
    assert await answers(db) == 1, "the vote counted once the poll's id was stored"
    row = await db.fetch_one("SELECT correct FROM answers")
    assert row[0] == 1
    assert (await db.fetch_one("SELECT count(*) FROM poll_votes_waiting"))[0] == 0
    assert await core.poll_answer(UNA, "poll-1", [0]) is None, "still one answer per person"
    assert await answers(db) == 1


async def test_an_unknown_sendpoll_outcome_is_resolved_when_the_poll_shows_up(db, bank, clock) -> None:
    core, port = await polling_core(db, bank, clock)
    port.unknown_outcome = True
    await core.post_daily_now(GROUP)
    [(poll_id, message)] = port.polls
    assert (await db.fetch_one("SELECT state FROM daily_posts"))[0] == "unknown"
    assert await core.poll_answer(UNA, poll_id, [message.poll.correct]) is None  # held: the poll is not known yet
    assert await core.poll_seen("test", poll_id, "some other poll", ["a", "b"]) is False, "no guess on a mismatch"
    assert await answers(db) == 0
    assert await core.poll_seen("test", poll_id, message.poll.question, list(message.poll.options)) is True
    assert await answers(db) == 1, "the held vote counts once its poll is resolved"
    assert (await db.fetch_one("SELECT state FROM daily_posts"))[0] == "sent"
    recorded = await core.poll_answer(VED, poll_id, [message.poll.correct])
    assert recorded is not None and recorded.answered == 2
    assert await core.poll_seen("test", poll_id, message.poll.question, list(message.poll.options)) is False


async def test_a_crash_between_a_polls_reveal_and_its_mark_never_reveals_twice(db, bank, clock) -> None:
    core, port = await polling_core(db, bank, clock)
    await core.post_daily_now(GROUP)
    post = await db.fetch_one("SELECT reveal_at FROM daily_posts")
    clock.set(post[0] + 1)
    port.crash_on_send = True
    try:
        await core.daily.reveal_due()
    except Crash:
        pass
    assert len(port.sent) == 1, "the reveal went out, then the process died before marking it"
    port.crash_on_send = False
    await core.daily.reveal_due()  # the restarted bot finds the post still unrevealed
    assert len(port.sent) == 1, "the reveal was not sent a second time"
    assert (await db.fetch_one("SELECT state FROM daily_posts"))[0] == "revealed"
