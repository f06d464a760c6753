"""A group deck in a member's private chat: a whole interview with its report, the deadline of a timed
one closed by a worker that never loaded the deck, and /progress and /history reading deck answers."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.core import Core
from bot.domain import LETTERS, ChatRef, InterviewFilters, UserRef
from bot.store import Database
from bot.store.interviews import get_asked
from bot.text.plaintext import render_plain
from tests.bot.decks.files import GIFT
from tests.fakes import RecordingPort

GROUP = ChatRef("test", "g1", "group", "Study group")
ADA = UserRef("test", "u1", "Ada")
ADA_DM = ChatRef("test", "u1", "private", "Ada")
STEMS = ("Which split is a scaler fitted on?", "What does dropout do at inference time?",
         "Which optimiser keeps per-parameter second moments?")


@asynccontextmanager
async def two_workers(db_path, bank, clock) -> AsyncIterator[tuple[Core, Core, RecordingPort]]:  # noqa: ANN001
    """Two workers on one store: the first has the group's deck `week` (loaded there), the second never
    loaded it; (first, second, the second's recording port)."""
    async with await Database.open(db_path) as first_db, await Database.open(db_path) as second_db:
        first = Core(first_db, bank, clock, random.Random(1), scheduled=False)
        second = Core(second_db, bank, clock, random.Random(2), scheduled=False)
        first.add_port(RecordingPort())
        port = RecordingPort()
        second.add_port(port)
        await first.deck_add(ADA, GROUP, "week", "week.gift", GIFT.encode(), True)
        yield first, second, port


async def token(core: Core, asked_id: int, right: bool) -> str:
    asked = await get_asked(core.db, asked_id)
    question = core.library.get(asked.question_id)
    position = next(p for p, i in enumerate(asked.option_order) if (i == question.correct_index) == right)
    return f"a:{asked_id}:{LETTERS[position]}"


async def test_a_whole_private_interview_on_a_groups_deck(core: Core) -> None:
    await core.deck_add(ADA, GROUP, "week", "week.gift", GIFT.encode(), True)  # the uploader is a member
    outgoing = await core.start_interview(ADA, ADA_DM, InterviewFilters(topics=("deck:week",), count=3))
    asked_stems = []
    for number in range(3):
        asked = await get_asked(core.db, outgoing.asked_id)
        assert asked.question_id.startswith("deck.")
        asked_stems.append(core.library.get(asked.question_id).stem("en"))
        reply = await core.click(ADA, ADA_DM, await token(core, outgoing.asked_id, right=number != 1))
        assert reply.refused is None, reply.popup
        if number < 2:
            [outgoing] = reply.follow_ups
    assert sorted(asked_stems) == sorted(STEMS), "the deck's questions, each once"
    report = render_plain(reply.follow_ups[-1].message) if reply.follow_ups else render_plain(reply.edit)
    assert "2/3" in report and "deck:week" in report, report
    history = render_plain(await core.history(ADA))
    assert "2/3" in history or "67%" in history, history


async def test_a_deadline_is_closed_by_a_worker_that_never_loaded_the_deck(db_path, bank, clock) -> None:
    async with two_workers(db_path, bank, clock) as (first, second, port):
        started = await first.start_interview(ADA, ADA_DM, InterviewFilters(topics=("deck:week",), count=2,
                                                                             time_limit_s=20))
        await first.posted(started.asked_id, "u1/1")
        clock.advance(21)
        await second.tick()  # the other worker's deadline timer
        [(_, ref, edited)] = port.edits
        assert ref == "u1/1" and "Time is up" in render_plain(edited)
        [(_, following)] = port.sent
        assert any(stem in render_plain(following) for stem in STEMS), "the next deck question follows"


async def test_another_worker_reveals_a_deck_post_and_moves_a_deck_quiz_on(db_path, bank, clock) -> None:
    async with two_workers(db_path, bank, clock) as (first, second, port):
        assert await first.post_daily_now(GROUP, topic="deck:week")
        await first.start_quiz(ADA, GROUP, "deck:week", 3, 10)
        clock.advance(13 * 3600)
        await second.tick()  # the reveal and the quiz's first question, on the worker without the deck
        shown = [render_plain(message) for _, _, message in port.edits] + [render_plain(m) for _, m in port.sent]
        assert any("deck:week" in text and any(stem in text for stem in STEMS) for text in shown), shown
        assert sum(1 for text in shown if any(stem in text for stem in STEMS)) >= 2, "the reveal and a quiz question"
