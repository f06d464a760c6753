"""What people see first and last, through the real Application and the fake Bot API, in both
languages: the welcome in a group the bot joins, /start's topic buttons, the daily question's reveal
time in the group's zone, /settings in hours, and a report's next step."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.domain import ChatRef
from tests.adapters.telegram.conftest import ALICE, BOB, GROUP, Harness, private

GROUP_ID = GROUP["id"]
GROUP_REF = ChatRef("telegram", str(GROUP_ID), "group", "ML study group")
BOT_USER = {"id": 4242, "is_bot": True, "first_name": "Interview Bot", "username": "interview_test_bot"}


def added_by(user: dict) -> dict:
    return {"my_chat_member": {"chat": GROUP, "from": user, "date": 0,
                               "old_chat_member": {"status": "left", "user": BOT_USER},
                               "new_chat_member": {"status": "member", "user": BOT_USER}}}


@pytest.mark.parametrize("language,words", [
    ("en", ("Hello! I am interview-bot", "one ML-engineering interview question a day", "An administrator starts")),
    ("tr", ("Merhaba! Ben interview-bot", "Her gün bir ML mühendisliği", "Bir yönetici günün sorusunu")),
])
async def test_a_group_that_adds_the_bot_is_told_how_to_start_the_daily_question(bot: Harness, language: str,
                                                                                words: tuple[str, ...]) -> None:
    await bot.core.set_language(language, chat=GROUP_REF)
    await bot.process(added_by(ALICE))
    [welcome] = bot.api.sent_to(GROUP_ID)
    assert all(word in welcome.html for word in words)
    assert "<code>/subscribe 09:00 Europe/Istanbul</code>" in welcome.html
    assert welcome.data is None or not welcome.data, "no buttons, one short message"


@pytest.mark.parametrize("user,welcome,choose", [(ALICE, "Welcome to interview-bot", "Choose a topic:"),
                                                 (BOB, "interview-bot'a hoş geldin", "Bir konu seç:")])
async def test_start_in_a_dm_offers_the_topics_as_buttons_at_once(bot: Harness, user: dict, welcome: str,
                                                                  choose: str) -> None:
    await bot.command(user, private(user), "/start")
    greeting, menu = bot.api.sent_to(user["id"])
    assert welcome in greeting.html and choose in menu.html
    assert len(menu.data) == len(bot.core.bank.topics) + 1 and all(data.startswith("m:t:") for data in menu.data)
    await bot.click(user, menu, menu.data[0])
    assert all(data.startswith("m:l:") for data in bot.api.messages[(user["id"], menu.message_id)].data)


@pytest.mark.parametrize("language,revealed,settings", [
    ("en", "Answer revealed: 21:00, Europe/Istanbul.", "The answer is revealed after 12 h."),
    ("tr", "Cevabın açıklanma zamanı: 21:00, Europe/Istanbul.", "Cevap 12 saat sonra açıklanır."),
])
async def test_the_daily_question_gives_its_reveal_time_in_the_groups_zone(bot: Harness, clock, language: str,
                                                                          revealed: str, settings: str) -> None:
    bot.api.admins[GROUP_ID] = {ALICE["id"]}
    await bot.core.set_language(language, chat=GROUP_REF)
    istanbul = ZoneInfo("Europe/Istanbul")
    clock.set(datetime(2026, 12, 1, 8, 0, tzinfo=istanbul).timestamp())
    await bot.command(ALICE, GROUP, "/subscribe 09:00 Europe/Istanbul")
    clock.set(datetime(2026, 12, 1, 9, 0, tzinfo=istanbul).timestamp())
    await bot.core.tick()
    question = bot.api.last(GROUP_ID)
    assert question.data and f"<i>{revealed}</i>" in question.html and "s.</i>" not in question.html.replace(
        revealed, "")
    await bot.command(ALICE, GROUP, "/settings")
    assert settings in bot.api.last(GROUP_ID).html


async def test_a_report_ends_with_the_next_step_to_tap_or_copy(bot: Harness) -> None:
    dm, chat_id = private(ALICE), ALICE["id"]
    await bot.command(ALICE, dm, "/interview leakage-basics 2")
    for _ in range(2):
        question = bot.api.last(chat_id)
        right = await bot.core.db.fetch_one("SELECT question_id, option_order FROM asked_questions ORDER BY id DESC")
        key = bot.core.bank.questions[right["question_id"]].correct_index
        wrong_position = next(p for p, index in enumerate(int(c) for c in right["option_order"]) if index != key)
        await bot.click(ALICE, question, question.data[wrong_position])
    report = bot.api.last(chat_id)
    assert "You chose" in report.html and "the answer is" in report.html
    assert report.html.rstrip().endswith("<code>/interview leakage-basics</code>")
