"""Scale: the store on PostgreSQL beside raw asyncpg, answers per second through 1, 2 and 3 worker
processes on one PostgreSQL database beside one on a SQLite file, and (full run only: quick, the same curve is
webhook_workers.no_latency) clicks per second through 1, 2 and 3 real webhook workers
(benchmarks/webhook_workers.py) beside one on SQLite, in one run.

Why: several workers on one database is the way past one process (docs/deploy.md). Two questions:
  overhead -- what the store's path costs over asyncpg itself on the same rows: daily answers through
              the AnswerWriter (group commit) against raw executemany in transactions of the same
              sizes, and interview answers (one store transaction each, under the store's write lock)
              against raw one-row commits;
  workers  -- how total answers per second move with 1, 2, 3 worker processes, each recording
              interview answers through its own pool with WRITERS concurrent tasks (the contended
              path: every write transaction takes the one advisory lock).
The server is started here (tests/postgres.py) with fsync and synchronous commit on, as deployed. On
this machine the workers, the server and the harness share 2 cores: read the curve with that in mind.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import asyncpg

from benchmarks.figures import Figure
from benchmarks.fake_telegram import ServerProcess
from benchmarks.sizes import scaled, temporary_folder
from benchmarks.webhook_workers import webhook_round
from bot.domain import RecordedAnswer
from bot.store.answer_batch import AnswerWriter
from bot.store.database import Database
from bot.store.interviews import insert_answer
from tests.postgres import PostgresServer, find_bin

NAME = "scale"
GOAL_RATIO = 0.5
FIGURES = (
    Figure("ratio_vs_raw", "", at_least=GOAL_RATIO),
    Figure("interview_ratio_vs_raw", ""),
    Figure("store_answers_per_s", "/s"),
    Figure("raw_answers_per_s", "/s"),
    Figure("workers.postgresql_1", "/s"),
    Figure("workers.postgresql_2", "/s"),
    Figure("workers.postgresql_3", "/s"),
    Figure("workers.sqlite_1", "/s"),
    Figure("webhooks.postgresql_1", "/s"),
    Figure("webhooks.postgresql_2", "/s"),
    Figure("webhooks.postgresql_3", "/s"),
    Figure("webhooks.sqlite_1", "/s"),
)
WRITERS = 8
ANSWERS_FULL, ANSWERS_QUICK = 8_000, 2_000
INTERVIEW_FULL, INTERVIEW_QUICK = 2_000, 600
MAX_WORKERS = 3
CLICKS_FULL = 1_500
T0 = 1_750_000_000.0
INSERT = """INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at, points)
            VALUES ($1, $2, $3, $4, $5, $6, $7)"""


def answer(asked_id: int, user_id: int) -> RecordedAnswer:
    return RecordedAnswer(asked_id, user_id, asked_id % 4, asked_id % 4 == 0, 1000 + asked_id % 5000, T0 + asked_id,
                          2 if asked_id % 4 == 0 else 0)


def row(recorded: RecordedAnswer) -> tuple[Any, ...]:
    return (recorded.asked_id, recorded.user_id, recorded.option_index, int(recorded.correct), recorded.latency_ms,
            recorded.answered_at, recorded.points)


async def seed(target: str, users: int, questions: int) -> None:
    """Schema through the bot's migrations, then a chat, its members and the daily questions they answer."""
    async with await Database.open(target) as db, db.transaction() as connection:
        await connection.execute("DELETE FROM answers")
        await connection.execute("DELETE FROM review_cards")
        await connection.execute("DELETE FROM asked_questions")
        await connection.execute("DELETE FROM users")
        await connection.execute("DELETE FROM chats")
        await connection.execute("INSERT INTO chats (id, platform, platform_chat_id, kind, title, created_at) "
                                 "VALUES (1, 'telegram', '-100', 'group', 'bench', ?)", (T0,))
        await connection.executemany(
            "INSERT INTO users (id, platform, platform_user_id, name, created_at) VALUES (?, 'telegram', ?, ?, ?)",
            [(user, str(user), f"member {user}", T0) for user in range(1, users + 1)])
        await connection.executemany(
            "INSERT INTO asked_questions (id, question_id, chat_id, option_order, asked_at) VALUES (?, ?, 1, '0123', ?)",
            [(asked, f"q-{asked % 500}", T0) for asked in range(1, questions + 1)])


async def store_burst(url: str, count: int) -> tuple[float, list[int]]:
    """Seconds for `count` daily answers through the AnswerWriter, and the sizes of its commits."""
    async with await Database.open(url) as db:
        writer = AnswerWriter(db)
        sizes: list[int] = []
        write = writer._write

        async def counted(batch: list) -> None:
            sizes.append(len(batch))
            await write(batch)

        writer._write = counted  # type: ignore[method-assign]
        started = time.perf_counter()
        await asyncio.gather(*(writer.record(answer(asked, 1 + asked % WRITERS), f"q-{asked % 500}")
                               for asked in range(1, count + 1)))
        return time.perf_counter() - started, sizes


async def raw_batched(url: str, count: int, sizes: list[int]) -> float:
    """Seconds for asyncpg alone to insert the same rows in transactions of the same sizes."""
    rows = [row(answer(asked, 1 + asked % WRITERS)) for asked in range(1, count + 1)]
    connection = await asyncpg.connect(url)
    try:
        started = time.perf_counter()
        at = 0
        for size in sizes:
            async with connection.transaction():
                await connection.executemany(INSERT, rows[at:at + size])
            at += size
        return time.perf_counter() - started
    finally:
        await connection.close()


async def interview_writers(target: str, users: range, per_user: int) -> float:
    """Seconds for one task per user to record `per_user` answers, one store transaction each."""
    async with await Database.open(target) as db:
        async def one(user: int) -> None:
            for asked in range(1, per_user + 1):
                async with db.transaction() as connection:
                    await insert_answer(connection, answer(asked, user))

        started = time.perf_counter()
        await asyncio.gather(*(one(user) for user in users))
        return time.perf_counter() - started


async def raw_rows(url: str, count: int) -> float:
    """Seconds for asyncpg alone to commit the same number of answers one row per transaction."""
    connection = await asyncpg.connect(url)
    try:
        started = time.perf_counter()
        for asked in range(1, count + 1):
            async with connection.transaction():
                await connection.execute(INSERT, *row(answer(asked, 1)))
        return time.perf_counter() - started
    finally:
        await connection.close()


async def workers_round(target: str, workers: int, per_user: int) -> float:
    """Answers per second through `workers` processes started together, WRITERS users each."""
    processes = []
    for number in range(workers):
        first = 1 + number * WRITERS
        processes.append(await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.scale", target, str(first), str(per_user),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE))
    for process in processes:  # every worker connected before any starts
        assert process.stdout is not None and (await process.stdout.readline()).strip() == b"ready"
    started = time.perf_counter()
    for process in processes:
        assert process.stdin is not None
        process.stdin.write(b"go\n")
        await process.stdin.drain()
    for process in processes:
        await process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"a scale worker exited with {process.returncode}")
    return workers * WRITERS * per_user / (time.perf_counter() - started)


async def run(quick: bool) -> dict[str, Any]:
    bin_dir = find_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL (initdb, pg_ctl) not found: install postgresql or set INTERVIEW_BOT_PG_BIN")
    count = scaled(ANSWERS_QUICK if quick else ANSWERS_FULL, minimum=WRITERS)
    per_user = max(2, scaled(INTERVIEW_QUICK if quick else INTERVIEW_FULL, minimum=WRITERS) // WRITERS)
    server = PostgresServer(bin_dir)
    await asyncio.to_thread(server.start, True)
    try:
        url = server.url()
        started = time.perf_counter()
        users, questions = MAX_WORKERS * WRITERS, max(count, WRITERS * per_user)
        await seed(url, users, questions)
        store_s, sizes = await store_burst(url, count)
        await seed(url, users, questions)
        raw_s = await raw_batched(url, count, sizes)
        await seed(url, users, questions)
        interview_s = await interview_writers(url, range(1, WRITERS + 1), per_user)
        await seed(url, users, questions)
        raw_rows_s = await raw_rows(url, WRITERS * per_user)
        curve = {}
        for workers in range(1, MAX_WORKERS + 1):
            await seed(url, users, questions)
            curve[f"postgresql_{workers}"] = round(await workers_round(url, workers, per_user), 1)
        with temporary_folder("scale") as folder:
            path = str(folder / "scale.sqlite3")
            await seed(path, users, questions)
            curve["sqlite_1"] = round(await workers_round(path, 1, per_user), 1)
            workers_s = time.perf_counter() - started
            if quick:  # four rounds of worker processes, 60 s at load 8: the same curve as webhook_workers.no_latency
                webhooks = {"note": "full run only; in a quick run the PostgreSQL webhook curve is "
                                    "webhook_workers.no_latency (1, 2 and 4 workers)"}
            else:
                webhooks = await webhook_curve(server, folder, scaled(CLICKS_FULL, minimum=10))
    finally:
        await asyncio.to_thread(server.stop)
    store_rate, raw_rate = count / store_s, count / raw_s
    interview_rate, raw_row_rate = WRITERS * per_user / interview_s, WRITERS * per_user / raw_rows_s
    return {
        "what": "ratio_vs_raw: daily answers through the AnswerWriter on PostgreSQL against asyncpg executemany "
                "in transactions of the same sizes; interview_ratio_vs_raw: one store transaction per answer "
                f"({WRITERS} concurrent writers, each under the store's write lock) against asyncpg committing "
                "one row per transaction; workers: interview answers per second through N processes",
        "answers": count, "mean_answers_per_transaction": round(count / len(sizes), 2),
        "store_answers_per_s": round(store_rate, 1), "raw_answers_per_s": round(raw_rate, 1),
        "ratio_vs_raw": round(store_rate / raw_rate, 3), "goal_ratio_vs_raw": GOAL_RATIO,
        "interview_answers_per_s": round(interview_rate, 1), "raw_row_commits_per_s": round(raw_row_rate, 1),
        "interview_ratio_vs_raw": round(interview_rate / raw_row_rate, 3),
        "workers": curve, "writers_per_worker": WRITERS, "answers_per_writer": per_user,
        "webhooks": webhooks, "store_and_workers_s": round(workers_s, 1),
        "notes": _notes(store_rate / raw_rate, curve),
    }


def _notes(ratio: float, curve: dict[str, float]) -> list[str]:
    """Where the time goes, when the curve or the ratio says something needs saying."""
    notes = []
    if ratio < GOAL_RATIO:
        notes.append("store vs raw asyncpg: a batch of the store also checks the questions are still open, reads "
                     "and upserts the review cards of its wrong answers (about 0.75 more rows per answer) and takes "
                     "the write lock: 6 round trips a batch where raw takes 3 (BEGIN, executemany, COMMIT).")
    if curve.get("postgresql_3", 0) <= curve.get("postgresql_1", 0):
        notes.append("more workers do not add write throughput: every write transaction takes the one advisory "
                     "lock, and with synchronous commit each commit waits for its WAL flush while holding it. "
                     "Workers add CPU for the platform side (rendering, HTTP), which is what they are for; "
                     "ALTER DATABASE ... SET synchronous_commit = off (the durability of SQLite's "
                     "synchronous=NORMAL) about triples the store's commits per second.")
    return notes


async def webhook_curve(server: PostgresServer, folder: Path, clicks: int) -> dict[str, Any]:
    """Clicks per second through 1, 2 and 3 real webhook workers on PostgreSQL (a fresh database each),
    and through one on a SQLite file, against the fake Bot API in its own process."""
    curve: dict[str, Any] = {"clicks": clicks, "what": "daily-question clicks answered per second through N "
                             "`interview-bot telegram --webhook` processes behind a round-robin balancer"}
    async with ServerProcess() as bot_api:
        for workers in range(1, MAX_WORKERS + 1):
            connection = await asyncpg.connect(server.url())
            try:
                await connection.execute(f"CREATE DATABASE hooks_{workers}")
            finally:
                await connection.close()
            curve[f"postgresql_{workers}"] = round(await webhook_round(
                bot_api, server.url(f"hooks_{workers}"), workers, clicks, -1_009_000_000 - workers,
                folder / f"webhooks-{workers}.log"), 1)
        curve["sqlite_1"] = round(await webhook_round(
            bot_api, str(folder / "webhooks.sqlite3"), 1, clicks, -1_009_000_100, folder / "webhooks-sqlite.log"), 1)
    return curve


async def _worker(target: str, first_user: int, per_user: int) -> None:
    """One worker process: connect, say ready, wait for go, record its users' answers."""
    async with await Database.open(target) as db:
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

        async def one(user: int) -> None:
            for asked in range(1, per_user + 1):
                async with db.transaction() as connection:
                    await insert_answer(connection, answer(asked, user))

        await asyncio.gather(*(one(user) for user in range(first_user, first_user + WRITERS)))


if __name__ == "__main__":
    asyncio.run(_worker(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
