"""Running board totals: folding revealed posts gives the same boards as reading the whole history."""

from __future__ import annotations

import random
from zoneinfo import ZoneInfo

import pytest

from bot.scores.boards import chat_board, groups_board, streaks
from bot.store import Database
from bot.store.daily import mark_post
from bot.store.forget import forget_user
from bot.store.scores import fold_revealed, utc_week_start

UTC = ZoneInfo("UTC")
DAY = 86_400.0
START = 1_750_000_000.0  # a Sunday afternoon, so posts span two UTC weeks


async def _history(db: Database, rng: random.Random, posts: int, members: int) -> None:
    """One group; posts in order, each revealed, failed or (the last few, and some at random) still open."""
    async with db.transaction() as connection:
        await connection.executemany(
            "INSERT INTO users (id, platform, platform_user_id, name, created_at) VALUES (?, 't', ?, ?, 0)",
            [(user, str(user), f"member {user}") for user in range(1, members + 1)])
        await connection.execute(
            "INSERT INTO chats (id, platform, platform_chat_id, kind, title, created_at) VALUES (1, 't', 'g', 'group', 'G', 0)")
        for post in range(1, posts + 1):
            asked_at = START + post * DAY / 3
            state = rng.choices(["revealed", "failed", "sent", "unknown"], [8, 1, 1, 1])[0]
            if post > posts - 2:
                state = "sent"
            await connection.execute(
                "INSERT INTO asked_questions (id, question_id, chat_id, option_order, asked_at) VALUES (?, 'q', 1, '0123', ?)",
                (post, asked_at))
            await connection.execute(
                """INSERT INTO daily_posts (id, chat_id, asked_id, kind, local_date, state, reveal_at, created_at)
                   VALUES (?, 1, ?, 'manual', ?, ?, ?, ?)""", (post, post, str(post), state, asked_at + 3600, asked_at))
            if state == "failed":
                continue
            for user in rng.sample(range(1, members + 1), rng.randint(0, members)):
                correct = rng.random() < 0.7
                await connection.execute(
                    """INSERT INTO answers (asked_id, user_id, option_index, correct, latency_ms, answered_at, points)
                       VALUES (?, ?, 0, ?, ?, ?, ?)""",
                    (post, user, int(correct), rng.randint(500, 90_000), asked_at + 5, rng.randint(1, 3) if correct else 0))


async def _reference(db: Database) -> dict[int, tuple[int, int, int, int, int, int]]:
    """Per member from the raw history: points, answered, right, time, current streak, best streak."""
    totals = {row[0]: tuple(row[1:]) for row in await db.fetch_all(
        """SELECT a.user_id, sum(a.points), count(*), sum(a.correct), sum(a.latency_ms)
           FROM daily_posts p JOIN answers a ON a.asked_id = p.asked_id WHERE p.chat_id = 1 GROUP BY a.user_id""")}
    posts = [(row[0], row[1] != "revealed") for row in await db.fetch_all(
        "SELECT asked_id, state FROM daily_posts WHERE chat_id = 1 AND state != 'failed' ORDER BY id")]
    results: dict[int, dict[int, bool]] = {}
    for user_id, asked_id, correct in await db.fetch_all("SELECT user_id, asked_id, correct FROM answers"):
        results.setdefault(user_id, {})[asked_id] = bool(correct)
    return {user: (*values, *streaks(posts, results.get(user, {}))) for user, values in totals.items()}


def _board_values(board) -> dict[int, tuple[int, int, int, int, int, int]]:
    return {row.user_id: (row.points, row.answered, row.right, row.time_ms, row.streak, row.best_streak)
            for row in board.rows}


@pytest.mark.parametrize("seed", range(12))
async def test_folding_at_any_moment_gives_the_board_of_the_whole_history(tmp_path, seed: int) -> None:
    rng = random.Random(seed)
    async with await Database.open(tmp_path / "s.sqlite3") as db:
        await _history(db, rng, posts=rng.randint(3, 40), members=rng.randint(1, 8))
        expected = await _reference(db)
        board = await chat_board(db, 1, "all", START + 100 * DAY, UTC, top=50)
        assert _board_values(board) == expected, "nothing folded yet: all from the history"
        async with db.transaction() as connection:
            folded = await fold_revealed(connection, 1)
        assert folded >= 0
        board = await chat_board(db, 1, "all", START + 100 * DAY, UTC, top=50)
        assert _board_values(board) == expected, "folded prefix + the posts after it"
        async with db.transaction() as connection:
            assert await fold_revealed(connection, 1) == 0, "folding again finds nothing new"


async def test_a_fold_stops_at_the_first_open_post_and_resumes_after_its_reveal(tmp_path) -> None:
    async with await Database.open(tmp_path / "s.sqlite3") as db:
        await _history(db, random.Random(5), posts=12, members=5)
        async with db.transaction() as connection:
            await connection.execute("UPDATE daily_posts SET state = 'revealed' WHERE id < 11")
            await connection.execute("UPDATE daily_posts SET state = 'sent' WHERE id = 4")
            assert await fold_revealed(connection, 1) == 3
        async with db.transaction() as connection:
            await connection.execute("UPDATE daily_posts SET state = 'revealed' WHERE id = 4")
            assert await fold_revealed(connection, 1) == 7, "posts 4-10; 11 and 12 are still open"
        board = await chat_board(db, 1, "all", START + 100 * DAY, UTC, top=50)
        assert _board_values(board) == await _reference(db)


async def test_the_reveal_folds_and_forget_removes_the_member_totals(tmp_path) -> None:
    async with await Database.open(tmp_path / "s.sqlite3") as db:
        await _history(db, random.Random(9), posts=10, members=6)
        async with db.transaction() as connection:
            await connection.execute("UPDATE daily_posts SET state = 'sent' WHERE state != 'failed'")
        for post in range(1, 11):  # each reveal, as the daily service records it, folds what it settled
            await mark_post(db, post, "revealed", START + 100 * DAY)
        assert (await db.fetch_one("SELECT post_id FROM board_folds WHERE chat_id = 1"))[0] == 10
        assert (await db.fetch_one("SELECT count(*) FROM board_totals WHERE user_id = 2"))[0] == 1
        await forget_user(db, 2)
        assert (await db.fetch_one("SELECT count(*) FROM board_totals WHERE user_id = 2"))[0] == 0
        board = await chat_board(db, 1, "all", START + 100 * DAY, UTC, top=50)
        assert 2 not in _board_values(board) and _board_values(board) == await _reference(db)


async def test_group_weeks_follow_the_utc_week_of_each_post(tmp_path) -> None:
    async with await Database.open(tmp_path / "s.sqlite3") as db:
        await _history(db, random.Random(3), posts=30, members=6)
        async with db.transaction() as connection:
            await connection.execute("UPDATE daily_posts SET state = 'revealed' WHERE state != 'failed'")
            await fold_revealed(connection, 1)
        for week in {utc_week_start(START + post * DAY / 3) for post in range(1, 31)}:
            [(active, points)] = await db.fetch_all(
                """SELECT count(DISTINCT a.user_id), coalesce(sum(a.points), 0) FROM asked_questions q
                   JOIN answers a ON a.asked_id = q.id WHERE q.asked_at >= ? AND q.asked_at < ?""",
                (week, week + 7 * DAY))
            rows = await groups_board(db, week + DAY, minimum=1)
            assert [(row.active, row.points) for row in rows] == ([(active, points)] if active else [])
