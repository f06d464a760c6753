"""Points, streaks and boards: per chat for a week, a month or all time, and groups against each other.

Points: the question's difficulty (1-3) for a right first answer to a daily question, recorded with
the answer. Ties break on total answer time. A streak is the run of a chat's daily questions a
member answered right; a post still open that the member has not answered yet does not break it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal
from zoneinfo import ZoneInfo

from bot.schedule.localtime import month_start, week_start
from bot.store import scores
from bot.store.database import Database

Period = Literal["week", "month", "all"]
PERIODS: tuple[Period, ...] = ("week", "month", "all")
MIN_ACTIVE_MEMBERS = 3


@dataclass(frozen=True)
class BoardRow(scores.MemberTotals):
    """A member's totals with their place on the board and their streaks."""

    rank: int = 0
    streak: int = 0
    best_streak: int = 0

    @property
    def accuracy(self) -> float:
        return self.right / self.answered if self.answered else 0.0


@dataclass(frozen=True)
class Board:
    period: Period
    rows: tuple[BoardRow, ...]
    me: BoardRow | None  # the caller's row when outside the rows shown
    members: int


def streaks(posts: list[tuple[int, bool]], results: dict[int, bool], start: tuple[int, int] = (0, 0)) -> tuple[int, int]:
    """(current, best) run of right answers over a chat's posts, oldest first, carrying on from `start`
    (the run and best over the posts before them)."""
    run, best = start
    for asked_id, still_open in posts:
        if asked_id not in results:
            if still_open:
                continue
            run = 0
        elif results[asked_id]:
            run += 1
            best = max(best, run)
        else:
            run = 0
    return run, best


def period_start(period: Period, now: float, tz: ZoneInfo) -> float | None:
    if period == "week":
        return week_start(now, tz)
    if period == "month":
        return month_start(now, tz)
    return None


async def chat_board(db: Database, chat_id: int, period: Period, now: float, tz: ZoneInfo,
                     user_id: int | None = None, top: int = 10) -> Board:
    """The chat's board for a period in its own timezone; the caller's row too when outside the top."""
    totals = await scores.member_totals(db, chat_id, period_start(period, now, tz))
    shown = totals[:top]
    caller = next((i for i, t in enumerate(totals) if t.user_id == user_id), None)
    wanted = [t.user_id for t in shown] + ([user_id] if caller is not None and caller >= top else [])
    state = await scores.streak_state(db, chat_id, wanted)

    def row(rank: int, totals_row: scores.MemberTotals) -> BoardRow:
        user = totals_row.user_id
        current, best = streaks(state.posts, state.results.get(user, {}), state.folded.get(user, (0, 0)))
        return BoardRow(**asdict(totals_row), rank=rank, streak=current, best_streak=best)

    rows = tuple(row(i + 1, t) for i, t in enumerate(shown))
    me = row(caller + 1, totals[caller]) if caller is not None and caller >= top else None
    return Board(period, rows, me, len(totals))


@dataclass(frozen=True)
class GroupRow:
    rank: int
    chat_id: int
    platform: str
    title: str
    active: int
    points: int

    @property
    def mean_points(self) -> float:
        return self.points / self.active if self.active else 0.0


async def groups_board(db: Database, now: float, minimum: int = MIN_ACTIVE_MEMBERS, top: int = 10) -> tuple[GroupRow, ...]:
    """Groups ranked by mean points per active member this week (UTC Monday on), as of each group's last
    reveal: one stored row per group, so the board costs the same in the hundredth week as in the first."""
    eligible = await scores.group_totals(db, scores.utc_week_start(now), minimum)
    eligible.sort(key=lambda g: (-g.points / g.active, -g.active, g.chat_id))
    return tuple(GroupRow(i + 1, g.chat_id, g.platform, g.title, g.active, g.points)
                 for i, g in enumerate(eligible[:top]))
