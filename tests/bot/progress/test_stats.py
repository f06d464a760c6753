"""Progress over all answers, interview history, the weekly chart and their neutral messages."""

from __future__ import annotations

import io
import struct
from collections import Counter
from datetime import date, datetime, timezone

import matplotlib.image
import pytest

from bot.bank.loader import Bank
from bot.schedule.clock import ManualClock
from bot.domain import LETTERS, Breakdown, ChatRef, InterviewFilters, RecordedAnswer, UserRef
from bot.core import Core
from bot.asking.delivery import Delivery
from tests.fakes import click
from bot.text.messages import Table
from bot.text.plaintext import render_plain
from bot.progress.chart import progress_chart_png
from bot.progress.stats import Progress, history, user_progress, week_of as week_start
from bot.progress.view import history_message, progress_message
from bot.review.view import review_status_message
from bot.review.cards import DAY_S
from bot.store import Database
from bot.store import interviews as records
from bot.store.people import ensure_chat, ensure_user
from bot.tokens import answer_token

ALICE = UserRef("test", "alice", "Alice", "en")
BOB = UserRef("test", "bob", "Bob", "tr")
DM = ChatRef("test", "dm-alice")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MONDAY = datetime(2026, 6, 1, tzinfo=timezone.utc).timestamp()  # a Monday, 00:00 UTC


def letter_for(delivery: Delivery, right: bool) -> str:
    correct = delivery.question.correct_index
    return next(LETTERS[p] for p, i in enumerate(delivery.asked.option_order) if (i == correct) == right)


async def run_interview(core: Core, clock: ManualClock, pattern: str, user: UserRef = ALICE,
                        seconds: float = 4.0, **filters) -> list[tuple[str, bool]]:
    """Answer an interview by `pattern` ('r' right, 'w' wrong, 't' time out, '.' stop); (question, right)."""
    filters.setdefault("count", len(pattern.rstrip(".")))
    limit = 30 if "t" in pattern else None
    engine, chat = core.engine, ChatRef("test", f"dm-{user.platform_id}")
    delivery = await engine.start(await core.caller(user, chat),
                                  InterviewFilters(time_limit_s=limit, **filters))
    answered = []
    for step in pattern:
        if step == ".":
            await engine.stop(await core.caller(user))
            break
        if step == "t":
            clock.advance(31)
            [result] = await engine.expire_overdue({"test"})
        else:
            clock.advance(seconds)
            token = answer_token(delivery.asked.id, letter_for(delivery, step == "r"))
            result = (await click(core, user, chat, token)).result
        answered.append((delivery.question.id, step == "r"))
        delivery = result.next
    return answered


def expected_tally(bank: Bank, answered: list[tuple[str, bool]], key) -> dict:
    right, total = Counter(), Counter()
    for question_id, correct in answered:
        name = key(bank.questions[question_id])
        total[name] += 1
        right[name] += correct
    return {name: Breakdown(right[name], total[name]) for name in total}


# --- progress --------------------------------------------------------------------------------------

async def test_progress_counts_every_interview_answer(core: Core, db: Database, bank: Bank,
                                                      clock: ManualClock) -> None:
    answered = await run_interview(core, clock, "rwrw")
    answered += await run_interview(core, clock, "rtw")
    await run_interview(core, clock, "wrw", user=BOB)
    alice = (await ensure_user(db, ALICE, clock.now())).id
    progress = await user_progress(db, bank, alice)
    assert (progress.answered, progress.right, progress.timed_out) == (7, 3, 1)
    assert progress.accuracy == pytest.approx(3 / 7)
    assert progress.by_topic == expected_tally(bank, answered, lambda question: question.topic)
    assert progress.by_difficulty == expected_tally(bank, answered, lambda question: question.difficulty)
    assert progress.weeks == [week_start(clock.now())]
    assert {topic: series[week_start(clock.now())] for topic, series in progress.weekly.items()} == progress.by_topic


async def test_a_stopped_interview_counts_only_what_was_answered(core: Core, db: Database,
                                                                 bank: Bank, clock: ManualClock) -> None:
    await run_interview(core, clock, "rr.", count=4)
    alice = (await ensure_user(db, ALICE, clock.now())).id
    assert (await user_progress(db, bank, alice)).answered == 2


async def answer_at(db: Database, bank: Bank, user_id: int, chat_id: int, question_id: str, when: float,
                    outcome: str) -> None:
    """A daily-question answer (no interview) at `when`: 'r' right, 'w' wrong, 't' timed out."""
    question = bank.questions[question_id]
    wrong = next(i for i in range(len(question.options)) if i != question.correct_index)
    order = tuple(range(len(question.options)))
    asked = await records.ask(db, question_id, chat_id, None, 0, order, when - 60, None)
    chosen = {"r": question.correct_index, "w": wrong, "t": None}[outcome]
    async with db.transaction() as connection:
        await records.insert_answer(connection, RecordedAnswer(asked.id, user_id, chosen, outcome == "r",
                                                               None if chosen is None else 60_000, when))


async def a_month_of_answers(db: Database, bank: Bank, clock: ManualClock) -> int:
    """30 days from a Monday: sync-basics (fx-001) wrong for two weeks then right; leakage-basics
    (fx-101) right except a timeout every Sunday."""
    alice = (await ensure_user(db, ALICE, clock.now())).id
    chat = (await ensure_chat(db, DM, clock.now())).id
    for day in range(30):
        noon = MONDAY + day * DAY_S + 12 * 3600
        await answer_at(db, bank, alice, chat, "fx-001", noon, "r" if day >= 14 else "w")
        await answer_at(db, bank, alice, chat, "fx-101", noon + 60, "t" if day % 7 == 6 else "r")
    return alice


async def test_a_month_of_daily_answers_makes_a_weekly_series(db: Database, bank: Bank, clock: ManualClock) -> None:
    alice = await a_month_of_answers(db, bank, clock)
    progress = await user_progress(db, bank, alice)
    weeks = [date(2026, 6, 1), date(2026, 6, 8), date(2026, 6, 15), date(2026, 6, 22), date(2026, 6, 29)]
    assert progress.weeks == weeks
    assert progress.weekly["sync-basics"] == dict(zip(weeks, [Breakdown(0, 7), Breakdown(0, 7), Breakdown(7, 7),
                                                              Breakdown(7, 7), Breakdown(2, 2)]))
    assert progress.weekly["leakage-basics"] == dict(zip(weeks, [Breakdown(6, 7)] * 4 + [Breakdown(2, 2)]))
    assert [progress.answers_in(week) for week in weeks] == [14, 14, 14, 14, 4]
    assert (progress.answered, progress.right, progress.timed_out) == (60, 16 + 26, 4)
    assert progress.by_difficulty == {1: Breakdown(42, 60)}


async def test_answers_to_questions_gone_from_the_bank_are_left_out(db: Database, bank: Bank,
                                                                    clock: ManualClock) -> None:
    alice = (await ensure_user(db, ALICE, clock.now())).id
    chat = (await ensure_chat(db, DM, clock.now())).id
    await answer_at(db, bank, alice, chat, "fx-002", clock.now(), "r")
    gone = await records.ask(db, "removed-question", chat, None, 0, (0, 1), clock.now(), None)
    async with db.transaction() as connection:
        await records.insert_answer(connection, RecordedAnswer(gone.id, alice, 0, True, 1000, clock.now()))
    progress = await user_progress(db, bank, alice)
    assert (progress.answered, list(progress.by_topic)) == (1, ["sync-basics"])


async def test_no_answers_is_an_empty_progress(db: Database, bank: Bank, clock: ManualClock) -> None:
    alice = (await ensure_user(db, ALICE, clock.now())).id
    progress = await user_progress(db, bank, alice)
    assert progress == Progress(0, 0, 0) and progress.accuracy == 0.0 and progress.weeks == []


# --- history ---------------------------------------------------------------------------------------

async def test_history_lists_interviews_newest_first(core: Core, db: Database, bank: Bank,
                                                     clock: ManualClock) -> None:
    first = await run_interview(core, clock, "rwr", seconds=2.0)
    clock.advance(DAY_S)
    second = await run_interview(core, clock, "r.", seconds=10.0, count=3, topics=("leakage-basics",))
    clock.advance(DAY_S)
    await run_interview(core, clock, "ww")
    async with db.transaction() as connection:
        await connection.execute("UPDATE interviews SET kind = 'review' WHERE id = (SELECT max(id) FROM interviews)")
    alice = (await ensure_user(db, ALICE, clock.now())).id

    newest, middle, oldest = await history(db, bank, alice)
    assert newest.started_at > middle.started_at > oldest.started_at
    assert (newest.kind, newest.status, newest.score, newest.total) == ("review", "finished", 0, 2)
    # stopped on its second question: only the answered one counts (the one on screen was never answered)
    assert (middle.kind, middle.status, middle.score, middle.total) == ("interview", "stopped", 1, 1)
    assert middle.topics == ("leakage-basics",) and middle.total_time_ms == 10_000
    assert (oldest.status, oldest.score, oldest.total, oldest.total_time_ms) == ("finished", 2, 3, 6_000)
    assert set(oldest.topics) == {bank.questions[qid].topic for qid, _ in first}
    assert middle.started_at - oldest.started_at == pytest.approx(DAY_S + 3 * 2.0)
    assert [s.interview_id for s in await history(db, bank, alice, limit=2)] == [newest.interview_id,
                                                                                  middle.interview_id]
    assert len(second) == 1
    bob = (await ensure_user(db, BOB, clock.now())).id
    assert await history(db, bank, bob) == []


# --- the chart -------------------------------------------------------------------------------------

def png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(PNG_SIGNATURE) and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


async def test_the_chart_is_a_small_png(db: Database, bank: Bank, clock: ManualClock) -> None:
    progress = await user_progress(db, bank, await a_month_of_answers(db, bank, clock))
    for language in ("en", "tr"):
        png = progress_chart_png(progress, language, {"sync-basics": "Senkronizasyon"})
        assert png_size(png) == (800, 450)
        assert 5_000 < len(png) < 200_000
        pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
        assert pixels.shape[:2] == (450, 800)
        assert pixels[..., :3].std() > 0.05, "something is drawn"


def test_the_chart_draws_a_single_week() -> None:
    progress = Progress(1, 1, 0, {"t": Breakdown(1, 1)}, {1: Breakdown(1, 1)},
                        {"t": {date(2026, 6, 1): Breakdown(1, 1)}})
    assert png_size(progress_chart_png(progress, "en")) == (800, 450)


# --- messages --------------------------------------------------------------------------------------

async def test_progress_message_summarises_in_the_users_language(db: Database, bank: Bank,
                                                                 clock: ManualClock) -> None:
    progress = await user_progress(db, bank, await a_month_of_answers(db, bank, clock))
    message = progress_message(bank, progress, "en")
    text = render_plain(message)
    assert "Answered 60, right 42 (70%)." in text and "4 of them ran out of time" in text
    topics, difficulties = [block for block in message.blocks if isinstance(block, Table)]
    assert topics.header == ("Topic", "Answered", "Right")
    assert topics.rows == (("Leakage basics (test fixture)", "30", "87%"), ("Sync basics (test fixture)", "30", "53%"))
    assert difficulties.rows == (("easy", "60", "70%"),)
    assert message.image is not None and message.image.startswith(PNG_SIGNATURE)
    turkish = render_plain(progress_message(bank, progress, "tr"))
    assert "60 soru cevapladın, 42 tanesi doğru (%70)." in turkish and "Sızıntı temelleri" in turkish
    assert "%87" in turkish and "kolay" in turkish


def test_progress_message_without_answers_invites_an_interview(bank: Bank) -> None:
    for language in ("en", "tr"):
        message = progress_message(bank, Progress(0, 0, 0), language)
        assert message.image is None and "/interview" in render_plain(message)
        assert not any(isinstance(block, Table) for block in message.blocks)


async def test_history_message_is_a_table(core: Core, db: Database, bank: Bank,
                                          clock: ManualClock) -> None:
    await run_interview(core, clock, "rw", seconds=40.0, topics=("sync-basics",))
    await run_interview(core, clock, "r.", count=2, topics=("leakage-basics",))
    alice = (await ensure_user(db, ALICE, clock.now())).id
    message = history_message(bank, await history(db, bank, alice), "en")
    [table] = [block for block in message.blocks if isinstance(block, Table)]
    today = datetime.fromtimestamp(clock.now(), tz=timezone.utc).strftime("%Y-%m-%d")
    assert table.header == ("Date", "Kind", "Topics", "Score", "Time")
    assert table.rows == (
        (today, "Interview (stopped)", "Leakage basics (test fixture)", "1/1 (100%)", "4 s"),
        (today, "Interview", "Sync basics (test fixture)", "1/2 (50%)", "1 min 20 s"),
    )
    turkish = history_message(bank, await history(db, bank, alice), "tr")
    assert "1 dk 20 sn" in render_plain(turkish) and "yarıda bırakıldı" in render_plain(turkish)
    empty = history_message(bank, [], "tr")
    assert render_plain(empty) == "Henüz mülakatın yok. /interview ile bir tane başlat."  # each platform's command


def test_review_status_says_what_comes_next() -> None:
    june_3 = datetime(2026, 6, 3, 9, tzinfo=timezone.utc).timestamp()
    assert "2026-06-03" in render_plain(review_status_message(0, june_3, "en"))
    assert "2026-06-03" in render_plain(review_status_message(0, june_3, "tr"))
    assert "No missed questions yet" in render_plain(review_status_message(0, None, "en"))
    assert "3" in render_plain(review_status_message(3, june_3, "en"))
    assert render_plain(review_status_message(0, None, "tr")) != render_plain(review_status_message(0, june_3, "tr"))


async def test_a_chart_is_drawn_once_until_its_owner_answers_again(core: Core, clock, monkeypatch) -> None:
    import bot.progress.service as service

    drawn = []

    async def draw(progress, language, labels):
        drawn.append(progress.answered)
        return b"\x89PNG fake"

    monkeypatch.setattr(service, "draw_progress_chart", draw)
    await run_interview(core, clock, "rw")
    await core.progress(ALICE)
    await core.progress(ALICE)
    assert drawn == [2]
    await run_interview(core, clock, "r")
    await core.progress(ALICE)
    assert drawn == [2, 3]
