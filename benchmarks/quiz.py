"""Live quiz rounds at scale, on the shipped process: many groups each playing a round at the same time.

N rounds are running when the real `interview-bot telegram` process starts (1,000 rounds of 5 questions
in the full run, 200 rounds of 3 quick): the store is prepared by SQL (N Telegram groups, one round each
in state `running`, phase `between`, its first question due now), so no /quiz round-trip is needed. The
fake Bot API in its own process enforces Telegram's limits as sliding windows (30 messages in any second
overall, 20 in any minute into one group; an edit counts as a message). Ten players per group answer
every question: the benchmark reads each new question message from the fake's /messages and pushes ten
callback queries for it at random moments inside its window. The rounds ask questions of the shipped bank
that fit no native poll (in English or Turkish), so every question is a message with buttons and its
result one edit: all of a round's messages count against both limits at the fake (sendPoll is not among
the methods it limits, and clicks are simpler to push than poll answers).

Figures, read from the store after the run:
  tick_drift_p95_s / tick_drift_max_s -- over closed questions, asked_questions.closed_at minus
                                         quiz_questions.closes_at: how late the one quiz timer closed a
                                         question against its deadline (goal p95 <= 1 s);
  rss_mb                              -- the bot process's peak resident memory (VmHWM);
  questions_closed, answers_recorded, rounds_finished, http_429 (goal 0);
  question_late_p95_s                 -- from a question's start (quiz_questions.sent_at: its time runs
                                         from there) to the fake accepting its message: time a player
                                         lost to the sending pace.
"""

from __future__ import annotations

import asyncio
import heapq
import os
import random
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.broadcast import peak_rss_mb
from benchmarks.fake_telegram import ROOT, ServerProcess
from benchmarks.figures import Figure
from benchmarks.flood import OVERALL, PER_GROUP
from benchmarks.sizes import percentile, scaled, stop_process, temporary_folder
from bot.bank.loader import load_bank
from bot.bank.poll_fit import fits_poll
from bot.store import Database

NAME = "quiz"
ROUNDS_QUICK, ROUNDS_FULL = 200, 1_000
SMALL = 50  # fewer rounds than this (the harness's tiny run): short rounds, so it ends in seconds
QUESTIONS, SECONDS = 5, 20
QUICK_QUESTIONS = 3  # the same rounds at once, the same 20 s: 23 s less a question (per question's drift in the JSON)
SMALL_QUESTIONS, SMALL_SECONDS = 2, 4
PLAYERS = 10
FIRST_CHAT = -1_005_000_000_000
FIRST_PLAYER = 5_000_000
LANGUAGE = "en"
FIGURES = (
    Figure("tick_drift_p95_s", " s", at_most=1.0),
    Figure("tick_drift_max_s", " s"),
    Figure("rss_mb", "MB"),
    Figure("http_429", "", at_most=0),
    Figure("questions_closed", ""),
    Figure("answers_recorded", ""),
    Figure("question_late_p95_s", " s"),
)


def chat_ids(count: int) -> list[int]:
    return [FIRST_CHAT - index for index in range(count)]


def button_questions() -> list[str]:
    """Ids of the shipped bank's questions that fit no quiz poll in either language: always buttons."""
    bank = load_bank()
    return sorted(question.id for question in bank.questions.values()
                  if not fits_poll(question, "en") and not fits_poll(question, "tr"))


async def prepare(path: Path, count: int, questions: int, seconds: int, rng: random.Random) -> None:
    """`count` groups, each with a running round whose first question is due now."""
    pool = button_questions()
    database = await Database.open(path)
    now = time.time()
    try:
        async with database.transaction() as connection:
            await connection.executemany(
                """INSERT INTO chats (platform, platform_chat_id, kind, title, language, created_at)
                   VALUES ('telegram', ?, 'group', ?, ?, ?)""",
                [(str(chat_id), f"Quiz group {chat_id}", LANGUAGE, now) for chat_id in chat_ids(count)])
            rows = await connection.fetch_all("SELECT id FROM chats WHERE platform = 'telegram' AND kind = 'group'")
            await connection.executemany(
                """INSERT INTO quiz_rounds (chat_id, starter_id, topic, difficulty, total, seconds, question_ids,
                                            state, phase, due_at, created_at)
                   VALUES (?, NULL, NULL, NULL, ?, ?, ?, 'running', 'between', ?, ?)""",
                [(row[0], questions, seconds, ",".join(rng.sample(pool, questions)), now, now) for row in rows])
    finally:
        await database.close()


def player(user_id: int) -> dict[str, Any]:
    return {"id": user_id, "is_bot": False, "first_name": f"Player {user_id}", "language_code": LANGUAGE}


def click(chat_id: int, message_id: int, user_id: int, data: str) -> dict[str, Any]:
    return {"callback_query": {
        "id": f"q{-chat_id}-{message_id}-{user_id}", "from": player(user_id), "chat_instance": f"ci{chat_id}",
        "data": data, "message": {"message_id": message_id, "date": int(time.time()), "text": "question",
                                  "chat": {"id": chat_id, "type": "supergroup", "title": f"Quiz group {chat_id}"}}}}


class Players:
    """Ten players per group: each new question message gets ten clicks at random moments in its window."""

    def __init__(self, server: ServerProcess, chats: list[int], seconds: int, rng: random.Random) -> None:
        self.server, self.seconds, self.rng = server, seconds, rng
        self.players = {chat: [FIRST_PLAYER + index * PLAYERS + n for n in range(PLAYERS)]
                        for index, chat in enumerate(chats)}
        self.known: dict[int, set[int]] = {chat: set() for chat in chats}
        self.pending: list[tuple[float, int, dict[str, Any]]] = []  # (monotonic, tie-break, update) heap
        self.pushed = self.questions_seen = self.late_clicks = 0
        self.found_after: list[float] = []  # seconds from the fake accepting a question to the benchmark seeing it
        self._order = 0

    async def look(self, chat: int, accepted_at: float) -> None:
        """New question messages of the chat: ten clicks each, timed from when the fake accepted the message
        (`accepted_at`), so the benchmark's own lag in finding it does not push clicks past its close."""
        for message in await self.server.get("/messages", chat_id=chat):
            if not message["data"] or message["message_id"] in self.known[chat]:
                continue
            self.known[chat].add(message["message_id"])
            self.questions_seen += 1
            now = time.monotonic()
            self.found_after.append(now - accepted_at)
            for user in self.players[chat]:
                self._order += 1
                at = accepted_at + self.rng.uniform(0.3, 0.8 * self.seconds)
                self.late_clicks += at < now
                heapq.heappush(self.pending, (max(at, now), self._order, click(chat, message["message_id"], user,
                                                                               self.rng.choice(message["data"]))))

    async def push_due(self) -> None:
        """Push every click whose moment has come, in one request."""
        now = time.monotonic()
        due = []
        while self.pending and self.pending[0][0] <= now:
            due.append(heapq.heappop(self.pending)[2])
        if due:
            await self.server.post("/push", {"updates": due})
            self.pushed += len(due)

    async def pushing(self) -> None:
        while True:
            await self.push_due()
            await asyncio.sleep(0.1)


async def play(server: ServerProcess, process: asyncio.subprocess.Process, chats: list[int], questions: int,
               seconds: int, rng: random.Random, deadline: float) -> dict[str, Any]:
    """Follow every chat's messages and click, until every round posted its ranking (or the deadline)."""
    players = Players(server, chats, seconds, rng)
    pusher = asyncio.create_task(players.pushing())
    gate = asyncio.Semaphore(16)
    seen = 0
    per_chat: Counter = Counter()
    wanted = set(chats)

    async def look(chat: int, accepted_at: float) -> None:
        async with gate:
            await players.look(chat, accepted_at)

    sends: dict[str, Any] = {"sent": [], "rejected": []}
    try:
        while time.monotonic() < deadline and process.returncode is None:
            sends = await server.get("/sends")
            fresh = sends["sent"][seen:]
            seen = len(sends["sent"])
            changed = {chat: at for at, chat in fresh if chat in wanted}  # the newest message's acceptance
            per_chat.update(chat for _, chat in fresh)
            await asyncio.gather(*(look(chat, at) for chat, at in changed.items()))
            if all(per_chat[chat] >= questions + 1 for chat in chats):  # every question and the ranking
                break
            await asyncio.sleep(0.25)
        await asyncio.sleep(1.0)  # a late duplicate or traceback would show now
        sends = await server.get("/sends")
    finally:
        pusher.cancel()
        await asyncio.gather(pusher, return_exceptions=True)
    found = players.found_after
    return {"sends": sends, "clicks_pushed": players.pushed, "question_messages_seen": players.questions_seen,
            "clicks_later_than_planned": players.late_clicks,
            "question_found_p95_s": round(percentile(found, 0.95), 3) if found else None,
            "chats_done": sum(per_chat[chat] >= questions + 1 for chat in chats)}


def store_figures(path: Path, chats: list[int], sends: list[tuple[float, int]], mono_minus_wall: float) -> dict[str, Any]:
    """Drift, answers and rounds, read from the store after the process stopped."""
    connection = sqlite3.connect(path)
    try:
        numbered = connection.execute(
            """SELECT q.number, a.closed_at - q.closes_at FROM quiz_questions q JOIN asked_questions a ON a.id = q.asked_id
               WHERE q.closes_at IS NOT NULL AND a.closed_at IS NOT NULL""").fetchall()
        drifts = [drift for _, drift in numbered]
        asked = connection.execute("SELECT count(*) FROM quiz_questions").fetchone()[0]
        answers = connection.execute(
            "SELECT count(*) FROM answers a JOIN quiz_questions q ON q.asked_id = a.asked_id").fetchone()[0]
        rounds = connection.execute(
            """SELECT count(*), sum(state = 'ended'), sum(state = 'ended' AND end_reason = 'finished' AND asked = total),
                      sum(total) FROM quiz_rounds""").fetchone()
        started = connection.execute(
            """SELECT c.platform_chat_id, q.number, q.sent_at FROM quiz_questions q
               JOIN quiz_rounds r ON r.id = q.round_id JOIN chats c ON c.id = r.chat_id
               WHERE q.sent_at IS NOT NULL""").fetchall()
    finally:
        connection.close()
    accepted: dict[int, list[float]] = {}
    for at, chat in sorted(sends):
        accepted.setdefault(chat, []).append(at)
    late = []  # the k-th message accepted in a chat is its question k (edits are not sends)
    for chat_id, number, sent_at in started:
        times = accepted.get(int(chat_id), [])
        if number <= len(times):
            late.append(times[number - 1] - (sent_at + mono_minus_wall))
    return {
        "rounds": rounds[0], "rounds_ended": rounds[1] or 0, "rounds_finished": rounds[2] or 0,
        "questions_planned": rounds[3] or 0, "questions_asked": asked, "questions_closed": len(drifts),
        "answers_recorded": answers,
        "tick_drift_p50_s": round(percentile(drifts, 0.5), 3) if drifts else None,
        "tick_drift_p95_s": round(percentile(drifts, 0.95), 3) if drifts else None,
        "tick_drift_max_s": round(max(drifts), 3) if drifts else None,
        "tick_drift_p95_s_by_question": {  # whether later questions of the rounds close any later than the first
            str(number): round(percentile([drift for n, drift in numbered if n == number], 0.95), 3)
            for number in sorted({n for n, _ in numbered})},
        "question_late_p50_s": round(percentile(late, 0.5), 3) if late else None,
        "question_late_p95_s": round(percentile(late, 0.95), 3) if late else None,
        "question_late_max_s": round(max(late), 3) if late else None,
    }


async def rounds_at_once(server: ServerProcess, folder: Path, count: int, questions: int,
                         seconds: int) -> dict[str, Any]:
    rng = random.Random(24)
    path = folder / f"quiz-{count}.sqlite3"
    await prepare(path, count, questions, seconds, rng)
    await server.post("/reset", {"limit": OVERALL, "group_limit": PER_GROUP})
    environment = {**os.environ, "TELEGRAM_BOT_TOKEN": server.token, "INTERVIEW_BOT_DB": str(path),
                   "INTERVIEW_BOT_LOG_LEVEL": "WARNING"}
    environment.pop("INTERVIEW_BOT_CONFIG", None)
    chats = chat_ids(count)
    messages = count * (2 * questions + 1)  # each question and its result edit, then the ranking
    deadline = time.monotonic() + questions * (seconds + 3) + messages / OVERALL["count"] * 2 + 90
    log_path = folder / f"quiz-{count}.log"
    started = time.monotonic()
    with open(log_path, "wb") as log_file:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "telegram", "--base-url", server.base_url, cwd=ROOT, env=environment,
            stdin=asyncio.subprocess.DEVNULL, stdout=log_file, stderr=asyncio.subprocess.STDOUT)
        try:
            played = await play(server, process, chats, questions, seconds, rng, deadline)
            peak = peak_rss_mb(process.pid)[1] if process.returncode is None else None
        finally:
            await stop_process(process, 15)
    elapsed = time.monotonic() - started
    mono_minus_wall = time.monotonic() - time.time()
    sends = played.pop("sends")
    result = {
        "groups": count, "players_per_group": PLAYERS, "questions_per_round": questions, "seconds": seconds,
        **store_figures(path, chats, [tuple(pair) for pair in sends["sent"]], mono_minus_wall), **played,
        "http_429": len(sends["rejected"]), "messages_sent": len(sends["sent"]),
        "rss_mb": round(peak, 1) if peak is not None else None, "seconds_total": round(elapsed, 1),
        "tracebacks_in_log": log_path.read_text(encoding="utf-8", errors="replace").count("Traceback"),
        "exit_code": process.returncode,
    }
    return result


async def run(quick: bool) -> dict[str, Any]:
    count = scaled(ROUNDS_QUICK if quick else ROUNDS_FULL, minimum=3)
    if count < SMALL:
        questions, seconds = SMALL_QUESTIONS, SMALL_SECONDS
    else:
        questions, seconds = (QUICK_QUESTIONS if quick else QUESTIONS), SECONDS
    with temporary_folder("quiz") as folder:
        async with ServerProcess() as server:
            result = await rounds_at_once(server, folder, count, questions, seconds)
    result["notes"] = [
        f"the real `interview-bot telegram` process, {count} rounds running at once in {count} groups "
        f"({questions} questions of {seconds} s each, {PLAYERS} players clicking every question at random moments "
        f"in its window), the fake Bot API enforcing 30 messages a second and 20 a minute per group; questions "
        f"that fit no quiz poll (buttons, the result an edit): {result['questions_closed']} of "
        f"{result['questions_planned']} questions closed, {result['rounds_finished']} rounds finished, "
        f"{result['answers_recorded']} answers recorded of {result['clicks_pushed']} clicks.",
        f"close drift p50 {result['tick_drift_p50_s']} s, p95 {result['tick_drift_p95_s']} s, max "
        f"{result['tick_drift_max_s']} s; a question reached Telegram p50 {result['question_late_p50_s']} s, p95 "
        f"{result['question_late_p95_s']} s after its time started; {result['http_429']} x 429; peak RSS "
        f"{result['rss_mb']} MB; {result['seconds_total']} s in all.",
    ]
    return result
