"""A generated store for the leaderboard benchmark: users, group chats, daily posts and their answers.

Why generated this way: boards read daily-question answers per chat, so the shape that matters is
chats of very different sizes (a few large groups dominate the slow tail), one scheduled post per
chat per day, and members answering some of them. The schema comes from the bot's migrations; rows
go in with executemany in one transaction through sqlite3, far faster than the store's one-answer
path and equivalent on disk. No ANALYZE is run, because the bot never runs it.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from bot.store.database import Database
from bot.store.scores import fold_revealed

DAY = 86_400.0
# The last generated day is Sunday 2025-06-15: the week board then covers seven full days of posts.
LAST_DAY = datetime(2025, 6, 15, tzinfo=timezone.utc).timestamp()


@dataclass(frozen=True)
class Shape:
    """How big the generated store is; answers land near `answers` (the exact count is reported)."""

    answers: int
    users: int
    chats: int
    days: int
    long_chat_posts: int = 10_000  # one old, busy group: boards must not cost its history
    long_chat_members: int = 40
    seed: int = 7

    @property
    def now(self) -> float:
        """Sunday 23:00 UTC of the last day, after every post went out; the last day's are still open."""
        return LAST_DAY + 23 * 3600


@dataclass
class Generated:
    """What was written, for the report and for picking chats to query."""

    users: int = 0
    chats: int = 0
    posts: int = 0
    answers: int = 0
    members: dict[int, list[int]] = field(default_factory=dict)
    long_chat: int = 0  # the chat with `long_chat_posts` posts (0: none)
    long_chat_answers: int = 0


def chat_sizes(shape: Shape, rng: random.Random) -> list[int]:
    """Members per chat: heavy-tailed (Pareto), from 3 up to a tenth of all users."""
    largest = max(3, shape.users // 10)
    return [min(largest, max(3, int(rng.paretovariate(1.3) * 8))) for _ in range(shape.chats)]


def _post_instant(day: int, chat_id: int, shape: Shape) -> float:
    """Chats post at different hours (06:00-17:00 UTC), one post per chat per day."""
    first_day = LAST_DAY - (shape.days - 1) * DAY
    return first_day + day * DAY + (6 + chat_id % 12) * 3600


def _answer_rows(asked_id: int, members: list[int], count: int, asked_at: float,
                 difficulty: int, rng: random.Random) -> Iterator[tuple]:
    for user_id in rng.sample(members, count):
        correct = rng.random() < 0.6
        latency = int(rng.expovariate(1 / 40_000)) + 800
        yield (asked_id, user_id, rng.randrange(4), int(correct), latency, asked_at + latency / 1000,
               difficulty if correct else 0)


def generate_rows(shape: Shape, connection: sqlite3.Connection) -> Generated:
    """Insert users, chats, posts and answers day by day; a post is answered by a random share of its chat."""
    rng = random.Random(shape.seed)
    generated = Generated(users=shape.users, chats=shape.chats)
    connection.executemany(
        "INSERT INTO users (id, platform, platform_user_id, name, language, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        ((user, "telegram", str(10_000_000 + user), f"member {user}", "tr" if user % 3 else "en", 0.0)
         for user in range(1, shape.users + 1)))
    connection.executemany(
        "INSERT INTO chats (id, platform, platform_chat_id, kind, title, created_at) VALUES (?, ?, ?, 'group', ?, ?)",
        ((chat, "telegram" if chat % 4 else "discord", str(-1_000_000 - chat), f"group {chat}", 0.0)
         for chat in range(1, shape.chats + 1)))
    sizes = chat_sizes(shape, rng)
    members = {chat: rng.sample(range(1, shape.users + 1), size) for chat, size in enumerate(sizes, start=1)}
    generated.members = members
    share = min(0.95, shape.answers / max(1, shape.days * sum(sizes)))
    next_asked = 1
    for day in range(shape.days):
        asked_rows, post_rows, answer_rows = day_rows(shape, day, next_asked, members, share, rng)
        insert_day(connection, asked_rows, post_rows, answer_rows)
        next_asked += len(asked_rows)
        generated.posts += len(post_rows)
        generated.answers += len(answer_rows)
    if shape.long_chat_posts:
        long_chat_rows(shape, connection, generated, next_asked, rng)
    return generated


LONG_CHAT_SPACING_S = 2 * 3600.0


def long_chat_rows(shape: Shape, connection: sqlite3.Connection, generated: Generated, first_asked: int,
                   rng: random.Random) -> None:
    """One more group that has posted every two hours for years (10k posts end at `now`), most members
    answering most posts: the history a week or all-time board must not read."""
    chat = shape.chats + 1
    connection.execute("INSERT INTO chats (id, platform, platform_chat_id, kind, title, created_at) "
                       "VALUES (?, 'telegram', ?, 'group', 'the long chat', 0)", (chat, str(-2_000_000)))
    people = rng.sample(range(1, shape.users + 1), min(shape.long_chat_members, shape.users))
    generated.members[chat] = people
    generated.long_chat = chat
    asked_rows, post_rows, answer_rows = [], [], []
    for index in range(shape.long_chat_posts):
        asked_id = first_asked + index
        asked_at = shape.now - (shape.long_chat_posts - index) * LONG_CHAT_SPACING_S
        reveal_at = asked_at + 12 * 3600
        still_open = reveal_at > shape.now
        asked_rows.append((asked_id, f"q-{asked_id % 2500:04d}", chat, "2031", asked_at, reveal_at,
                           None if still_open else reveal_at, f"{chat}:{asked_id}"))
        post_rows.append((asked_id, chat, asked_id, f"p{index}", "sent" if still_open else "revealed",
                          reveal_at, asked_at, asked_at + 1, None if still_open else reveal_at))
        count = rng.randint(len(people) // 2, len(people))
        answer_rows.extend(_answer_rows(asked_id, people, count, asked_at, 1 + asked_id % 3, rng))
    insert_day(connection, asked_rows, post_rows, answer_rows)
    generated.posts += len(post_rows)
    generated.answers += len(answer_rows)
    generated.long_chat_answers = len(answer_rows)


def day_rows(shape: Shape, day: int, first_asked: int, members: dict[int, list[int]], share: float,
             rng: random.Random) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """One day of every chat's post, in the order the bot would have written them (ids rise with time)."""
    asked_rows, post_rows, answer_rows = [], [], []
    for offset, chat in enumerate(range(1, shape.chats + 1)):
        asked_id = first_asked + offset
        asked_at = _post_instant(day, chat, shape)
        reveal_at = asked_at + 12 * 3600
        still_open = reveal_at > shape.now
        local_date = datetime.fromtimestamp(asked_at, timezone.utc).date().isoformat()
        asked_rows.append((asked_id, f"q-{asked_id % 2500:04d}", chat, "2031", asked_at, reveal_at,
                           None if still_open else reveal_at, f"{chat}:{asked_id}"))
        post_rows.append((asked_id, chat, asked_id, local_date, "sent" if still_open else "revealed",
                          reveal_at, asked_at, asked_at + 1, None if still_open else reveal_at))
        people = members[chat]
        count = min(len(people), max(0, round(len(people) * share * rng.uniform(0.5, 1.5))))
        answer_rows.extend(_answer_rows(asked_id, people, count, asked_at, 1 + asked_id % 3, rng))
    return asked_rows, post_rows, answer_rows


def insert_day(connection: sqlite3.Connection, asked_rows: list[tuple], post_rows: list[tuple],
               answer_rows: list[tuple]) -> None:
    """Parents before children: foreign keys are checked as rows go in."""
    connection.executemany(
        """INSERT INTO asked_questions (id, question_id, chat_id, interview_id, position, option_order, asked_at,
                                        deadline, closed_at, message_ref) VALUES (?, ?, ?, NULL, 0, ?, ?, ?, ?, ?)""",
        asked_rows)
    connection.executemany(
        """INSERT INTO daily_posts (id, chat_id, asked_id, kind, local_date, state, reveal_at, created_at, sent_at,
                                    revealed_at) VALUES (?, ?, ?, 'scheduled', ?, ?, ?, ?, ?, ?)""",
        post_rows)
    connection.executemany(
        """INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at, points)
           VALUES (?, ?, ?, ?, ?, ?, ?)""",
        answer_rows)


async def build(path: Path, shape: Shape) -> Generated:
    """Create the schema the bot's way, then bulk-insert in one transaction with bulk-load settings."""
    database = await Database.open(path)
    await database.close()
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA synchronous = OFF")
        connection.execute("PRAGMA cache_size = -262144")  # 256 MiB: keeps index inserts off the disk
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("BEGIN")
        generated = generate_rows(shape, connection)
        connection.execute("COMMIT")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    await fold_reveals(path, generated)
    return generated


async def fold_reveals(path: Path, generated: Generated) -> None:
    """What the bot's reveals did as the posts were revealed: each chat's running board totals and weeks."""
    async with await Database.open(path) as database:
        async with database.transaction() as connection:
            for chat in generated.members:
                await fold_revealed(connection, chat)
