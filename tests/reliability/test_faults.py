"""Faults: a daily broadcast to 200 groups while the Bot API fails a tenth of the calls.

The fake server answers about 10% of the calls it reads (seeded) with a 429 (retry_after 0 or 1), a
502, a dropped connection or an answer later than the client waits; 2.5% of the bot's connections are
refused before the request leaves (a closed port, see transport.py). The real Telegram adapter runs
with polling, over a Core with a ManualClock, while members click the questions already posted.

Sending a message is not idempotent. So, per chat, from the server's log:
- a 429 or a refused connection was surely not delivered: retried until delivered, exactly once;
- a 502, a dropped connection or a timeout after the request was read may have been delivered: the
  post is recorded as 'unknown', logged, and never sent again, then or on later ticks;
- no chat ever gets its daily question twice, and the bot keeps answering clicks.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from telegram.ext import Application

from adapters.telegram.app import ALLOWED_UPDATES, build_application
from adapters.telegram.delivery import Pacing, TelegramPort
from adapters.telegram.services import SERVICES, Services
from bot.bank import load_bank
from bot.schedule.clock import ManualClock
from bot.core import Core
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.store import Database
from tests.adapters.telegram.fake_bot_api import TOKEN, Call, Chaos, FakeBotApi
from tests.reliability.support import APOLOGY, FIXTURE_BANK, RECORDED, click, eventually, group, member
from tests.reliability.transport import refuse_connections

pytestmark = [pytest.mark.slow,  # python -m pytest -m "not slow" leaves these out
              pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")]  # RetryAfter(int)

SEED = 1_234
CHATS = 200
CLIENT_TIMEOUT = 3.0  # generous: a loaded CI machine must not time out on its own
LATE = CLIENT_TIMEOUT + 1.5  # the fake's "timeout" answers this late
FAST = Pacing(overall=(1000, 1.0), group=(1000, 1.0), private=(1000, 1.0))
DAY = 1_780_012_800.0  # a midnight, UTC
RETRYABLE = ("retry_after", "refused")
AFTER_RECEIPT = ("bad_gateway", "drop", "timeout")
INTERVIEWS = range(60_001, 60_021)


async def fast_sleep(seconds: float) -> None:
    """The port's waits (retry_after, back-off) at a tenth of their length: same decisions, less time."""
    await asyncio.sleep(seconds / 10)


@dataclass
class Bot:
    api: FakeBotApi
    core: Core
    application: Application
    chaos: Chaos

    @property
    def services(self) -> Services:
        return self.application.bot_data[SERVICES]

    async def settle(self) -> None:
        """Wait until every update fetched so far is fully processed (PTB marks each done at its end) and the
        replies its handlers queued per chat are sent (an interview's next question goes out after the
        handler returns, behind that chat's earlier sends and their retries)."""
        await asyncio.wait_for(self.application.update_queue.join(), 60)
        await asyncio.wait_for(self.services.queues.join(), 60)


@pytest.fixture
async def storm(tmp_path: Path) -> AsyncIterator[Bot]:
    """The fake server with a dormant chaos plan, a Core on a ManualClock, and the bot polling."""
    chaos = Chaos(SEED, rate=0.1, refuse_rate=0.025, delay=LATE, active=False,
                  methods=frozenset({"sendMessage", "editMessageText", "answerCallbackQuery", "getUpdates"}))
    api = FakeBotApi(chaos=chaos)
    await api.start()
    core = Core(await Database.open(tmp_path / "faults.sqlite3"), load_bank([FIXTURE_BANK]), ManualClock(DAY),
                random.Random(SEED), scheduled=False)
    application = build_application(core, TOKEN, base_url=api.base_url, pacing=FAST, sleep=fast_sleep,
                                     counter_delay=0.3, request_timeout=CLIENT_TIMEOUT)
    transport = await refuse_connections(application, chaos)
    port: TelegramPort = application.bot_data[SERVICES].port
    port.posts_per_second = 100.0  # the broadcast's own pace; Telegram's limits are FAST here
    await application.initialize()
    await application.start()
    await application.updater.start_polling(allowed_updates=ALLOWED_UPDATES)  # type: ignore[union-attr]
    try:
        yield Bot(api, core, application, chaos)
    finally:
        chaos.active = False
        await application.updater.stop()  # type: ignore[union-attr]
        await application.bot_data[SERVICES].counters.close()
        await application.stop()
        await application.shutdown()
        await transport.aclose()
        await core.close()
        await api.stop()


def is_daily_post(call: Call, chat_id: int) -> bool:
    markup = call.params.get("reply_markup") or {}
    data = [button.get("callback_data", "") for row in markup.get("inline_keyboard", []) for button in row]
    return call.params.get("chat_id") == chat_id and any(item.startswith("a:") for item in data)


async def start_interviews(bot: Bot) -> None:
    """People in private chats with an interview going: their clicks need an edit and a next question."""
    for user_id in INTERVIEWS:
        user = member(user_id)
        outgoing = await bot.core.start_interview(
            UserRef("telegram", str(user_id), user["first_name"], "en"),
            ChatRef("telegram", str(user_id), "private", user["first_name"]),
            InterviewFilters(topics=("sync-basics",), count=3))
        ref = await bot.services.port.post(user_id, outgoing.message)
        await bot.core.posted(outgoing.asked_id or 0, ref)


async def members_click(bot: Bot, broadcast: asyncio.Task, rng: random.Random) -> list[dict]:
    """While the broadcast runs, members click the questions already posted, and people in an interview
    click their current question; some click twice."""
    pushed: list[dict] = []
    while not broadcast.done() and len(pushed) < 150:
        posted = [stored for stored in list(bot.api.messages.values()) if stored.chat_id < 0 and stored.data]
        if rng.random() < 0.25:
            posted = [bot.api.last(user_id) for user_id in INTERVIEWS if bot.api.last(user_id).data]
            user = member(rng.choice([stored.chat_id for stored in posted])) if posted else None
            posted = [stored for stored in posted if user and stored.chat_id == user["id"]]
        else:
            user = member(70_000 + rng.randrange(40))
        if posted and user is not None:
            stored = rng.choice(posted)
            body = click(f"s{len(pushed)}", user, bot.api._message(stored), rng.choice(stored.data))
            bot.api.push(body)
            pushed.append(body)
            if rng.random() < 0.2:
                again = click(f"s{len(pushed)}", user, bot.api._message(stored), rng.choice(stored.data))
                bot.api.push(again)
                pushed.append(again)
        await asyncio.sleep(0.02)
    return pushed


async def test_a_daily_broadcast_through_a_fault_storm(storm: Bot, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    bot, api, core, rng = storm, storm.api, storm.core, random.Random(SEED)
    groups = [-1_002_000_000_000 - number for number in range(CHATS)]
    for chat_id in groups:
        await core.subscribe(ChatRef("telegram", str(chat_id), "group", group(chat_id)["title"]), "09:00", "UTC")
    core.clock.set(DAY + 9 * 3600)  # type: ignore[attr-defined]
    await start_interviews(bot)

    bot.chaos.active = True
    broadcast = asyncio.create_task(core.tick())
    clicks = await members_click(bot, broadcast, rng)
    await broadcast
    clicked = {body["callback_query"]["id"] for body in clicks}
    await eventually(lambda: clicked <= answered_queries(api), 60, "an answer to every click of the storm")
    await bot.settle()  # and whatever each click does after its pop-up (edits, next questions)
    for minutes in (1, 10, 45):  # later ticks within the hour of grace: nothing is sent again
        core.clock.set(DAY + 9 * 3600 + minutes * 60)  # type: ignore[attr-defined]
        await core.tick()
    bot.chaos.active = False

    # The bot still serves: a member's click after the storm is answered and counted.
    stored = next(stored for stored in api.messages.values() if stored.chat_id < 0 and stored.data)
    calm = api.push(click("calm", member(79_999), api._message(stored), stored.data[0]))
    await eventually(lambda: "calm" in answered_queries(api), 30, "an answer to the click after the storm")
    await bot.settle()
    assert popup_of(api, "calm") in RECORDED

    states = {int(row["platform_chat_id"]): row["state"] for row in await core.db.fetch_all(
        """SELECT c.platform_chat_id, p.state FROM daily_posts p JOIN chats c ON c.id = p.chat_id
           WHERE p.kind = 'scheduled'""")}
    outcomes = Counter()
    logged_unknown = {int(record.args[0]) for record in caplog.records  # type: ignore[index]
                      if record.name == "adapters.telegram.delivery" and "outcome unknown" in record.msg}
    for chat_id in groups:
        received = [call for call in list(api.calls) if call.method == "sendMessage" and is_daily_post(call, chat_id)]
        refused = sum(1 for method, subject in bot.chaos.refusals if method == "sendMessage" and subject[0] == chat_id)
        delivered = sum(call.applied for call in received)
        faults = [call.fault for call in received if call.fault] + ["refused"] * refused
        unsure = [call for call in received if call.fault in AFTER_RECEIPT]
        assert delivered <= 1, f"chat {chat_id} got its daily question {delivered} times ({faults})"
        if not unsure:
            assert delivered == 1 and states[chat_id] == "sent", \
                f"chat {chat_id}: only retryable failures {faults}, yet {delivered} deliveries, {states[chat_id]}"
            outcomes["sent once, after retries" if faults else "sent once"] += 1
        else:
            assert states[chat_id] == "unknown", f"chat {chat_id}: {unsure[0].fault} after receipt, {states[chat_id]}"
            assert received[-1] is unsure[0], f"chat {chat_id}: resent after an unknown outcome ({faults})"
            assert chat_id in logged_unknown, f"chat {chat_id}: an unknown outcome not logged"
            outcomes[f"unknown after {unsure[0].fault} ({'delivered' if delivered else 'not delivered'})"] += 1
    assert outcomes["sent once, after retries"] > 0 and any(key.startswith("unknown") for key in outcomes)

    await check_the_clicks(api, core, clicks + [calm])
    await check_the_interviews(api, core)
    incidents = Counter(f"{incident.method} {incident.kind}" for incident in bot.chaos.incidents)
    refusals = Counter(f"{method} refused" for method, _ in bot.chaos.refusals)
    print(f"\nfaults: {len(api.calls)} calls received, {sum(incidents.values())} faults "
          f"({dict(sorted(incidents.items()))}), {sum(refusals.values())} connections refused "
          f"({dict(refusals)})\n  per chat: {dict(outcomes)}\n  {len(clicks)} clicks during the storm, "
          f"all answered, pop-ups: {dict(Counter(popup_kind(api, body) for body in clicks))}; "
          f"{sum(APOLOGY in call.params.get('text', '') for call in api.applied('sendMessage'))} apologies "
          f"after an interview's next question met an unknown outcome")


def popup_kind(api: FakeBotApi, body: dict) -> str:
    shown = [call.params for call in api.applied("answerCallbackQuery")
             if call.params["callback_query_id"] == body["callback_query"]["id"]]
    if not shown:
        return "none shown"
    return "refused: " + shown[0]["text"][:24] if shown[0].get("show_alert") else "counted"


def answered_queries(api: FakeBotApi) -> set[str]:
    """Clicks whose pop-up the bot tried to show (the server read the call, whatever it answered)."""
    return {call.params["callback_query_id"] for call in list(api.calls) if call.method == "answerCallbackQuery"}


def popup_of(api: FakeBotApi, query_id: str) -> str | None:
    texts = [call.params.get("text") for call in api.applied("answerCallbackQuery")
             if call.params["callback_query_id"] == query_id]
    return texts[0] if texts else None


async def check_the_clicks(api: FakeBotApi, core: Core, clicks: list[dict]) -> None:
    """A click shown "recorded" is stored once with the option it chose; nothing is stored twice."""
    rows = await core.db.fetch_all(
        """SELECT a.asked_id, u.platform_user_id AS user, a.option_index, q.option_order
           FROM answers a JOIN users u ON u.id = a.user_id JOIN asked_questions q ON q.id = a.asked_id""")
    stored = Counter((row["asked_id"], int(row["user"])) for row in rows)
    assert max(stored.values(), default=1) == 1
    instead = [call for call in api.applied("answerCallbackQuery") if call.params.get("text") == APOLOGY]
    assert not instead, f"a click's pop-up was an apology: {instead[0].params}"
    for call in api.applied("sendMessage"):  # an apology in a chat only follows a send of unknown outcome there
        if APOLOGY in call.params.get("text", ""):
            chat_id = call.params["chat_id"]
            assert chat_id > 0 and any(earlier.fault in AFTER_RECEIPT for earlier in api.calls
                                       if earlier.method == "sendMessage" and earlier.params["chat_id"] == chat_id)
    for body in clicks:
        query = body["callback_query"]
        if popup_of(api, query["id"]) in RECORDED:
            asked_id = int(query["data"].split(":")[1])
            assert (asked_id, query["from"]["id"]) in stored, f"click {query['id']} shown recorded, not stored"


ONE_CHAT = -1_003_000_000_001


@pytest.mark.parametrize(("fault", "value", "state", "deliveries"), [
    ("retry_after", 1, "sent", 1),
    ("retry_after", 0, "sent", 1),  # PTB makes no RetryAfter of a 0: still a 429, still not delivered
    ("refused", 0, "sent", 1),
    ("bad_gateway", 0, "unknown", 0),
    ("drop", 0, "unknown", 1),
    ("slow", LATE, "unknown", 1),
])
async def test_each_fault_alone(storm: Bot, fault: str, value: float, state: str, deliveries: int) -> None:
    """One group's daily post meets one fault: retried when surely not delivered, else 'unknown' for good."""
    api, core = storm.api, storm.core
    await core.subscribe(ChatRef("telegram", str(ONE_CHAT), "group", "One"), "09:00", "UTC")
    core.clock.set(DAY + 9 * 3600)  # type: ignore[attr-defined]
    storm.chaos.rate, storm.chaos.active = 0.0, True
    if fault == "refused":
        storm.chaos.refuse_once.append(("sendMessage", ONE_CHAT))
    else:
        api.fail("sendMessage", fault, chat_id=ONE_CHAT, value=value)
    await core.tick()
    core.clock.advance(600)
    await core.tick()
    posts = [row["state"] for row in await core.db.fetch_all("SELECT state FROM daily_posts")]
    received = [call for call in api.calls if call.method == "sendMessage" and call.params["chat_id"] == ONE_CHAT]
    assert posts == [state]
    assert sum(call.applied for call in received) == deliveries
    assert len(received) == (1 if state == "unknown" else 2 - (fault == "refused")), "resent only when safe"


async def check_the_interviews(api: FakeBotApi, core: Core) -> None:
    """Every interview goes on: its open question (or its report) was sent after the last recorded answer.

    The send itself may meet an unknown outcome (then it is not repeated; /start shows the question
    again), but it must have been attempted: the server read it."""
    moved = 0
    for user_id in INTERVIEWS:
        sent = [call.params.get("text", "") + str(call.params.get("reply_markup") or "")
                for call in list(api.calls) if call.method == "sendMessage" and call.params["chat_id"] == user_id]
        row = await core.db.fetch_one(
            """SELECT i.status, (SELECT q.id FROM asked_questions q WHERE q.interview_id = i.id AND q.closed_at IS NULL)
                      AS open_id, (SELECT count(*) FROM answers a JOIN asked_questions q ON q.id = a.asked_id
                                   WHERE q.interview_id = i.id) AS answered
               FROM interviews i JOIN users u ON u.id = i.user_id WHERE u.platform_user_id = ?""", (str(user_id),))
        moved += row["answered"] > 0
        if row["status"] == "active":
            assert any(f"a:{row['open_id']}:" in text for text in sent), f"user {user_id}: open question never sent"
        else:
            assert any("Interview report" in text for text in sent), f"user {user_id}: report never sent"
    assert moved, "some interviews moved on during the storm"
