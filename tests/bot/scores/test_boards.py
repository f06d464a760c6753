"""Boards and streaks over a generated month of daily questions and answers."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.core import Core
from bot.schedule.clock import ManualClock
from bot.store import Database
from bot.domain import LETTERS, ChatRef, UserRef
from bot.scores.boards import chat_board, groups_board, streaks
from bot.store.people import find_chat
from bot.tokens import answer_token
from tests.fakes import RecordingPort, click

TZ = "Europe/Istanbul"
GROUP = ChatRef("test", "g", "group", "Group")


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(TZ)).timestamp()


def test_streak_rules() -> None:
    posts = [(1, False), (2, False), (3, False), (4, False), (5, True)]
    assert streaks(posts, {1: True, 2: True, 3: False, 4: True}) == (1, 2)
    assert streaks(posts, {1: True, 2: True, 3: True, 4: True}) == (4, 4), "an open unanswered post keeps the run"
    assert streaks(posts, {2: True, 3: True, 4: True, 5: True}) == (4, 4)
    assert streaks(posts, {1: True, 3: True}) == (0, 1), "a missed post breaks the run"


async def _month(db, bank, clock, members: int = 14):
    """30 days of posts at 09:00; member i answers right on days where (day + i) % (i + 2) != 0, after i+1 s."""
    port = RecordingPort()
    core = Core(db, bank, clock, random.Random(1), scheduled=False)
    core.add_port(port)
    daily = core.daily
    clock.set(at("2026-06-01 08:00"))
    await core.subscribe(GROUP, "09:00", TZ)
    expected: dict[str, dict] = {f"m{i}": {"points": 0, "right": 0, "answered": 0, "ms": 0} for i in range(members)}
    for day in range(30):
        clock.set(at("2026-06-01 09:00") + day * 86400)
        await daily.run_due()
        message = port.sent[-1][1]
        token = message.buttons[0][0].token
        asked_id = int(token.split(":")[1])
        row = await db.fetch_one("SELECT question_id, option_order FROM asked_questions WHERE id = ?", (asked_id,))
        question = bank.questions[row["question_id"]]
        order = [int(c) for c in row["option_order"]]
        right = LETTERS[order.index(question.correct_index)]
        wrong = LETTERS[next(p for p, i in enumerate(order) if i != question.correct_index)]
        for i in range(members):
            if day % 7 == 6 and i % 2:  # odd members skip every seventh day
                continue
            correct = (day + i) % (i + 2) != 0
            clock.set(at("2026-06-01 09:00") + day * 86400 + i + 1)
            await click(core, UserRef("test", f"m{i}", f"M{i}"), GROUP, answer_token(asked_id, right if correct else wrong))
            cell = expected[f"m{i}"]
            cell["answered"] += 1
            cell["right"] += correct
            cell["points"] += question.difficulty if correct else 0
            cell["ms"] += (i + 1) * 1000
    clock.set(at("2026-06-30 23:00"))
    await daily.run_due()
    return expected


@pytest.fixture(scope="module")
def months(tmp_path_factory, bank) -> dict[int, tuple[Path, dict]]:
    """The generated months, built once per module (each is 420 clicks) and copied for every test."""
    built: dict[int, tuple[Path, dict]] = {}

    async def build(members: int) -> tuple[Path, dict]:
        path = tmp_path_factory.mktemp("month") / f"{members}.sqlite3"
        database = await Database.open(path)
        try:
            expected = await _month(database, bank, ManualClock(), members)
        finally:
            await database.close()  # checkpointed into the one file, which can be copied
        return path, expected

    for members in (14, 3):
        built[members] = asyncio.run(build(members))
    return built


@pytest.fixture
async def month(request, months, tmp_path, clock):
    """A copy of a generated month (14 members, or `@pytest.mark.parametrize("month", [3], indirect=True)`)."""
    members = getattr(request, "param", 14)
    template, expected = months[members]
    path = tmp_path / "month.sqlite3"
    shutil.copyfile(template, path)
    database = await Database.open(path)
    clock.set(at("2026-06-30 23:00"))
    yield database, expected
    await database.close()


async def test_all_time_board_matches_a_generated_month(month, clock) -> None:
    db, expected = month
    chat = await find_chat(db, "test", "g")
    board = await chat_board(db, chat.id, "all", clock.now(), ZoneInfo(TZ), user_id=None)
    assert board.members == 14 and len(board.rows) == 10
    for row in board.rows:
        cell = expected[row.name.lower()]
        assert (row.points, row.right, row.answered) == (cell["points"], cell["right"], cell["answered"])
    ordering = [(-r.points, r.time_ms) for r in board.rows]
    assert ordering == sorted(ordering), "points descending, ties broken by less total time"
    assert [r.rank for r in board.rows] == list(range(1, 11))
    top = sorted(expected.items(), key=lambda kv: (-kv[1]["points"], kv[1]["ms"]))
    assert board.rows[0].name == top[0][0].replace("m", "M")


async def test_caller_outside_the_top_ten_sees_their_rank(month, clock) -> None:
    db, expected = month
    chat = await find_chat(db, "test", "g")
    last_name = sorted(expected.items(), key=lambda kv: (-kv[1]["points"], kv[1]["ms"]))[-1][0]
    user = await db.fetch_one("SELECT id FROM users WHERE platform_user_id = ?", (last_name,))
    board = await chat_board(db, chat.id, "all", clock.now(), ZoneInfo(TZ), user_id=user["id"])
    assert board.me is not None and board.me.rank == 14 and board.me.user_id == user["id"]


async def test_week_and_month_boards_use_the_chat_timezone(month, clock) -> None:
    db, _ = month
    chat = await find_chat(db, "test", "g")
    clock.set(at("2026-06-30 23:00"))  # a Tuesday; the week began Monday 29 June 00:00 Istanbul time
    week = await chat_board(db, chat.id, "week", clock.now(), ZoneInfo(TZ))
    assert max(row.answered for row in week.rows) == 2
    month = await chat_board(db, chat.id, "month", clock.now(), ZoneInfo(TZ))
    assert max(row.answered for row in month.rows) == 30
    clock.set(at("2026-07-01 00:30"))
    assert (await chat_board(db, chat.id, "month", clock.now(), ZoneInfo(TZ))).rows == ()


@pytest.mark.parametrize("month", [3], indirect=True)
async def test_streaks_over_the_month(month, clock) -> None:
    db, _ = month
    chat = await find_chat(db, "test", "g")
    board = await chat_board(db, chat.id, "all", clock.now(), ZoneInfo(TZ))
    by_name = {row.name: row for row in board.rows}
    # m0 is wrong on even days: no run longer than 1; m1 is wrong every third day (and skips day 6, 13, ...).
    assert by_name["M0"].best_streak == 1 and by_name["M0"].streak == 1  # day 29 is odd: right
    results = [(d + 2) % 4 != 0 for d in range(30)]
    best = run = 0
    for correct in results:
        run = run + 1 if correct else 0
        best = max(best, run)
    assert by_name["M2"].best_streak == best and by_name["M2"].streak == run


@pytest.mark.parametrize("minimum, expected_groups", [(3, 2), (5, 1)])
async def test_groups_board_ranks_by_mean_points_per_active_member(db, bank, clock, minimum, expected_groups) -> None:
    port = RecordingPort()
    core = Core(db, bank, clock, random.Random(2), scheduled=False)
    core.add_port(port)
    daily = core.daily
    clock.set(at("2026-06-03 08:00"))
    sizes = {"small": 3, "large": 6, "tiny": 2}
    for name in sizes:
        await core.subscribe(ChatRef("test", name, "group", name.title()), "09:00", TZ)
    clock.set(at("2026-06-03 09:00"))
    await daily.run_due()
    for chat_id, message in port.sent:
        token = message.buttons[0][0].token
        for i in range(sizes[chat_id]):
            try:
                await click(core, UserRef("test", f"{chat_id}{i}", f"{chat_id}{i}"), ChatRef("test", chat_id, "group"),
                            token)
            except Exception:
                pass
    assert await groups_board(db, clock.now(), minimum=minimum) == (), "a group's week counts from its reveal"
    clock.set(at("2026-06-03 22:00"))
    await daily.run_due()
    rows = await groups_board(db, clock.now(), minimum=minimum)
    assert len(rows) == expected_groups and all(row.active >= minimum for row in rows)
    means = [row.mean_points for row in rows]
    assert means == sorted(means, reverse=True)
