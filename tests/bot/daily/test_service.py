"""Daily questions driven by a controllable clock: local instants, DST, restarts, grace, once a day, reveal."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.core import Core
from bot.daily.service import DailyService
from bot.port import ChatGone, ChatMoved, DeliveryUnknown
from bot.domain import LETTERS, ChatRef, UserRef
from bot.errors import UserError
from bot.daily.schedule import schedule_of
from bot.errors import AnswerRefused
from bot.store import Database
from bot.store.daily import Subscription, get_subscription
from bot.store.people import find_chat
from bot.text.plaintext import render_plain
from bot.tokens import answer_token
from tests.fakes import RecordingPort

GROUP = ChatRef("test", "g1", "group", "Study group")


def at(text: str, tz: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(tz)).timestamp()




@pytest.fixture
def daily(core) -> DailyService:
    return core.daily


async def answer(core: Core, user: UserRef, chat: ChatRef, token: str):
    """A member's click through the one door, Core.click; a refusal raises as the service would."""
    reply = await core.click(user, chat, token)
    if reply.refused is not None:
        raise AnswerRefused(reply.refused)
    assert reply.counter is not None and reply.correct is not None
    return reply


async def started(db_path, bank, clock, port: RecordingPort) -> Core:
    """A core on the store file as a (re)started process opens it, with its one delivery port."""
    core = Core(await Database.open(db_path), bank, clock, scheduled=False)
    core.add_port(port)
    return core


@pytest.mark.parametrize("tz", ["Europe/Istanbul", "America/New_York", "Asia/Tokyo"])
async def test_posts_at_the_local_instant(core, daily, clock, port, tz) -> None:
    clock.set(at("2026-03-02 08:00", tz))
    await core.subscribe(GROUP, "09:30", tz)
    clock.set(at("2026-03-02 09:29:59", tz))
    assert (await daily.run_due()).posted == 0 and port.sent == []
    clock.set(at("2026-03-02 09:30", tz))
    assert (await daily.run_due()).posted == 1 and len(port.sent_to("g1")) == 1


async def test_across_a_daylight_saving_change(core, daily, clock, port) -> None:
    tz = "Europe/Berlin"  # clocks went forward on 2026-03-29
    clock.set(at("2026-03-28 08:00", tz))
    await core.subscribe(GROUP, "09:00", tz)
    for day in ("2026-03-28", "2026-03-29", "2026-03-30"):
        clock.set(at(f"{day} 08:59", tz))
        await daily.run_due()
        clock.set(at(f"{day} 09:00", tz))
        await daily.run_due()
    assert len(port.sent) == 3
    utc_hours = [datetime.utcfromtimestamp(at(f"{d} 09:00", tz)).hour for d in ("2026-03-28", "2026-03-30")]
    assert utc_hours == [8, 7], "09:00 local is 08:00 UTC before the change and 07:00 after"


def test_a_schedule_is_parsed_once_and_keeps_local_time_across_dst() -> None:
    berlin = schedule_of(Subscription(1, "09:00", "Europe/Berlin", None, None, None, 43200, True))
    assert berlin is schedule_of(Subscription(2, "09:00", "Europe/Berlin", None, None, None, 43200, True))
    before = berlin.next_after(at("2026-03-27 10:00", "Europe/Berlin"))
    after = berlin.next_after(before)
    assert before == at("2026-03-28 09:00", "Europe/Berlin") and after - before == 23 * 3600
    tokyo = schedule_of(Subscription(1, "18:15", "Asia/Tokyo", (0, 2), None, None, 43200, True))
    moment = tokyo.next_after(at("2026-05-05 19:00", "Asia/Tokyo"))  # a Tuesday evening
    assert moment == at("2026-05-06 18:15", "Asia/Tokyo")
    assert schedule_of(Subscription(1, "25:00", "UTC", None, None, None, 43200, True)) is None


async def test_never_two_posts_in_one_local_day(core, daily, clock, port) -> None:
    clock.set(at("2026-05-04 09:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC")
    for _ in range(5):
        await daily.run_due()
        clock.advance(600)
    assert len(port.sent) == 1


async def test_restart_between_subscribe_and_post(db_path, bank, clock) -> None:
    clock.set(at("2026-05-04 08:00", "Europe/Istanbul"))
    first = await Database.open(db_path)
    before = Core(first, bank, clock, scheduled=False)
    before.add_port(RecordingPort())
    await before.subscribe(GROUP, "09:00", "Europe/Istanbul")
    await first.close()
    port = RecordingPort()
    second = await Database.open(db_path)
    try:
        after = Core(second, bank, clock, scheduled=False)
        after.add_port(port)
        daily = after.daily
        clock.set(at("2026-05-04 09:00:05", "Europe/Istanbul"))
        assert (await daily.run_due()).posted == 1 and len(port.sent) == 1
    finally:
        await second.close()


@pytest.mark.parametrize("late_minutes, expected", [(30, 1), (59, 1), (61, 0), (600, 0)])
async def test_missed_post_inside_and_outside_the_grace_window(core, daily, clock, port, late_minutes, expected) -> None:
    clock.set(at("2026-05-04 07:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC")
    clock.set(at("2026-05-04 09:00", "UTC") + late_minutes * 60)  # the bot was down at 09:00
    assert (await daily.run_due()).posted == expected


async def test_weekdays_filter(core, daily, clock, port) -> None:
    clock.set(at("2026-05-04 07:00", "UTC"))  # a Monday
    await core.subscribe(GROUP, "09:00", "UTC", weekdays=(2,))
    for day in range(7):
        clock.set(at("2026-05-04 09:00", "UTC") + day * 86400)
        await daily.run_due()
    assert len(port.sent) == 1


async def test_no_repeats_until_the_pool_is_used_up(core, daily, clock, port, bank) -> None:
    clock.set(at("2026-05-04 07:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC", topic="sync-basics")
    asked = []
    for day in range(6):
        clock.set(at("2026-05-04 09:00", "UTC") + day * 86400)
        await daily.run_due()
    for _, message in port.sent:
        stem = next(b.text for b in message.blocks[1:] if hasattr(b, "text"))
        asked.append(stem)
    assert len(set(asked[:3])) == 3 and len(asked) == 6


async def test_answers_reveal_and_refusals(core, daily, clock, port, db, bank) -> None:
    clock.set(at("2026-05-04 07:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC", reveal_after_hours=2)
    clock.set(at("2026-05-04 09:00", "UTC"))
    await daily.run_due()
    button_rows = port.sent[0][1].buttons
    tokens = [button.token for row in button_rows for button in row]
    asked_id = int(tokens[0].split(":")[1])
    row = await db.fetch_one("SELECT option_order, question_id FROM asked_questions WHERE id = ?", (asked_id,))
    question = bank.questions[row["question_id"]]
    right = LETTERS[[int(c) for c in row["option_order"]].index(question.correct_index)]
    wrong = next(letter for letter in LETTERS[: len(question.options)] if letter != right)
    members = [UserRef("test", f"m{i}", f"Member {i}") for i in range(4)]
    for i, member in enumerate(members):
        clock.advance(5 + i)
        result = await answer(core, member, GROUP, answer_token(asked_id, right if i != 2 else wrong))
        assert result.correct == (i != 2) and result.counter[1] == i + 1
    with pytest.raises(Exception) as twice:
        await answer(core, members[0], GROUP, answer_token(asked_id, wrong))
    assert getattr(twice.value, "reason", None) == "already_answered"
    with pytest.raises(Exception) as elsewhere:
        await answer(core, members[0], ChatRef("test", "other", "group"), answer_token(asked_id, right))
    assert getattr(elsewhere.value, "reason", None) in ("wrong_chat",)
    clock.set(at("2026-05-04 11:00:01", "UTC"))
    assert (await daily.run_due()).revealed == 1
    [(_, ref, reveal)] = port.edits
    text = render_plain(reveal)
    assert "4 answered, 75% right." in text and "Member 0 (5.0 s)" in text and "<- correct" in text
    with pytest.raises(Exception) as late:
        await answer(core, UserRef("test", "late"), GROUP, answer_token(asked_id, right))
    assert getattr(late.value, "reason", None) == "closed"
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 4


async def test_reveal_always_before_the_next_post(core, daily, clock, port) -> None:
    clock.set(at("2026-05-04 07:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC", reveal_after_hours=30)
    clock.set(at("2026-05-04 09:00", "UTC"))
    await daily.run_due()
    clock.set(at("2026-05-05 09:00", "UTC"))
    await daily.run_due()
    assert len(port.edits) == 1 and len(port.sent) == 2


async def test_platform_errors(core, daily, clock, port, db) -> None:
    clock.set(at("2026-05-04 07:00", "UTC"))
    chats = [ChatRef("test", f"c{i}", "group") for i in range(3)]
    for chat in chats:
        await core.subscribe(chat, "09:00", "UTC")
    port.failures = {"c0": ChatGone("blocked"), "c1": ChatMoved("c1-super"), "c2": DeliveryUnknown("timed out")}
    clock.set(at("2026-05-04 09:00", "UTC"))
    summary = await daily.run_due()
    assert summary.failed == 1 and len(port.sent) == 1 and port.sent[0][0] == "c1-super"
    gone = await find_chat(db, "test", "c0")
    assert not (await get_subscription(db, gone.id)).active
    assert await find_chat(db, "test", "c1") is None and await find_chat(db, "test", "c1-super") is not None
    states = [row[0] for row in await db.fetch_all("SELECT state FROM daily_posts ORDER BY chat_id")]
    assert states == ["failed", "sent", "unknown"]
    clock.advance(600)
    await daily.run_due()
    assert len(port.sent) == 1, "an unknown outcome is never blindly resent"


@pytest.mark.parametrize("args, key", [
    (("25:00", "UTC"), "daily.bad_time"), (("09:00", "Mars/Olympus"), "daily.bad_timezone"),
    (("09:00", "Istanbul"), "daily.bad_timezone"), (("09:00", "UTC", "nope"), "interview.unknown_topic"),
])
async def test_bad_subscriptions_are_refused(core, daily, args, key) -> None:
    with pytest.raises(UserError) as error:
        await core.subscribe(GROUP, *args)
    assert error.value.key == key


async def test_many_chats_at_one_time_are_all_posted(db, bank, clock) -> None:
    port = RecordingPort(posts_per_second=500)
    core = Core(db, bank, clock, scheduled=False)
    core.add_port(port)
    daily = core.daily
    clock.set(at("2026-05-04 07:00", "UTC"))
    for i in range(60):
        await core.subscribe(ChatRef("test", f"c{i}", "group"), "09:00", "UTC")
    clock.set(at("2026-05-04 09:00", "UTC"))
    assert (await daily.run_due()).posted == 60 and len({chat for chat, _ in port.sent}) == 60


async def test_core_click_routes_daily_answers(db, bank, clock) -> None:
    core = Core(db, bank, clock, random.Random(1), scheduled=False)
    port = RecordingPort()
    core.add_port(port)
    assert await core.post_daily_now(GROUP)
    token, other = port.sent[0][1].buttons[0][0].token, port.sent[0][1].buttons[1][0].token
    reply = await core.click(UserRef("test", "m1", "M"), GROUP, token)
    assert reply.counter is not None and reply.counter[1] == 1 and not reply.alert
    again = await core.click(UserRef("test", "m1", "M"), GROUP, other)
    assert again.alert and "only the first answer counts" in again.popup


async def test_the_same_click_again_gets_the_same_verdict(core, daily, clock, port, db) -> None:
    clock.set(at("2026-05-04 09:00", "UTC"))
    await core.post_daily_now(GROUP)
    tokens = [button.token for row in port.sent[0][1].buttons for button in row]
    member = UserRef("test", "m", "M")
    first = await answer(core, member, GROUP, tokens[0])
    again = await answer(core, member, GROUP, tokens[0])  # redelivered after a crash
    assert again.correct == first.correct and again.counter[1] == 1
    with pytest.raises(Exception) as other:
        await answer(core, member, GROUP, tokens[1])
    assert getattr(other.value, "reason", None) == "already_answered"
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 1


async def test_a_scheduled_reveal_is_the_timers_next_moment(core, daily, clock, port) -> None:
    """The reveal of a scheduled post is due on time: the timer's next wake-up is the reveal instant."""
    clock.set(at("2026-05-04 07:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC", reveal_after_hours=2)
    assert await daily.next_moment() == at("2026-05-04 09:00", "UTC")
    clock.set(at("2026-05-04 09:00", "UTC"))
    assert (await core.daily.run_due()).posted == 1
    assert await daily.next_moment() == at("2026-05-04 11:00", "UTC")  # the reveal, before tomorrow's post
    clock.set(at("2026-05-04 11:00", "UTC"))
    assert (await daily.run_due()).revealed == 1
    assert await daily.next_moment() == at("2026-05-05 09:00", "UTC")


async def test_a_manual_post_is_revealed_on_time_too(core, daily, clock, port) -> None:
    clock.set(at("2026-05-04 10:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC", reveal_after_hours=3)
    assert await core.post_daily_now(GROUP)
    assert await daily.next_moment() == at("2026-05-04 13:00", "UTC")


async def test_a_subscription_on_a_platform_without_its_adapter_does_not_wake_the_timer(db, bank, clock) -> None:
    core = Core(db, bank, clock, random.Random(1), scheduled=False)
    core.add_port(RecordingPort())
    clock.set(at("2026-05-04 07:00", "UTC"))
    await core.subscribe(ChatRef("elsewhere", "g", "group"), "08:00", "UTC")
    assert await core.daily.next_moment() is None
    clock.set(at("2026-05-04 08:00", "UTC"))
    assert (await core.daily.run_due()).posted == 0


async def test_subscriptions_from_before_the_timer_get_their_next_post(db, bank, clock, core, daily, port) -> None:
    clock.set(at("2026-05-04 07:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC")
    async with db.transaction() as connection:  # as schema v5 left it
        await connection.execute("UPDATE subscriptions SET next_post_at = NULL")
    assert await daily.next_moment() is None
    assert await daily.schedule_missing() == 1
    assert await daily.next_moment() == at("2026-05-04 09:00", "UTC")


async def test_a_stop_during_a_broadcast_leaves_the_chats_not_reached_due_for_the_next_start(
        db_path, bank, clock) -> None:
    """A deploy stops the bot in the middle of the day's broadcast: the posts under way end, no new one
    begins, and the chats not reached have no post recorded and are still due, so the next start posts
    them (once), within the grace window."""
    clock.set(at("2026-05-04 07:00", "UTC"))
    chats = [ChatRef("test", f"c{i}", "group") for i in range(40)]
    first_port = RecordingPort(posts_per_second=40)  # the broadcast takes a second
    first = await started(db_path, bank, clock, first_port)
    for chat in chats:
        await first.subscribe(chat, "09:00", "UTC")
    clock.set(at("2026-05-04 09:00", "UTC"))
    running = asyncio.ensure_future(first.daily.run_due())
    while len(first_port.sent) < 5:
        await asyncio.sleep(0.01)
    await first.stop_work()
    summary = await asyncio.wait_for(running, 5)
    reached = {chat for chat, _ in first_port.sent}
    assert 5 <= summary.posted == len(reached) < len(chats)
    await first.close()

    second_port = RecordingPort()
    second = await started(db_path, bank, clock, second_port)
    try:
        clock.set(at("2026-05-04 09:05", "UTC"))
        await second.daily.run_due()
        states = [row[0] for row in await second.db.fetch_all("SELECT state FROM daily_posts")]
    finally:
        await second.close()
    assert {chat for chat, _ in second_port.sent} == {chat.platform_id for chat in chats} - reached
    assert len(first_port.sent) + len(second_port.sent) == len(chats) and states == ["sent"] * len(chats)


@dataclass
class HangingPort(RecordingPort):
    """A port whose sends never end (the process is killed during one)."""

    entered: asyncio.Event = field(default_factory=asyncio.Event)

    async def send(self, chat, message):
        self.entered.set()
        await asyncio.Event().wait()


async def test_a_post_cut_off_mid_send_is_revealed_later_and_the_boards_move_on(db_path, bank, clock) -> None:
    """A process killed while sending a post leaves it 'pending': it may have gone out. Once no process
    can still be sending it, it is revealed like a post whose outcome is unknown, and the chat's board
    totals (folded in post order) move past it to the next day's post and its answers."""
    clock.set(at("2026-05-04 08:00", "UTC"))
    hanging = HangingPort()
    first = await started(db_path, bank, clock, hanging)
    await first.subscribe(GROUP, "09:00", "UTC")
    clock.set(at("2026-05-04 09:00", "UTC"))
    running = asyncio.ensure_future(first.daily.run_due())
    await asyncio.wait_for(hanging.entered.wait(), 5)
    running.cancel()  # the kill, mid-send
    await asyncio.gather(running, return_exceptions=True)
    assert [row[0] for row in await first.db.fetch_all("SELECT state FROM daily_posts")] == ["pending"]
    await first.close()

    port = RecordingPort()
    second = await started(db_path, bank, clock, port)
    try:
        clock.set(at("2026-05-05 09:00", "UTC"))
        await second.daily.run_due()  # the day's post, and yesterday's abandoned one revealed
        rows = await second.db.fetch_all("SELECT id, state FROM daily_posts ORDER BY id")
        assert [row[1] for row in rows] == ["revealed", "sent"] and len(port.sent) == 2
        today = next(message for _, message in port.sent if message.buttons)
        token = today.buttons[0][0].token
        await answer(second, UserRef("test", "u1", "Ada"), GROUP, token)
        clock.set(at("2026-05-05 23:00", "UTC"))
        await second.daily.run_due()  # today's reveal: the fold reaches it
        folded = await second.db.fetch_all("SELECT post_id FROM board_folds")
        totals = await second.db.fetch_all("SELECT answered FROM board_totals")
    finally:
        await second.close()
    assert [row[0] for row in folded] == [rows[1][0]] and [row[0] for row in totals] == [1]


async def test_a_bot_down_past_yesterdays_post_still_posts_todays_within_its_grace(core, daily, clock, port) -> None:
    """The stored next post is yesterday's (the bot was down from before it until after today's): that
    one is past its grace, but today's is not, and goes out once."""
    clock.set(at("2026-05-04 08:00", "UTC"))
    await core.subscribe(GROUP, "09:00", "UTC")
    clock.set(at("2026-05-05 09:30", "UTC"))
    assert (await daily.run_due()).posted == 1
    clock.set(at("2026-05-05 09:45", "UTC"))
    await daily.run_due()
    assert len(port.sent) == 1
    [row] = await core.db.fetch_all("SELECT local_date FROM daily_posts")
    assert row[0] == "2026-05-05"
