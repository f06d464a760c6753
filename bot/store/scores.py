"""The queries behind leaderboards: points per member in a chat since an instant, streak inputs, groups."""

from __future__ import annotations

from dataclasses import dataclass

from bot.store.database import Database, placeholders


@dataclass(frozen=True)
class MemberTotals:
    user_id: int
    name: str
    points: int
    answered: int
    right: int
    time_ms: int


async def member_totals(db: Database, chat_id: int, since: float | None) -> list[MemberTotals]:
    """Daily-question answers in a chat since `since`, per member, best first (ties: less total time)."""
    rows = await db.fetch_all(
        """SELECT a.user_id, u.name, sum(a.points) AS points, count(*) AS answered, sum(a.correct) AS right,
                  sum(coalesce(a.latency_ms, 0)) AS time_ms
           FROM asked_questions q
           JOIN answers a ON a.asked_id = q.id
           JOIN users u ON u.id = a.user_id
           WHERE q.chat_id = ? AND q.interview_id IS NULL AND q.asked_at >= ?
           GROUP BY a.user_id ORDER BY points DESC, time_ms ASC, a.user_id""",
        (chat_id, since if since is not None else float("-inf")),
    )
    return [MemberTotals(r["user_id"], r["name"], r["points"], r["answered"], r["right"], r["time_ms"]) for r in rows]


async def chat_posts(db: Database, chat_id: int) -> list[tuple[int, bool]]:
    """The chat's daily posts in order: (asked id, still open)."""
    rows = await db.fetch_all(
        """SELECT p.asked_id, p.state FROM daily_posts p
           WHERE p.chat_id = ? AND p.state IN ('sent', 'unknown', 'revealed') ORDER BY p.id""",
        (chat_id,),
    )
    return [(row["asked_id"], row["state"] != "revealed") for row in rows]


async def chat_results(db: Database, chat_id: int, user_ids: list[int] | None = None) -> dict[int, dict[int, bool]]:
    """Per member: asked id -> answered right, over the chat's daily posts."""
    sql = """SELECT a.user_id, a.asked_id, a.correct FROM daily_posts p JOIN answers a ON a.asked_id = p.asked_id
             WHERE p.chat_id = ?"""
    parameters: list = [chat_id]
    if user_ids is not None:
        sql += f" AND a.user_id IN ({placeholders(user_ids)})"
        parameters += user_ids
    results: dict[int, dict[int, bool]] = {}
    for row in await db.fetch_all(sql, parameters):
        results.setdefault(row["user_id"], {})[row["asked_id"]] = bool(row["correct"])
    return results


@dataclass(frozen=True)
class GroupTotals:
    chat_id: int
    platform: str
    title: str
    active: int
    points: int


async def group_totals(db: Database, since: float) -> list[GroupTotals]:
    """Per group chat since `since`: members who answered at least once, and their points."""
    rows = await db.fetch_all(
        """SELECT q.chat_id, c.platform, c.title, count(DISTINCT a.user_id) AS active, sum(a.points) AS points
           FROM asked_questions q
           JOIN answers a ON a.asked_id = q.id
           JOIN chats c ON c.id = q.chat_id
           WHERE q.interview_id IS NULL AND q.asked_at >= ? AND c.kind != 'private'
           GROUP BY q.chat_id""",
        (since,),
    )
    return [GroupTotals(r["chat_id"], r["platform"], r["title"], r["active"], r["points"]) for r in rows]
