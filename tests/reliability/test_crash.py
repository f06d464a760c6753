"""Crash: kill -9 the real bot process during a burst of clicks, restart it, again and again.

The bot runs as `python -m bot telegram --base-url ...` against the fake Bot API server in this test's
event loop. Three groups each have a daily question (posted beforehand through the core and the real
Telegram adapter); hundreds of members click it, some twice. Between restarts the fake keeps every
update that PTB has not confirmed (it confirms an offset on its next poll), so a killed process leaves
clicks that are delivered again to the next one: exactly what must not count twice.

Whatever moment the kill lands on, every click whose pop-up said "recorded" is in the answers table
exactly once, with the option that click chose, and nothing else is there.
"""

from __future__ import annotations

import pytest

import asyncio
import os
import random
import signal
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from adapters.telegram.app import build_application
from adapters.telegram.delivery import Pacing
from adapters.telegram.services import SERVICES
from bot.bank import load_bank
from bot.schedule.clock import SystemClock
from bot.core import Core
from bot.domain import ChatRef
from bot.text.i18n import t
from bot.store import Database
from bot.store.interviews import get_asked
from tests.adapters.telegram.fake_bot_api import FakeBotApi, Stored
from tests.reliability.support import (APOLOGY, FIXTURE_BANK, RECORDED, REPO, click, eventually, member,
                                      our_tracebacks)

pytestmark = pytest.mark.slow  # python -m pytest -m "not slow" leaves these out

SEED = 20_260_607
TOKEN = "123:ABC"
GROUPS = (-100_501, -100_502, -100_503)
MEMBERS = 130  # per group: 390 distinct first clicks
REPEATS = 0.3  # a share of members click again, often another option
KILL_CYCLES = 12
FAST = Pacing(overall=(1000, 1.0), group=(1000, 1.0), private=(1000, 1.0))


async def post_daily_questions(api: FakeBotApi, db_path: Path) -> dict[int, Stored]:
    """Seed the store: a daily question in each group, posted through the core and the real adapter."""
    core = Core(await Database.open(db_path), load_bank([FIXTURE_BANK]), SystemClock(), random.Random(SEED),
                scheduled=False)
    application = build_application(core, TOKEN, base_url=api.base_url, pacing=FAST, request_timeout=10)
    await application.initialize()
    try:
        for chat_id in GROUPS:
            assert await core.post_daily_now(ChatRef("telegram", str(chat_id), "group", f"Group {chat_id}"))
    finally:
        await application.bot_data[SERVICES].counters.close()
        await application.shutdown()
        await core.close()
    return {chat_id: api.last(chat_id) for chat_id in GROUPS}


def click_plan(api: FakeBotApi, posts: dict[int, Stored], rng: random.Random) -> list[dict]:
    """Every member clicks every group's question once, in random order; some click again later."""
    firsts = [(user_id, chat_id) for chat_id in GROUPS for user_id in range(50_001, 50_001 + MEMBERS)]
    rng.shuffle(firsts)
    order: list[tuple[int, int]] = list(firsts)
    for pair in firsts:
        if rng.random() < REPEATS:
            order.insert(rng.randrange(order.index(pair) + 1, len(order) + 1), pair)
    bodies = []
    for number, (user_id, chat_id) in enumerate(order):
        stored = posts[chat_id]
        bodies.append(click(f"q{number}", member(user_id), api._message(stored), rng.choice(stored.data)))
    return bodies


class BotProcess:
    """One run of `python -m bot telegram` with its log in a file."""

    def __init__(self, api: FakeBotApi, db_path: Path, log_path: Path) -> None:
        self.api, self.db_path, self.log_path = api, db_path, log_path
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        env = {**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN, "INTERVIEW_BOT_DB": str(self.db_path),
               "INTERVIEW_BOT_QUESTIONS": str(FIXTURE_BANK), "INTERVIEW_BOT_LOG_LEVEL": "INFO"}
        env.pop("TELEGRAM_BASE_URL", None)
        first_call = len(self.api.calls)
        with self.log_path.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "telegram", "--base-url", self.api.base_url, cwd=REPO, env=env,
                stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log)
        await eventually(lambda: self.polling_since(first_call) or self.process.returncode is not None,
                         60, "the bot's first getUpdates")
        assert self.process.returncode is None, f"the bot exited: see {self.log_path}"

    def polling_since(self, first_call: int) -> bool:
        return any(call.method == "getUpdates" for call in self.api.calls[first_call:])

    async def kill(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: no cleanup, no last poll, no flush
        await self.process.wait()

    async def kill_if_running(self) -> None:
        """A test's teardown: a process still running (the test failed before stopping it) is killed."""
        if self.process is not None and self.process.returncode is None:
            await self.kill()

    async def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), 60)
        except TimeoutError:
            await self.kill()
            raise AssertionError("the bot did not stop on SIGTERM") from None


def answers_since(api: FakeBotApi, first_call: int) -> int:
    return sum(1 for call in api.calls[first_call:] if call.method == "answerCallbackQuery")


async def quiet(api: FakeBotApi, seconds: float = 1.5, timeout: float = 60.0) -> None:
    """Wait until the queue is confirmed empty and no call has arrived for `seconds`."""
    deadline = time.monotonic() + timeout
    seen, since = len(api.calls), time.monotonic()
    while time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        busy = [call for call in api.calls[seen:] if call.method != "getUpdates"]
        seen = len(api.calls)
        if busy or api.updates:
            since = time.monotonic()
        elif time.monotonic() - since >= seconds:
            return
    raise AssertionError("the bot never went quiet")


async def kill_during_the_burst(api: FakeBotApi, bot: BotProcess, chunk: list[dict], rng: random.Random) -> str:
    """Push a burst and kill -9 the bot after a random share of it was answered; where the kill landed.

    PTB confirms a batch with its next poll, some milliseconds after fetching it and long before the
    first click is processed, so a kill alone loses the unprocessed rest of a batch but almost never
    leaves processed clicks unconfirmed. Half the cycles add what makes that happen in production: the
    confirming poll fails (502s, so PTB backs off and polls again later) and the kill comes while the
    batch is being processed. The whole batch then comes again to the next process, part of it recorded.
    """
    process = bot.process
    assert process is not None
    share = rng.uniform(0.1, 0.9)
    unconfirmed = rng.random() < 0.5
    batch: list[int] = []

    def served(ids: list[int]) -> None:
        api.on_served = None
        batch.extend(ids)
        batch.append(len(api.calls))  # where this batch's answers start
        if unconfirmed:
            api.fail("getUpdates", "bad_gateway", times=1000)  # no poll confirms it until the kill

    api.on_served = served
    for body in chunk:
        api.push(body)
    await eventually(lambda: batch, 60, "a batch being fetched")
    *ids, first_call = batch
    target = max(1, int(share * len(ids)))
    await eventually(lambda: answers_since(api, first_call) >= target, 60, f"{target} answers")
    await bot.kill()
    api.faults.clear()
    state = "unconfirmed" if unconfirmed else "confirmed"
    return f"{answers_since(api, first_call)}/{len(ids)} of a {state} batch"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path: Path) -> Path | str:
    """The bot's store: a SQLite file, or a new PostgreSQL database (the same kills, the same checks)."""
    return tmp_path / "crash.sqlite3" if request.param == "sqlite" else request.getfixturevalue("postgres_url")


async def test_kill_9_during_a_click_burst_never_loses_or_doubles_an_answer(tmp_path: Path, store) -> None:
    rng = random.Random(SEED)
    api = FakeBotApi(token=TOKEN)
    await api.start()
    db_path = store
    log_path = tmp_path / "bot.log"
    bot = BotProcess(api, db_path, log_path)
    try:
        posts = await post_daily_questions(api, db_path)
        bodies = click_plan(api, posts, rng)
        size = -(-len(bodies) // KILL_CYCLES)
        kills = []
        for start in range(0, len(bodies), size):
            await bot.start()
            kills.append(await kill_during_the_burst(api, bot, bodies[start:start + size], rng))
        await bot.start()  # the last run takes what is left in the queue, then stops cleanly
        await quiet(api)
        assert await bot.stop() == 0
        assert len(kills) >= 10
        await check_the_store(api, db_path, bodies, posts, kills, log_path)
    finally:
        await bot.kill_if_running()
        await api.stop()


async def check_the_store(api: FakeBotApi, db_path: Path, bodies: list[dict], posts: dict[int, Stored],
                          kills: list[str], log_path: Path) -> None:
    clicks = {body["callback_query"]["id"]: body["callback_query"] for body in bodies}
    acks = [call for call in api.calls if call.method == "answerCallbackQuery" and call.applied]
    per_query = Counter(call.params["callback_query_id"] for call in acks)
    assert max(per_query.values()) == 1, "the fake answers a query at most once"
    recorded = [call for call in acks if call.params.get("text") in RECORDED and not call.params.get("show_alert")]
    refused = [call for call in acks if call not in recorded]
    assert all(call.params.get("text") for call in acks), "every pop-up says something"

    async with await Database.open(db_path) as db:
        asked_of = {}
        for chat_id, stored in posts.items():
            asked_id = int(stored.data[0].split(":")[1])
            asked_of[chat_id] = await get_asked(db, asked_id)
        rows = await db.fetch_all(
            """SELECT a.asked_id, u.platform_user_id AS user, a.option_index, count(*) OVER
                      (PARTITION BY a.asked_id, a.user_id) AS copies
               FROM answers a JOIN users u ON u.id = a.user_id""")
    stored_answers = {(row["asked_id"], int(row["user"])): row["option_index"] for row in rows}
    assert all(row["copies"] == 1 for row in rows), "no (asked question, member) twice"
    assert len(stored_answers) == len(rows)

    def key_and_choice(query: dict) -> tuple[tuple[int, int], int]:
        asked = asked_of[query["message"]["chat"]["id"]]
        return (asked.id, query["from"]["id"]), asked.option_index_of(query["data"].split(":")[2])

    acked_as_recorded: dict[tuple[int, int], int] = {}
    for call in recorded:
        key, choice = key_and_choice(clicks[call.params["callback_query_id"]])
        # The same click again (redelivered) gets the same verdict; another option never does.
        assert acked_as_recorded.get(key, choice) == choice, f"{key} was told 'recorded' for two options"
        acked_as_recorded[key] = choice
    missing = [key for key in acked_as_recorded if key not in stored_answers]
    assert not missing, f"clicks acknowledged as recorded but not in the store: {missing[:5]}"
    wrong = [key for key, choice in acked_as_recorded.items() if stored_answers[key] != choice]
    assert not wrong, f"a recorded answer is not the option its acknowledged click chose: {wrong[:5]}"
    chosen: dict[tuple[int, int], set[int]] = defaultdict(set)
    for query in clicks.values():
        key, choice = key_and_choice(query)
        chosen[key].add(choice)
    strays = [key for key, option in stored_answers.items() if option not in chosen.get(key, set())]
    assert not strays, f"answers no click asked for: {strays[:5]}"
    assert recorded and refused, "a burst with repeats gives both kinds of pop-up"

    redelivered = [update_id for update_id, times in api.served.items() if times > 1]
    calls_per_query = Counter(call.params["callback_query_id"] for call in api.calls
                              if call.method == "answerCallbackQuery")
    already = t("en", "refusal.already_answered")
    seen: set[tuple[int, int]] = set()
    first_clicks = set()
    for query in clicks.values():  # in push order: a member's first click on each question
        key, _ = key_and_choice(query)
        if key not in seen:
            seen.add(key)
            first_clicks.add(query["id"])
    refused_first = [call for call in refused if call.params["callback_query_id"] in first_clicks
                     and call.params.get("text") == already]
    processed_twice = {query for query, calls in calls_per_query.items() if calls > 1}
    processed_twice |= {call.params["callback_query_id"] for call in refused_first}
    assert processed_twice, "some clicks reached the core twice (else the test did not exercise redelivery)"
    silent_but_stored = sum(1 for query_id, query in clicks.items() if query_id not in per_query
                            and query_id in first_clicks and key_and_choice(query)[0] in stored_answers)
    log = log_path.read_text(errors="replace")
    tracebacks = our_tracebacks(log)
    apologies = [call for call in api.applied("sendMessage") if APOLOGY in call.params.get("text", "")]
    print(f"\ncrash: {len(kills)} kill -9 cycles, after answering {', '.join(kills)}\n"
          f"  {len(clicks)} clicks ({len(chosen)} distinct first clicks, {len(clicks) - len(chosen)} repeats); "
          f"{len(recorded)} acknowledged as recorded, {len(refused)} refused "
          f"({dict(Counter(c.params['text'][:30] for c in refused))}); "
          f"{len(clicks) - len(per_query)} got no pop-up (a process was killed before it; {silent_but_stored} of "
          f"those were recorded all the same)\n"
          f"  {len(redelivered)} updates redelivered to a later process; {len(processed_twice)} clicks reached the "
          f"core twice ({len(refused_first)} first clicks refused as already answered: recorded by a killed "
          f"process before its pop-up); {len(stored_answers)} answers stored, none twice; "
          f"{len(apologies)} apologies posted; {len(tracebacks)} tracebacks logged by the bot's own code")
    assert not apologies, f"a click was answered with an apology in the chat: see {log_path}"
    assert not tracebacks, f"the bot logged a traceback:\n{tracebacks[0][:3000]}"


async def test_sigterm_during_a_groups_reply_backlog_exits_within_ten_seconds(tmp_path: Path) -> None:
    """Sixty members each ask something different in one group: three minutes of the group's pace.
    SIGTERM then ends the process within 10 s (queued replies get a short grace and are dropped);
    before per-chat queues, every update slot sat waiting for the group and the stop waited with them."""
    api = FakeBotApi(token=TOKEN)
    await api.start()
    bot = BotProcess(api, tmp_path / "backlog.sqlite3", tmp_path / "bot.log")
    group_chat = {"id": -1_005_000_000_001, "type": "supergroup", "title": "Busy group"}
    try:
        await bot.start()
        for number in range(60):
            user = member(60_001 + number)
            api.push({"message": {"message_id": number + 1, "date": int(time.time()), "chat": group_chat, "from": user,
                                  "text": f"/help {number}", "entities": [{"type": "bot_command", "offset": 0, "length": 5}]}})
        await eventually(lambda: len(api.sent_to(group_chat["id"])) >= 19, 30, "the group's first minute of replies")
        started = time.monotonic()
        assert await bot.stop() == 0
        assert time.monotonic() - started < 10
        assert len(api.sent_to(group_chat["id"])) < 60, "the backlog was really there when the stop came"
        assert "Traceback" not in bot.log_path.read_text(errors="replace")
    finally:
        await bot.kill_if_running()
        await api.stop()


async def test_sigterm_during_a_daily_broadcast_then_a_restart_gives_every_group_its_question_once(
        tmp_path: Path) -> None:
    """A deploy restarts the bot in the middle of the day's broadcast (90 groups at Telegram's pace take
    three seconds). The groups not reached before the stop get their question after the restart, the
    ones reached do not get it twice, and nothing is left half-posted."""
    groups = [-1_003_000_000_000 - number for number in range(90)]
    db_path = tmp_path / "broadcast.sqlite3"
    core = Core(await Database.open(db_path), load_bank([FIXTURE_BANK]), SystemClock(), random.Random(SEED),
                scheduled=False)
    try:
        for chat_id in groups:
            await core.subscribe(ChatRef("telegram", str(chat_id), "group", f"Group {chat_id}"), "09:00", "UTC")
        async with core.db.transaction() as transaction:  # due now, wherever in the day the test runs
            await transaction.execute("UPDATE subscriptions SET next_post_at = ?", (time.time(),))
    finally:
        await core.close()
    api = FakeBotApi(token=TOKEN)
    await api.start()
    bot = BotProcess(api, db_path, tmp_path / "bot.log")
    try:
        await bot.start()
        await eventually(lambda: len(api.calls_of("sendMessage")) >= 20, 60, "the broadcast's first 20 posts")
        assert await bot.stop() == 0
        reached = [chat_id for chat_id in groups if api.sent_to(chat_id)]
        assert 20 <= len(reached) < len(groups), "the stop came in the middle of the broadcast"
        await bot.start()
        await eventually(lambda: all(api.sent_to(chat_id) for chat_id in groups), 60, "every group's question")
        await quiet(api)
        assert await bot.stop() == 0
    finally:
        await bot.kill_if_running()
        await api.stop()
    assert {chat_id: len(api.sent_to(chat_id)) for chat_id in groups} == {chat_id: 1 for chat_id in groups}
    database = await Database.open(db_path)
    try:
        states = [row[0] for row in await database.fetch_all("SELECT state FROM daily_posts")]
    finally:
        await database.close()
    assert states == ["sent"] * len(groups)
    assert not our_tracebacks(bot.log_path.read_text(errors="replace"))
