"""/interview's stop_when_sure option from a Discord user's side (real discord.py parsing of the
interaction): a candidate who answers clearly is placed in fewer than 30 questions and the report says
it ended early and why; without the option the interview asks all 30."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.bank import load_bank
from bot.bank.loader import Bank
from tests.adapters.discord.harness import user
from tests.adapters.discord.helpers import answer_count, asked_id_of, letters

ADA = user(1, "Ada")
TOPIC = "distributed-strategies-sync"  # 112 questions over the three levels: room for 30
ENDED_EARLY = re.compile(r"Ended early, after (\d+) answers: your level in every topic asked is at least 90% sure")
ENDED_EARLY_TR = re.compile(r"(\d+) cevaptan sonra erken bitti: sorulan her konudaki seviyen en az %90 kesin")


@pytest.fixture(scope="module")
def shipped() -> Bank:
    return load_bank(None)


@pytest.fixture
def bank(shipped: Bank) -> Bank:
    """The shipped bank, not the fixture's: a 30-question interview on one topic needs 30 questions."""
    return shipped


async def _interview(discord_: Any, db: Any, bank: Bank, right: bool, locale: str = "en-US",
                     **options: Any) -> tuple[int, str]:
    """Start /interview with `options`, click the right (or a wrong) option of each question as it comes;
    the answers given and the report's text (all the messages after the last answer)."""
    [response] = await discord_.command("interview", ADA, dm=True, topic=TOPIC, count=30, locale=locale, **options)
    assert response.callback_type == 4, response.json
    asked_id, answered = asked_id_of(response.custom_ids()[0]), 0
    while True:
        correct, wrong = await letters(db, bank, asked_id)
        edit, *after = await discord_.click(max(discord_.recorder.messages), f"a:{asked_id}:{correct if right else wrong}",
                                            ADA, dm=True, locale=locale)
        answered += 1
        assert edit.callback_type == 7 and after and answered <= 30
        questions = [custom for request in after for custom in request.custom_ids() if custom.startswith("a:")]
        if not questions:
            return answered, "\n".join(request.text() for request in after)
        asked_id = asked_id_of(questions[0])


@pytest.mark.parametrize("right", [True, False], ids=["all-right", "all-wrong"])
async def test_stop_when_sure_ends_a_30_question_interview_early(discord_, db, bank, right: bool) -> None:
    answered, report = await _interview(discord_, db, bank, right, stop_when_sure=True)
    assert 5 <= answered < 30, answered
    early = ENDED_EARLY.search(report)
    assert "Interview report" in report and early and int(early.group(1)) == answered
    assert ("senior" if right else "junior") in report
    assert await answer_count(db) == answered


async def test_in_turkish_the_report_says_why_in_turkish(discord_, db, bank) -> None:
    answered, report = await _interview(discord_, db, bank, False, locale="tr", stop_when_sure=True)
    early = ENDED_EARLY_TR.search(report)
    assert 5 <= answered < 30 and early and int(early.group(1)) == answered


@pytest.mark.parametrize("options", [{}, {"stop_when_sure": False}], ids=["left-out", "false"])
async def test_without_the_option_it_asks_all_30(discord_, db, bank, options: dict[str, Any]) -> None:
    answered, report = await _interview(discord_, db, bank, True, **options)
    assert answered == 30 and "Interview report" in report and "Ended early" not in report
