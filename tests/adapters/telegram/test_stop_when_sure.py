"""Stopping once the level is clear, from a Telegram user's side: `/interview <topic> 30 sure` (or `emin`),
and the length menu's tick; a candidate who answers clearly is placed in fewer than 30 questions and the
report says it ended early and why; without the option the interview runs its whole count."""

from __future__ import annotations

import re

import pytest

from bot.bank import load_bank
from bot.bank.loader import Bank
from bot.store import interviews as records
from bot.tokens import parse_answer_token
from tests.adapters.telegram.conftest import ALICE, BOB, Harness, private

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


async def _answer_until_the_report(bot: Harness, user: dict, right: bool) -> tuple[int, str]:
    """Click the right (or a wrong) option of each question as it comes; the answers given and the report
    (every message after the last question: a long report comes in several)."""
    chat_id, answered, question = user["id"], 0, 0
    while True:
        message = bot.api.last(chat_id)
        tokens = [token for token in map(parse_answer_token, message.data) if token is not None]
        if not tokens:
            return answered, "\n".join(m.html for m in bot.api.sent_to(chat_id) if m.message_id > question)
        question = message.message_id
        asked = await records.get_asked(bot.core.db, tokens[0].asked_id)
        assert asked is not None
        key = asked.shown_letter_of(bot.core.bank.questions[asked.question_id].correct_index)
        letter = next(token.letter for token in tokens if (token.letter == key) == right)
        await bot.click(user, message, f"a:{asked.id}:{letter}")
        answered += 1
        assert answered <= 30


@pytest.mark.parametrize("right", [True, False], ids=["all-right", "all-wrong"])
async def test_sure_ends_a_30_question_interview_once_the_level_is_clear(bot: Harness, right: bool) -> None:
    await bot.command(ALICE, private(ALICE), f"/interview {TOPIC} 30 sure")
    assert "Question 1/30" in bot.api.last(ALICE["id"]).html
    answered, report = await _answer_until_the_report(bot, ALICE, right)
    assert 5 <= answered < 30, answered
    early = ENDED_EARLY.search(report)
    assert "Interview report" in report and early and int(early.group(1)) == answered
    assert ("senior" if right else "junior") in report
    assert await bot.count("answers") == answered


async def test_without_sure_the_interview_asks_all_30(bot: Harness) -> None:
    await bot.command(ALICE, private(ALICE), f"/interview {TOPIC} 30")
    answered, report = await _answer_until_the_report(bot, ALICE, True)
    assert answered == 30 and "Interview report" in report and "Ended early" not in report


async def test_the_length_menu_tick_in_turkish(bot: Harness) -> None:
    """Bob's Telegram is in Turkish: the tick, the longer lengths it offers, and the report's line."""
    await bot.command(BOB, private(BOB), "/interview")
    menu = bot.api.last(BOB["id"])
    await bot.click(BOB, menu, f"m:t:{sorted(bot.core.bank.topics).index(TOPIC)}")
    await bot.click(BOB, menu, next(data for data in menu.data if data.endswith(":0")))
    assert [button["text"] for button in menu.buttons] == ["3", "5", "10", "☐ Seviyem netleşince bitir"]
    await bot.click(BOB, menu, menu.data[-1])
    assert "En çok kaç soru olsun?" in menu.html
    assert [button["text"] for button in menu.buttons] == ["10", "20", "30", "☑ Seviyem netleşince bitir"]
    assert all(data.endswith(":s") for data in menu.data[:3]) and not menu.data[3].endswith(":s")
    await bot.click(BOB, menu, menu.data[2])
    assert menu.markup is None and "30 soru · seviyen netleşince biter" in menu.html
    assert "Soru 1/30" in bot.api.last(BOB["id"]).html
    answered, report = await _answer_until_the_report(bot, BOB, False)
    early = ENDED_EARLY_TR.search(report)
    assert 5 <= answered < 30 and early and int(early.group(1)) == answered


async def test_emin_is_sure_twice_is_usage_and_forged_ticks_are_refused(bot: Harness) -> None:
    await bot.command(BOB, private(BOB), f"/interview emin {TOPIC} 30")
    answered, report = await _answer_until_the_report(bot, BOB, True)
    assert 5 <= answered < 30 and ENDED_EARLY_TR.search(report)
    await bot.command(ALICE, private(ALICE), "/interview sure 30 emin")
    assert bot.api.last(ALICE["id"]).html.startswith("Usage: /interview [topic] [count] [sure]")
    await bot.command(ALICE, private(ALICE), "/interview")
    menu = bot.api.last(ALICE["id"])
    for data in ("m:c:0:0:3:s", "m:c:0:0:30", "m:t:0:s", "m:l:0:0:s:s"):  # forged: not what a menu offers
        await bot.click(ALICE, menu, data)
    assert [popup for popup in bot.popups() if popup[1]] == [("This button is not valid any more.", True)] * 4
    assert await bot.count("interviews") == 1
