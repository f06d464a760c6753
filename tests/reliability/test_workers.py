"""Three webhook workers of one bot on one PostgreSQL database, behind a load balancer (played here, with
Telegram's rule: an update whose POST got no 200 is sent again): a click burst spread over them, and one
of them killed with SIGKILL in the middle of it. Every click of the burst is answered and stored exactly
once, the killed worker's included; the survivors keep serving and stop cleanly.

The workers write side by side (no global write lock): one person's click reaching every worker at once
is recorded once, and one person starting and answering interviews through several workers at once
keeps one live interview whose every question holds exactly one answer."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import time
from pathlib import Path

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiohttp
import pytest

from adapters.telegram.app import webhook_secret_for
from bot.store import Database
from bot.store.item_steps import fold_pending
from bot.text.units import t
from tests.adapters.telegram.fake_bot_api import FakeBotApi
from tests.postgres import free_port, listening
from tests.reliability.support import FIXTURE_BANK, RECORDED, REPO, click, eventually, member
from tests.reliability.test_crash import GROUPS, TOKEN, click_plan, post_daily_questions

pytestmark = pytest.mark.slow
WORKERS = 3
SEED = 20_261_201
PUBLIC_URL = "https://bot.example.org/telegram-hook"


class Worker:
    """One `interview-bot telegram --webhook ... --listen ... --workers 3` process."""

    def __init__(self, api: FakeBotApi, store: str, log_path: Path) -> None:
        self.api, self.store, self.log_path, self.port = api, store, log_path, free_port()
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        env = {**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN, "INTERVIEW_BOT_DB": self.store,
               "INTERVIEW_BOT_QUESTIONS": str(FIXTURE_BANK), "INTERVIEW_BOT_LOG_LEVEL": "INFO"}
        env.pop("TELEGRAM_BASE_URL", None)
        with self.log_path.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "telegram", "--base-url", self.api.base_url, "--webhook", PUBLIC_URL,
                "--listen", f"127.0.0.1:{self.port}", "--workers", str(WORKERS), cwd=REPO, env=env,
                stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log)

    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def stop_cleanly(self) -> None:
        """SIGTERM, as a supervisor stops it: it exits 0 with no traceback in its log."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(self.process.wait(), 15) == 0
        assert "Traceback" not in self.log_path.read_text(errors="replace")

    async def kill_if_alive(self) -> None:
        if self.alive():
            assert self.process is not None
            self.process.kill()
            await self.process.wait()


class Balancer:
    """Round robin over the workers; a worker that refuses the connection is skipped (as a load balancer's
    health check would), so an update reaches a live worker or none."""

    def __init__(self, workers: list[Worker], session: aiohttp.ClientSession) -> None:
        self.workers, self.session, self.turn = workers, session, 0
        self.headers = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret_for(TOKEN)}
        self.served_by: dict[int, int] = {}

    async def post_to(self, index: int, update: dict) -> None:
        """The update to one worker (several workers each getting one person's clicks at the same moment)."""
        async with self.session.post(f"http://127.0.0.1:{self.workers[index].port}/telegram-hook",
                                     json=update, headers=self.headers) as response:
            assert response.status == 200, f"worker {index} refused update {update['update_id']}"
        self.served_by[update["update_id"]] = index

    async def post(self, update: dict) -> None:
        for _ in range(len(self.workers) * 3):
            index = self.turn % len(self.workers)
            self.turn += 1
            try:
                async with self.session.post(f"http://127.0.0.1:{self.workers[index].port}/telegram-hook",
                                             json=update, headers=self.headers) as response:
                    if response.status == 200:
                        self.served_by[update["update_id"]] = index
                        return
            except (aiohttp.ClientConnectionError, asyncio.TimeoutError):
                continue
        raise AssertionError(f"no worker took update {update['update_id']}")


async def stored_pairs(store: str) -> list[tuple[str, str]]:
    """(member's platform id, group's platform id) of every stored daily answer, one row per answer."""
    async with await Database.open(store) as db:
        rows = await db.fetch_all(
            """SELECT u.platform_user_id, c.platform_chat_id FROM answers a
               JOIN users u ON u.id = a.user_id JOIN asked_questions q ON q.id = a.asked_id
               JOIN chats c ON c.id = q.chat_id WHERE q.interview_id IS NULL""")
    return [(row[0], row[1]) for row in rows]


async def item_steps_owed(store: str) -> tuple[int, int, int]:
    """(daily answers stored, answers their items' difficulties count, item steps logged and not yet folded)."""
    async with await Database.open(store) as db:
        row = await db.fetch_one(
            """SELECT (SELECT count(*) FROM answers a JOIN asked_questions q ON q.id = a.asked_id
                       WHERE q.interview_id IS NULL),
                      (SELECT coalesce(sum(answers), 0) FROM item_difficulties), (SELECT count(*) FROM item_steps)""")
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


async def test_kill_9_of_one_of_three_webhook_workers_loses_no_click(tmp_path: Path, postgres_url: str) -> None:
    rng = random.Random(SEED)
    api = FakeBotApi(token=TOKEN)
    await api.start()
    workers = [Worker(api, postgres_url, tmp_path / f"worker-{number}.log") for number in range(WORKERS)]
    try:
        posts = await post_daily_questions(api, postgres_url)
        bodies = click_plan(api, posts, rng)
        for worker in workers:
            await worker.start()
        await eventually(lambda: all(listening(worker.port) for worker in workers), 90, "three workers listening")
        victim = workers[1]
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
            balancer = Balancer(workers, session)
            half = len(bodies) // 2
            updates = [{"update_id": number + 1, **body} for number, body in enumerate(bodies)]
            for start in range(0, half, 20):  # bursts of twenty clicks at once
                await asyncio.gather(*(balancer.post(update) for update in updates[start:min(start + 20, half)]))
            victims_clicks = {updates[number - 1]["callback_query"]["id"]
                              for number, index in balancer.served_by.items() if index == 1}
            answered = lambda: sum(1 for call in api.calls if call.method == "answerCallbackQuery"  # noqa: E731
                                   and call.params["callback_query_id"] in victims_clicks)
            await eventually(lambda: answered() >= len(victims_clicks) // 3, 60, "the victim answering its clicks")
            victim.process.send_signal(signal.SIGKILL)  # while it works through its share: its queued clicks die
            await victim.process.wait()
            killed_at = len(api.calls)
            for start in range(half, len(updates), 20):
                await asyncio.gather(*(balancer.post(update) for update in updates[start:start + 20]))
        await quiet(api)
        popups = {call.params["callback_query_id"]: call.params.get("text", "")
                  for call in api.calls if call.method == "answerCallbackQuery"}
        after_kill = [call for call in api.calls[killed_at:] if call.method == "answerCallbackQuery"]
        clicks = {body["callback_query"]["id"]: body for body in bodies}
        counted = {(str(clicks[qid]["callback_query"]["from"]["id"]), str(clicks[qid]["callback_query"]["message"]["chat"]["id"]))
                   for qid, text in popups.items() if text in RECORDED}
        stored = await stored_pairs(postgres_url)
        assert len(stored) == len(set(stored)), "an answer was stored twice"
        assert counted <= set(stored), f"{len(counted - set(stored))} acknowledged clicks are not stored"
        everyone = {(str(body["callback_query"]["from"]["id"]), str(body["callback_query"]["message"]["chat"]["id"]))
                    for body in bodies}
        assert set(stored) == everyone, f"{len(everyone - set(stored))} clicks were never recorded"
        unanswered = set(clicks) - set(popups)
        assert not unanswered, f"{len(unanswered)} clicks never got their pop-up (the killed worker's)"
        assert after_kill and sum(1 for call in after_kill if call.params.get("text") in RECORDED) > 0, \
            "the survivors kept counting answers after the kill"
        assert len(counted) > len(bodies) // 2, "most clicks were acknowledged"
        for worker in workers:
            if worker.alive():
                await worker.stop_cleanly()
        answers, learned, owed = await item_steps_owed(postgres_url)
        assert learned + owed == answers, "every answer's item step is folded or still logged, the victim's too"
        async with await Database.open(postgres_url) as db:  # what the next worker's start does
            await fold_pending(db)
        assert await item_steps_owed(postgres_url) == (answers, answers, 0)
    finally:
        for worker in workers:
            await worker.kill_if_alive()
        await api.stop()


async def quiet(api: FakeBotApi, seconds: float = 2.0, timeout: float = 90.0) -> None:
    """Until no call has reached the server for `seconds`: the workers have done what they took."""
    deadline, seen, since = time.monotonic() + timeout, len(api.calls), time.monotonic()
    while time.monotonic() < deadline:
        await asyncio.sleep(0.1)
        if len(api.calls) != seen:
            seen, since = len(api.calls), time.monotonic()
        elif time.monotonic() - since >= seconds:
            return
    raise AssertionError("the workers never went quiet")


@asynccontextmanager
async def serving(api: FakeBotApi, store: str, tmp_path: Path) -> AsyncIterator[Balancer]:
    """WORKERS webhook workers listening behind a balancer; at the end each stops on SIGTERM, cleanly and
    without a traceback in its log."""
    workers = [Worker(api, store, tmp_path / f"worker-{number}.log") for number in range(WORKERS)]
    try:
        for worker in workers:
            await worker.start()
        await eventually(lambda: all(listening(worker.port) for worker in workers), 90, "three workers listening")
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as session:
            yield Balancer(workers, session)
        for worker in workers:
            await worker.stop_cleanly()
    finally:
        for worker in workers:
            await worker.kill_if_alive()


def popups(api: FakeBotApi) -> dict[str, str]:
    return {call.params["callback_query_id"]: call.params.get("text", "")
            for call in api.calls if call.method == "answerCallbackQuery"}


async def test_one_persons_click_reaching_every_worker_at_once_is_recorded_once(tmp_path: Path,
                                                                               postgres_url: str) -> None:
    """Forty members of each of three groups click their group's question, and each click reaches all
    three workers at the same moment (three callback queries, one per worker, each choosing another
    option): every query gets its pop-up, each member is recorded exactly once per group and told so
    once; the other two hear that only the first answer counts."""
    rng = random.Random(SEED + 1)
    api = FakeBotApi(token=TOKEN)
    await api.start()
    try:
        posts = await post_daily_questions(api, postgres_url)
        people = [(user_id, chat_id) for chat_id in GROUPS for user_id in range(60_001, 60_041)]
        rng.shuffle(people)
        numbers = iter(range(1, 10_000))
        async with serving(api, postgres_url, tmp_path) as balancer:
            for start in range(0, len(people), 10):  # ten people at once, each through every worker
                sends = []
                for user_id, chat_id in people[start:start + 10]:
                    stored = posts[chat_id]
                    options = rng.sample(stored.data, WORKERS)  # another option on each worker: the first counts
                    for index in range(WORKERS):
                        number = next(numbers)
                        body = click(f"s{user_id}-{chat_id}-{index}", member(user_id), api._message(stored),
                                     options[index])
                        sends.append(balancer.post_to(index, {"update_id": number, **body}))
                await asyncio.gather(*sends)
            await quiet(api)
        shown = popups(api)
        asked = {f"s{user_id}-{chat_id}-{index}" for user_id, chat_id in people for index in range(WORKERS)}
        assert asked <= set(shown), f"{len(asked - set(shown))} clicks never got their pop-up"
        for user_id, chat_id in people:
            texts = [shown[f"s{user_id}-{chat_id}-{index}"] for index in range(WORKERS)]
            assert sum(text in RECORDED for text in texts) == 1, (user_id, chat_id, texts)
            assert texts.count(t("en", "refusal.already_answered")) == WORKERS - 1, (user_id, chat_id, texts)
        stored_answers = await stored_pairs(postgres_url)
        assert len(stored_answers) == len(set(stored_answers)) == len(people), "one answer per member and group"
        assert set(stored_answers) == {(str(user_id), str(chat_id)) for user_id, chat_id in people}
    finally:
        await api.stop()


async def interview_state(store: str, user_id: int) -> list[tuple[int, str, list[int]]]:
    """(interview id, status, answers per asked question in order) of the person's interviews, oldest first."""
    async with await Database.open(store) as db:
        interviews = await db.fetch_all(
            "SELECT i.id, i.status FROM interviews i JOIN users u ON u.id = i.user_id "
            "WHERE u.platform_user_id = ? ORDER BY i.id", (str(user_id),))
        found = []
        for interview_id, status in interviews:
            rows = await db.fetch_all(
                "SELECT q.position, count(a.id) FROM asked_questions q LEFT JOIN answers a ON a.asked_id = q.id "
                "WHERE q.interview_id = ? GROUP BY q.position ORDER BY q.position", (interview_id,))
            found.append((interview_id, status, [int(row[1]) for row in rows]))
    return found


async def test_one_person_starting_and_answering_interviews_through_every_worker_at_once(
        tmp_path: Path, postgres_url: str) -> None:
    """A person's /interview reaches two workers at once, then each click on a question reaches all three:
    the two starts take turns (the later one stops the earlier), one interview is live, and it moves on
    by exactly one question per round of clicks, each question holding exactly one answer, until it
    finishes; the stopped one takes none. Every click gets its pop-up."""
    api = FakeBotApi(token=TOKEN)
    await api.start()
    person = member(70_001)
    dm = {"id": person["id"], "type": "private", "first_name": person["first_name"]}
    numbers = iter(range(1, 10_000))
    try:
        async with serving(api, postgres_url, tmp_path) as balancer:
            starts = [{"update_id": next(numbers), "message": {
                "message_id": 10 + index, "date": int(time.time()), "chat": dm, "from": person,
                "text": "/interview sync-basics 3", "entities": [{"type": "bot_command", "offset": 0, "length": 10}]}}
                for index in range(2)]
            await asyncio.gather(*(balancer.post_to(index, update) for index, update in enumerate(starts)))
            await eventually(lambda: sum("Question 1/3" in stored.html for stored in api.sent_to(person["id"])) == 2,
                             90, "both starts answered")
            state = await interview_state(postgres_url, person["id"])
            assert [status for _, status, _ in state] == ["stopped", "active"], state
            clicks: list[str] = []
            for round_number in range(1, 4):
                await eventually(lambda: any(f"Question {round_number}/3" in stored.html and stored.buttons
                                             for stored in api.sent_to(person["id"])), 90,
                                 f"question {round_number} sent")  # paced per private chat: may take seconds
                questions = [stored for stored in api.sent_to(person["id"]) if stored.buttons]
                sends = []
                for stored in questions:
                    data = stored.data[0]
                    for index in range(WORKERS):
                        query = f"i{round_number}-{stored.message_id}-{index}"
                        clicks.append(query)
                        sends.append(balancer.post_to(index, {"update_id": next(numbers),
                                                              **click(query, person, api._message(stored), data)}))
                await asyncio.gather(*sends)
                await eventually(lambda: set(clicks) <= set(popups(api)), 90, f"round {round_number}'s pop-ups")
                state = await interview_state(postgres_url, person["id"])
                stopped, live = state
                assert stopped[2] == [0], "the stopped interview took no answer"
                assert live[2][:round_number] == [1] * round_number, f"round {round_number}: {live}"
            assert live[1] == "finished" and live[2] == [1, 1, 1], live
            await quiet(api, seconds=5)  # anything still on its way (replies are paced per private chat)
        shown = popups(api)
        assert set(clicks) <= set(shown), f"{len(set(clicks) - set(shown))} clicks never got their pop-up"
        texts = [message.html for message in api.sent_to(person["id"])]
        for number in (2, 3):
            assert sum(f"Question {number}/3" in text for text in texts) == 1, f"question {number} sent once"
        assert len(await interview_state(postgres_url, person["id"])) == 2
    finally:
        await api.stop()
