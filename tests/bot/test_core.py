"""The core facade as adapters use it: clicks, deadlines through the port, review, progress, boards."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from bot.core import Core
from bot.domain import LETTERS, ChatRef, InterviewFilters, UserRef
from bot.errors import UserError
from bot.text.messages import Table
from bot.store.interviews import get_asked
from bot.store.learner import ItemStep, item_difficulties, log_steps
from bot.text.plaintext import render_plain
from tests.fakes import RecordingPort

ALICE = UserRef("test", "alice", "Alice", "en-GB")
DM = ChatRef("test", "alice", "private")


@pytest.fixture
async def core(db, bank, clock):
    core = Core(db, bank, clock, random.Random(5), scheduled=False)
    core.add_port(RecordingPort())
    return core


async def wrong_token(core: Core, asked_id: int) -> str:
    asked = await get_asked(core.db, asked_id)
    question = core.bank.questions[asked.question_id]
    position = next(p for p, i in enumerate(asked.option_order) if i != question.correct_index)
    return f"a:{asked_id}:{LETTERS[position]}"


async def test_click_edits_the_question_and_sends_the_next(core: Core) -> None:
    first = await core.start_interview(ALICE, DM, InterviewFilters(count=2))
    assert first.asked_id and first.message.buttons
    reply = await core.click(ALICE, DM, await wrong_token(core, first.asked_id))
    assert not reply.alert and reply.popup.startswith("❌")
    assert reply.edit is not None and not reply.edit.buttons and "Why" in render_plain(reply.edit)
    [next_question] = reply.follow_ups
    assert next_question.asked_id and next_question.message.buttons
    forged = await core.click(ALICE, DM, "a:1:z")
    assert forged.alert and forged.edit is None and forged.follow_ups == ()


async def test_deadline_edits_through_the_port_and_moves_on(core: Core, clock) -> None:
    first = await core.start_interview(ALICE, DM, InterviewFilters(count=2, time_limit_s=20))
    await core.posted(first.asked_id, "alice/1")
    clock.advance(21)
    await core.tick()
    port = core.ports["test"]
    [(chat, ref, edited)] = port.edits
    assert (chat, ref) == ("alice", "alice/1") and "Time is up" in render_plain(edited)
    assert len(port.sent) == 1 and port.sent[0][1].buttons


async def test_missed_questions_come_back_for_review(core: Core, clock) -> None:
    first = await core.start_interview(ALICE, DM, InterviewFilters(count=1))
    await core.click(ALICE, DM, await wrong_token(core, first.asked_id))
    nothing_yet = await core.review(ALICE, DM)
    assert nothing_yet.asked_id is None and nothing_yet.message.blocks
    clock.advance(86400 + 1)
    review = await core.review(ALICE, DM)
    assert review.asked_id is not None
    asked = await get_asked(core.db, review.asked_id)
    assert asked.question_id == (await get_asked(core.db, first.asked_id)).question_id


async def test_progress_has_a_chart_and_history_lists_interviews(core: Core) -> None:
    first = await core.start_interview(ALICE, DM, InterviewFilters(count=1))
    await core.click(ALICE, DM, await wrong_token(core, first.asked_id))
    progress = await core.progress(ALICE)
    assert progress.image is not None and progress.image.startswith(b"\x89PNG")
    history = await core.history(ALICE)
    assert any(isinstance(block, Table) for block in history.blocks)


async def test_language_choice_and_errors(core: Core) -> None:
    assert await core.language(ALICE, DM) == "en"
    assert await core.set_language("tr", ALICE, DM) == "Dil Türkçe olarak ayarlandı."
    assert await core.language(ALICE, DM) == "tr"
    with pytest.raises(UserError):
        await core.set_language("de", ALICE, DM)
    group = ChatRef("test", "g", "group", locale="tr")
    assert await core.language(chat=group) == "tr"


async def test_leaderboard_after_daily_answers(core: Core) -> None:
    group = ChatRef("test", "g", "group", "G")
    await core.subscribe(group, "09:00", "Europe/Istanbul")
    assert await core.post_daily_now(group)
    token = core.ports["test"].sent[0][1].buttons[0][0].token
    for i in range(3):
        await core.click(UserRef("test", f"m{i}", f"M{i}"), group, token)
    board = await core.leaderboard(group, UserRef("test", "m0", "M0"), "week")
    table = next(block for block in board.blocks if isinstance(block, Table))
    assert len(table.rows) == 3 and "Europe/Istanbul" in render_plain(await core.settings(group))


async def test_an_unknown_language_gets_its_message(core: Core) -> None:
    with pytest.raises(UserError) as error:
        await core.set_language("de", ALICE, DM)
    assert core.error_text("en", error.value) == "de is not a language I speak: use tr or en."


async def test_a_deadline_waits_for_its_adapter(db, bank, clock) -> None:
    core = Core(db, bank, clock, random.Random(5), scheduled=False)
    first = await core.start_interview(ALICE, DM, InterviewFilters(count=2, time_limit_s=20))
    clock.advance(30)
    assert len(await core.expire_interviews()) == 0, "no port for the platform: nothing moves on unseen"
    core.add_port(RecordingPort())
    assert len(await core.expire_interviews()) == 1
    assert (await get_asked(db, first.asked_id)).closed_at is not None


def test_the_chart_is_drawn_outside_the_bot_process(tmp_path) -> None:
    """matplotlib (tens of MB) never loads into the bot: a fresh interpreter draws a chart and checks."""
    import subprocess
    import sys
    import textwrap

    from tests.conftest import FIXTURE_BANK

    script = textwrap.dedent(f"""
        import asyncio, random, sys
        from pathlib import Path
        from bot.bank import load_bank
        from bot.schedule.clock import ManualClock
        from bot.core import Core
        from bot.domain import ChatRef, InterviewFilters, UserRef
        from bot.store import Database

        async def main():
            async with await Database.open({str(tmp_path / "db.sqlite3")!r}) as db:
                core = Core(db, load_bank([Path({str(FIXTURE_BANK)!r})]), ManualClock(), random.Random(1), scheduled=False)
                user, chat = UserRef("t", "u", "U"), ChatRef("t", "u")
                first = await core.start_interview(user, chat, InterviewFilters(count=1))
                await core.click(user, chat, f"a:{{first.asked_id}}:a")
                message = await core.progress(user)
                print(message.image.startswith(bytes([137, 80, 78, 71])), "matplotlib" in sys.modules)

        if __name__ == "__main__":
            asyncio.run(main())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["True", "False"], done.stderr


async def test_a_long_broadcast_does_not_delay_an_interview_deadline(db, bank, clock) -> None:
    """Posts and reveals run on one timer, deadlines on another: a deadline is met during a broadcast."""
    import asyncio as aio

    from bot.domain import ChatRef as Chat, InterviewFilters as Filters, UserRef as User
    from tests.fakes import RecordingPort

    port = RecordingPort(posts_per_second=4.0)  # 20 groups: a 5 s broadcast
    core = Core(db, bank, clock, random.Random(5))
    core.add_port(port)
    clock.set(datetime(2026, 6, 1, 9, 0, tzinfo=timezone.utc).timestamp() - 20)
    for number in range(20):
        await core.subscribe(Chat("test", f"g{number}", "group"), "09:00", "UTC")
    ada, dm = User("test", "ada", "Ada"), Chat("test", "dm-ada")
    await core.start_interview(ada, dm, Filters(count=2, time_limit_s=10))
    clock.advance(20)  # 09:00: every group is due, and the question's deadline has passed
    try:
        await core.start()
        for _ in range(40):
            expired = [message for chat, message in port.sent if chat == "dm-ada"]  # the next question
            if expired:
                break
            await aio.sleep(0.05)
        assert expired, "the deadline waited for the broadcast"
        assert len({chat for chat, _ in port.sent if chat.startswith("g")}) < 20, "the broadcast was still going"
    finally:
        await core.close()


async def test_a_start_folds_the_item_steps_a_killed_process_left(core: Core) -> None:
    """Steps logged with answers whose process died before its fold (on PostgreSQL) move their item when the
    next process starts, not only when someone answers that question again."""
    async def left_behind(connection) -> None:
        await log_steps(connection, [ItemStep("fx-001", 2, 0.4, 1.0, True, 5.0),
                                     ItemStep("fx-001", 2, -0.2, 1.5, False, 6.0)])

    await core.db.in_one_call(left_behind)
    await core.start()
    try:
        assert (await item_difficulties(core.db))["fx-001"].answers == 2
        assert (await core.db.fetch_one("SELECT count(*) FROM item_steps"))[0] == 0
    finally:
        await core.stop_work(0)
