"""The verdict in words: the report and /progress in English and Turkish."""

from __future__ import annotations

import random

import pytest

from bot.core import Core
from bot.domain import LETTERS, ChatRef, InterviewFilters, UserRef
from bot.learner.ability import Estimate
from bot.learner.verdict import level
from bot.learner.view import level_blocks
from bot.text.plaintext import render_plain
from bot.text.messages import Message
from bot.tokens import answer_token


def _text(language: str) -> str:
    levels = {"sync": level(Estimate(1.2, 0.3 ** 2, 9)), "leak": level(Estimate(-0.1, 0.6 ** 2, 3))}
    blocks = level_blocks(levels, level(Estimate(0.5, 0.25 ** 2, 12)), language, str.upper)
    return render_plain(Message(tuple(blocks)))


def test_the_verdict_in_english() -> None:
    text = _text("en")
    assert "Your level" in text
    assert "SYNC: senior, sure (93% likely; ability +1.2 ± 0.3)" in text
    assert "LEAK: mid-level, fairly sure" in text
    assert "Overall: mid-level" in text and "-0.75" in text


def test_the_verdict_in_turkish() -> None:
    text = _text("tr")
    assert "Seviyen" in text
    assert "SYNC: senior, eminim (%93 olasılıkla; yetenek +1,2 ± 0,3)" in text
    assert "LEAK: orta seviye, büyük ölçüde eminim" in text
    assert "Genel: orta seviye" in text


@pytest.mark.parametrize("language,title,progress", [("en", "Your level", "Ability per topic"),
                                                     ("tr", "Seviyen", "Konulara göre yetenek")])
async def test_report_and_progress_carry_the_levels(db, bank, clock, language, title, progress) -> None:
    core = Core(db, bank, clock, random.Random(2), scheduled=False)
    user, chat = UserRef("test", "cem", "Cem", language), ChatRef("test", "dm-cem", locale=language)
    await core.set_language(language, user, chat)
    await core.start_interview(user, chat, InterviewFilters(count=2))
    reply = None
    for _ in range(2):
        delivery = await core.engine.current(await core.caller(user, chat))
        right = LETTERS[delivery.asked.option_order.index(delivery.question.correct_index)]
        reply = await core.click(user, chat, answer_token(delivery.asked.id, right))
    report_text = render_plain(reply.follow_ups[-1].message)
    assert title in report_text
    assert progress in render_plain(await core.progress(user))


def test_a_zero_ability_has_no_sign() -> None:
    blocks = level_blocks({"t": level(Estimate(-0.01, 0.5))}, None, "tr", str)
    assert "yetenek 0,0 ±" in render_plain(Message(tuple(blocks)))
    assert level(Estimate(-0.0001, 0.5)).ability == 0.0 and str(level(Estimate(-0.0001, 0.5)).ability) == "0.0"


@pytest.mark.parametrize("language,since", [("en", "+0.9 since the week of 2026-06-01"),
                                            ("tr", "2026-06-01 haftasından bu yana +0,9")])
async def test_progress_says_how_far_the_ability_moved(db, bank, clock, language, since) -> None:
    core = Core(db, bank, clock, random.Random(3), scheduled=False)
    user, chat = UserRef("test", "dee", "Dee", language), ChatRef("test", "dm-dee", locale=language)
    await core.set_language(language, user, chat)
    clock.set(1_780_272_000.0 + 3600)  # Monday 2026-06-01
    for week in range(2):
        await core.start_interview(user, chat, InterviewFilters(topics=("sync-basics",), count=1))
        delivery = await core.engine.current(await core.caller(user, chat))
        right = LETTERS[delivery.asked.option_order.index(delivery.question.correct_index)]
        await core.click(user, chat, answer_token(delivery.asked.id, right))
        clock.advance(8 * 86_400)
    text = render_plain(await core.progress(user))
    assert since in text
