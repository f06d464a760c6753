"""The queries behind leaderboards, and the running totals that keep them from reading a chat's history.

A chat's posts are folded, oldest first, into per-member totals and streaks (board_totals) as they are
revealed; board_folds remembers the last post folded. A board then reads the folded rows plus the few
posts after them (the ones still open, and any revealed behind an open one), so its cost follows the
chat's members and its open posts, not the years of questions behind them. Each group's UTC week is one
row of group_weeks, refreshed at each fold, for the groups board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.store.database import Database, Transaction, placeholders

WEEK_S = 7 * 86_400
_THURSDAY_S = 3 * 86_400  # 1970-01-01 was a Thursday; weeks begin on the Monday before it
OPEN_STATES = ("pending", "sent", "unknown")  # a fold stops at the first post still in one of these
_CHUNK = 500  # ids per IN list


def utc_week_start(instant: float) -> float:
    """Monday 00:00 UTC of the week holding `instant` (the same rule as migration 7's SQL)."""
    return float((instant + _THURSDAY_S) // WEEK_S * WEEK_S - _THURSDAY_S)


@dataclass(frozen=True)
class MemberTotals:
    user_id: int
    name: str
    points: int
    answered: int
    right: int
    time_ms: int


_ORDER = "ORDER BY points DESC, time_ms ASC, user_id"


async def member_totals(db: Database, chat_id: int, since: float | None) -> list[MemberTotals]:
    """Daily-question answers in a chat since `since` (None: all time), per member, best first (ties: less
    total time). A period reads its own posts through the chat-and-time index; all time reads the folded
    totals plus the posts after the fold."""
    if since is not None:
        rows = await db.fetch_all(
            f"""SELECT t.*, u.name FROM (
                    SELECT a.user_id, sum(a.points) AS points, count(*) AS answered, sum(a.correct) AS correct,
                           sum(coalesce(a.latency_ms, 0)) AS time_ms
                    FROM asked_questions q JOIN answers a ON a.asked_id = q.id
                    WHERE q.interview_id IS NULL AND q.chat_id = ? AND q.asked_at >= ?
                    GROUP BY a.user_id) t
                JOIN users u ON u.id = t.user_id {_ORDER}""",
            (chat_id, since))
    else:
        rows = await db.fetch_all(
            f"""SELECT t.*, u.name FROM (
                    SELECT user_id, sum(points) AS points, sum(answered) AS answered, sum(correct) AS correct,
                           sum(time_ms) AS time_ms
                    FROM (SELECT user_id, points, answered, correct, time_ms FROM board_totals WHERE chat_id = ?
                          UNION ALL
                          SELECT a.user_id, a.points, 1, a.correct, coalesce(a.latency_ms, 0)
                          FROM daily_posts p JOIN answers a ON a.asked_id = p.asked_id
                          WHERE p.chat_id = ? AND p.id > coalesce((SELECT post_id FROM board_folds WHERE chat_id = ?), 0))
                         AS scored
                    GROUP BY user_id) t
                JOIN users u ON u.id = t.user_id {_ORDER}""",
            (chat_id, chat_id, chat_id))
    return [MemberTotals(r["user_id"], r["name"], r["points"], r["answered"], r["correct"], r["time_ms"])
            for r in rows]


@dataclass(frozen=True)
class StreakState:
    """Where members' streaks stand after the folded posts, and the chat's posts after them."""

    folded: dict[int, tuple[int, int]]  # user id -> (current, best) over the folded posts
    posts: list[tuple[int, bool]]  # (asked id, still open) after the fold, oldest first
    results: dict[int, dict[int, bool]]  # user id -> asked id -> answered right, over those posts


async def streak_state(db: Database, chat_id: int, user_ids: list[int]) -> StreakState:
    """The inputs of `user_ids`' streaks: their folded runs and their answers to the posts after the fold."""
    through = await _folded_through(db, chat_id)
    rows = await db.fetch_all(
        "SELECT asked_id, state FROM daily_posts WHERE chat_id = ? AND id > ? AND state IN ('sent', 'unknown', 'revealed') "
        "ORDER BY id", (chat_id, through))
    posts = [(row["asked_id"], row["state"] != "revealed") for row in rows]
    folded: dict[int, tuple[int, int]] = {}
    results: dict[int, dict[int, bool]] = {}
    if not user_ids:
        return StreakState(folded, posts, results)
    for row in await db.fetch_all(
            f"SELECT user_id, streak, best_streak FROM board_totals WHERE chat_id = ? AND user_id IN ({placeholders(user_ids)})",
            (chat_id, *user_ids)):
        folded[row["user_id"]] = (row["streak"], row["best_streak"])
    if posts:
        for row in await db.fetch_all(
                f"""SELECT a.user_id, a.asked_id, a.correct FROM daily_posts p JOIN answers a ON a.asked_id = p.asked_id
                    WHERE p.chat_id = ? AND p.id > ? AND a.user_id IN ({placeholders(user_ids)})""",
                (chat_id, through, *user_ids)):
            results.setdefault(row["user_id"], {})[row["asked_id"]] = bool(row["correct"])
    return StreakState(folded, posts, results)


async def _folded_through(db: Database, chat_id: int) -> int:
    row = await db.fetch_one("SELECT post_id FROM board_folds WHERE chat_id = ?", (chat_id,))
    return int(row["post_id"]) if row else 0


@dataclass
class _Running:
    points: int = 0
    answered: int = 0
    correct: int = 0
    time_ms: int = 0
    streak: int = 0
    best_streak: int = 0


async def fold_revealed(connection: Transaction, chat_id: int) -> int:
    """Inside a write transaction: fold the chat's revealed posts into its members' running totals and
    streaks, in post order, up to its first post still open; refresh the weeks they fall in. Returns the
    number of posts folded (after an upgrade the first reveal folds the whole history once).
    A read-modify-write of the chat's totals: the chat's key lock (PostgreSQL) lets one fold, or one quiz
    round's addition, at a time move them; the next one reads what it left."""
    await connection.lock("chat", [chat_id])
    prefix = await _foldable_prefix(connection, chat_id)
    if not prefix:
        return 0
    revealed = [(asked_id, asked_at) for _, asked_id, state, asked_at in prefix if state == "revealed"]
    answers = await _answers_of(connection, [asked_id for asked_id, _ in revealed])
    members = {row["user_id"]: _Running(*row[1:]) for row in await connection.fetch_all(
        "SELECT user_id, points, answered, correct, time_ms, streak, best_streak FROM board_totals WHERE chat_id = ?",
        (chat_id,))}
    changed: set[int] = set()
    for asked_id, _ in revealed:
        _fold_post(members, answers.get(asked_id, {}), changed)
    await connection.executemany(
        """INSERT INTO board_totals (chat_id, user_id, points, answered, correct, time_ms, streak, best_streak)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (chat_id, user_id) DO UPDATE SET points = excluded.points, answered = excluded.answered,
               correct = excluded.correct, time_ms = excluded.time_ms, streak = excluded.streak,
               best_streak = excluded.best_streak""",
        [(chat_id, user, m.points, m.answered, m.correct, m.time_ms, m.streak, m.best_streak)
         for user, m in ((user, members[user]) for user in sorted(changed))])
    await connection.execute(
        "INSERT INTO board_folds (chat_id, post_id) VALUES (?, ?) "
        "ON CONFLICT (chat_id) DO UPDATE SET post_id = excluded.post_id", (chat_id, prefix[-1][0]))
    for week in sorted({utc_week_start(asked_at) for _, asked_at in revealed}):
        await refresh_group_week(connection, chat_id, week)
    return len(prefix)


async def _foldable_prefix(connection: Transaction, chat_id: int) -> list[tuple[int, int, str, float]]:
    """(post id, asked id, state, asked at) of the posts after the fold, up to the first one still open."""
    rows = await connection.fetch_all(
        """SELECT p.id, p.asked_id, p.state, q.asked_at FROM daily_posts p JOIN asked_questions q ON q.id = p.asked_id
           WHERE p.chat_id = ? AND p.id > coalesce((SELECT post_id FROM board_folds WHERE chat_id = ?), 0)
           ORDER BY p.id""", (chat_id, chat_id))
    prefix = []
    for row in rows:
        if row["state"] in OPEN_STATES:
            break
        prefix.append((row["id"], row["asked_id"], row["state"], row["asked_at"]))
    return prefix


async def _answers_of(connection: Transaction, asked_ids: list[int]) -> dict[int, dict[int, tuple[Any, ...]]]:
    """asked id -> user id -> (correct, points, latency ms)."""
    answers: dict[int, dict[int, tuple[Any, ...]]] = {}
    for start in range(0, len(asked_ids), _CHUNK):
        chunk = asked_ids[start:start + _CHUNK]
        for row in await connection.fetch_all(
                f"SELECT asked_id, user_id, correct, points, latency_ms FROM answers WHERE asked_id IN ({placeholders(chunk)})",
                chunk):
            answers.setdefault(row[0], {})[row[1]] = (bool(row[2]), int(row[3]), int(row[4] or 0))
    return answers


def _fold_post(members: dict[int, _Running], answered: dict[int, tuple[Any, ...]], changed: set[int]) -> None:
    """One revealed post: its answers add to totals; a right answer extends a run, anything else ends it."""
    for user, (correct, points, latency_ms) in answered.items():
        member = members.setdefault(user, _Running())
        member.points += points
        member.answered += 1
        member.correct += int(correct)
        member.time_ms += latency_ms
        member.streak = member.streak + 1 if correct else 0
        member.best_streak = max(member.best_streak, member.streak)
        changed.add(user)
    for user, member in members.items():
        if member.streak and user not in answered:
            member.streak = 0
            changed.add(user)


async def refresh_group_week(connection: Transaction, chat_id: int, week_start: float) -> None:
    """Recount one group's week (members who answered, their points) from its own posts of that week."""
    await connection.execute(
        """INSERT INTO group_weeks (week_start, chat_id, active, points)
           SELECT CAST(? AS DOUBLE PRECISION), CAST(? AS INTEGER), count(DISTINCT a.user_id), coalesce(sum(a.points), 0)
           FROM asked_questions q JOIN answers a ON a.asked_id = q.id
           WHERE q.interview_id IS NULL AND q.chat_id = ? AND q.asked_at >= ? AND q.asked_at < ?
           ON CONFLICT (week_start, chat_id) DO UPDATE SET active = excluded.active, points = excluded.points""",
        (week_start, chat_id, chat_id, week_start, week_start + WEEK_S))


async def forget_member(connection: Transaction, user_id: int) -> None:
    """Inside /forget's transaction: the person's running totals go with their answers."""
    await connection.execute("DELETE FROM board_totals WHERE user_id = ?", (user_id,))


@dataclass(frozen=True)
class GroupTotals:
    chat_id: int
    platform: str
    title: str
    active: int
    points: int


async def group_totals(db: Database, week_start: float, minimum: int) -> list[GroupTotals]:
    """Per group chat in the UTC week from `week_start`, as of each group's last reveal: members who
    answered at least once (at least `minimum`) and their points."""
    rows = await db.fetch_all(
        """SELECT g.chat_id, c.platform, c.title, g.active, g.points
           FROM group_weeks g JOIN chats c ON c.id = g.chat_id
           WHERE g.week_start = ? AND g.active >= ? AND c.kind != 'private'""",
        (week_start, minimum),
    )
    return [GroupTotals(r["chat_id"], r["platform"], r["title"], r["active"], r["points"]) for r in rows]

