"""A daily question as a quiz poll: what fits one, what it says, and a platform without polls keeping buttons."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bot.core import Core
from bot.asking.poll import quiz_poll, short_explanation
from bot.domain import AskedQuestion, ChatRef, Option, Question, UserRef
from bot.asking.delivery import Delivery
from bot.limits import POLL_EXPLANATION_MAX
from bot.store.polls import save_poll
from tests.fakes import RecordingPort

GROUP = ChatRef("test", "g1", "group", "Study group")
BASE = Question("q-1", "ml", "x", "t", 1, "junior", {"en": "Which scaler keeps **outliers** from `fit`?"},
                (Option({"en": "Robust"}, True), Option({"en": "MinMax"}), Option({"en": "None"})),
                {"en": "Because the median and IQR ignore extremes."})


def delivered(question: Question, order: tuple[int, ...] = (2, 0, 1)) -> Delivery:
    asked = AskedQuestion(7, question.id, 1, None, 0, order, 0.0, 100.0, None)
    return Delivery(asked, question, 1, 1, "en", None)


def test_a_short_question_becomes_a_quiz_in_the_order_shown() -> None:
    poll = quiz_poll(delivered(BASE), 3600)
    assert poll is not None
    assert poll.question == "Which scaler keeps outliers from `fit`?", "bold stars dropped, code kept readable"
    assert poll.options == ("None", "Robust", "MinMax") and poll.correct == 1 and poll.open_seconds == 3600


@pytest.mark.parametrize("change", [
    {"text": {"en": "x" * 301}},
    {"text": {"en": "What does this print?\n\n```python\nprint(1)\n```"}},
    {"text": {"en": "Which row?\n\n| a | b |\n|---|---|\n| 1 | 2 |"}},
    {"options": (Option({"en": "y" * 101}, True), Option({"en": "z"}), Option({"en": "w"}))},
])
def test_what_a_poll_cannot_hold_keeps_its_buttons(change: dict) -> None:
    assert quiz_poll(delivered(replace(BASE, **change)), 3600) is None


def test_the_explanation_is_cut_to_the_poll_limit_on_one_line() -> None:
    long = replace(BASE, explanation={"en": "First line.\n\nSecond " + "word " * 80})
    text = short_explanation(long, "en")
    assert len(text) <= POLL_EXPLANATION_MAX and text.endswith("…") and "\n" not in text
    assert text.startswith("First line. Second word")
    assert short_explanation(BASE, "en") == BASE.explain("en")


async def test_a_platform_without_polls_gets_buttons(db, bank, clock) -> None:
    port = RecordingPort()
    core = Core(db, bank, clock, random.Random(3), scheduled=False)
    core.add_port(port)
    await core.subscribe(GROUP, "09:00", "UTC", "leakage-basics", as_poll=True)
    assert await core.post_daily_now(GROUP, as_poll=True)
    [(_, message)] = port.sent
    assert message.poll is None and message.buttons
    assert (await db.fetch_one("SELECT count(*) FROM daily_polls"))[0] == 0


async def test_a_vote_counts_only_on_a_poll_the_bot_posted(db, bank, clock) -> None:
    port = RecordingPort()
    core = Core(db, bank, clock, random.Random(3), scheduled=False)
    core.add_port(port)
    await core.subscribe(GROUP, "09:00", "UTC", "leakage-basics")
    assert await core.post_daily_now(GROUP)
    [asked] = await db.fetch_all("SELECT id FROM asked_questions")
    await save_poll(db, "test", "p-1", asked[0])
    voter = UserRef("test", "u1", "Una")
    assert await core.poll_answer(replace(voter, platform="other"), "p-1", [0]) is None, "another platform's poll"
    assert await core.poll_answer(voter, "p-2", [0]) is None
    assert await core.poll_answer(voter, "p-1", [0, 1]) is None
    recorded = await core.poll_answer(voter, "p-1", [0])
    assert recorded is not None and recorded.answered == 1
    assert await core.poll_answer(voter, "p-1", [1]) is None, "one answer per person"
    assert (await db.fetch_one("SELECT count(*) FROM answers"))[0] == 1
