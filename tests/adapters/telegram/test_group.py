"""Groups end to end: the daily question, members' answers, the counter, the reveal, boards, admins."""

from __future__ import annotations

import pytest

from bot.domain import LETTERS
from bot.store.daily import get_subscription
from bot.store.people import find_chat
from tests.adapters.telegram.conftest import ALICE, BOB, CAROL, DAN, GROUP, Harness, private, start_harness, stop_harness
from tests.adapters.telegram.fake_bot_api import FakeBotApi, Stored

GROUP_ID = GROUP["id"]


async def right_letter(bot: Harness, data: str) -> str:
    asked_id = int(data.split(":")[1])
    row = await bot.core.db.fetch_one("SELECT option_order, question_id FROM asked_questions WHERE id = ?", (asked_id,))
    correct = bot.core.bank.questions[row["question_id"]].correct_index
    return LETTERS[[int(c) for c in row["option_order"]].index(correct)]


def token(tokens: list[str], letter: str) -> str:
    return next(data for data in tokens if data.endswith(f":{letter}"))


@pytest.fixture
async def slow_counter(api: FakeBotApi, core) -> Harness:
    harness = await start_harness(api, core, counter_delay=0.3)
    api.admins[GROUP_ID] = {ALICE["id"]}
    yield harness
    await stop_harness(harness)


async def test_daily_answers_counter_reveal_and_leaderboard(slow_counter: Harness, clock) -> None:
    bot = slow_counter
    await bot.command(ALICE, GROUP, "/daily@interview_test_bot")
    [question] = bot.api.sent_to(GROUP_ID)
    assert "Daily question" in question.html and question.data
    tokens = list(question.data)
    right = await right_letter(bot, tokens[0])
    wrong = next(letter for letter in LETTERS[: len(question.data)] if letter != right)
    for member, letter in ((BOB, right), (CAROL, wrong), (DAN, right)):
        clock.advance(3)
        await bot.click(member, question, token(tokens, letter))
    assert [text[:1] for text, _ in bot.popups()] == ["✅", "❌", "✅"]
    assert len(bot.api.sent_to(GROUP_ID)) == 1, "no message per answer"
    await bot.services.counters.wait()
    assert question.edits == 1 and "3 answered so far." in question.html and question.data, "one debounced edit"

    clock.advance(12 * 3600 + 1)
    await bot.core.tick()
    assert question.markup is None and "3 answered, 67% right." in question.html
    assert "Fastest right answers: Bob (3.0 s), Dan (9.0 s)" in question.html

    await bot.click(ALICE, question, token(tokens, right))
    assert bot.popups()[-1] == ("This question is closed.", True)
    assert await bot.count("answers") == 3
    await bot.command(CAROL, GROUP, "/leaderboard")
    board = bot.api.last(GROUP_ID)
    assert "Leaderboard · this week" in board.html and "<pre>" in board.html and "Bob" in board.html
    await bot.command(CAROL, GROUP, "/leaderboard year")
    assert "Usage: /leaderboard" in bot.api.last(GROUP_ID).html


async def test_the_counter_never_lands_over_the_reveal(slow_counter: Harness, clock) -> None:
    bot = slow_counter
    await bot.command(ALICE, GROUP, "/daily")
    [question] = bot.api.sent_to(GROUP_ID)
    await bot.click(BOB, question, question.data[0])
    clock.advance(12 * 3600 + 1)
    await bot.core.tick()
    await bot.services.counters.wait()
    assert question.markup is None and "answered so far" not in question.html and "% right" in question.html


async def test_only_administrators_change_the_daily_question(bot: Harness) -> None:
    bot.api.admins[GROUP_ID] = {ALICE["id"]}
    for text in ("/daily", "/subscribe 09:00", "/unsubscribe"):
        await bot.command(BOB, GROUP, text)
        assert bot.api.last(GROUP_ID).html == "Bunu yalnızca grubun yöneticileri yapabilir."
    assert len(bot.api.calls_of("getChatMember")) == 1, "the answer is cached"
    assert await bot.count("daily_posts") == 0 and await bot.count("subscriptions") == 0

    await bot.command(ALICE, GROUP, "/subscribe 09:30 Europe/Istanbul sync-basics")
    assert bot.api.last(GROUP_ID).html == "Done: a daily question at 09:30 (Europe/Istanbul)."
    await bot.command(CAROL, GROUP, "/settings")
    assert "Europe/Istanbul" in bot.api.last(GROUP_ID).html
    await bot.command(ALICE, GROUP, "/subscribe 25:00")
    assert "25:00 is not a time" in bot.api.last(GROUP_ID).html
    await bot.command(ALICE, GROUP, "/subscribe")
    assert "Usage: /subscribe" in bot.api.last(GROUP_ID).html
    anonymous = {"id": 1087968824, "is_bot": True, "first_name": "Group"}
    body = {"message": {"message_id": 9, "date": 0, "chat": GROUP, "from": anonymous, "sender_chat": GROUP,
                        "text": "/unsubscribe", "entities": [{"type": "bot_command", "offset": 0, "length": 12}]}}
    await bot.process(body)
    assert bot.api.last(GROUP_ID).html == "Done: no more daily questions here."


async def test_a_button_carried_onto_another_message_is_refused(bot: Harness) -> None:
    """A click counts only on the message its question was posted as (a forged callback on another one)."""
    bot.api.admins[GROUP_ID] = {ALICE["id"]}
    await bot.command(ALICE, GROUP, "/daily")
    [question] = bot.api.sent_to(GROUP_ID)
    other_message = Stored(GROUP_ID, question.message_id + 100, question.html, question.markup)
    await bot.click(BOB, other_message, question.data[0])
    assert bot.popups()[-1] == ("Bu düğme bu mesaja ait değil.", True) and await bot.count("answers") == 0
    await bot.click(BOB, question, question.data[0])
    assert await bot.count("answers") == 1


async def test_forged_stale_and_foreign_clicks_record_nothing(bot: Harness) -> None:
    bot.api.admins[GROUP_ID] = {ALICE["id"]}
    await bot.command(ALICE, GROUP, "/daily")
    [question] = bot.api.sent_to(GROUP_ID)
    asked_id = question.data[0].split(":")[1]
    for data in ("a:99999:a", "garbage", f"a:{asked_id}:z", "a:0:a", "x" * 64):
        await bot.click(BOB, question, data)
    other = {"id": -100999, "type": "supergroup", "title": "Elsewhere"}
    elsewhere = Stored(other["id"], question.message_id, question.html, question.markup)
    bot.api.chats[other["id"]] = other
    await bot.click(BOB, elsewhere, question.data[0])
    assert all(alert for _, alert in bot.popups()) and len(bot.popups()) == 6
    assert bot.popups()[-1][0] == "Bu soru bu sohbette sorulmadı."
    assert await bot.count("answers") == 0

    await bot.click(BOB, question, question.data[0])
    await bot.click(BOB, question, question.data[1])
    assert bot.popups()[-1] == ("Bu soruyu zaten cevapladın; yalnızca ilk cevap sayılır.", True)
    assert await bot.count("answers") == 1

    await bot.command(ALICE, private(ALICE), "/interview sync-basics 2")
    mine = bot.api.last(ALICE["id"])
    choices = list(mine.data)
    await bot.click(BOB, mine, choices[0])
    assert bot.popups()[-1][1] is True and await bot.count("answers") == 1
    await bot.click(ALICE, mine, choices[0])
    await bot.click(ALICE, mine, choices[1])
    assert bot.popups()[-1][1] is True and await bot.count("answers") == 2


async def test_wrong_place_commands_get_a_pointer(bot: Harness) -> None:
    await bot.command(ALICE, GROUP, "/interview")
    assert bot.api.last(GROUP_ID).html == "That works in a private chat with me."
    await bot.command(ALICE, private(ALICE), "/daily")
    assert bot.api.last(ALICE["id"]).html == "That works in a group."
    assert await bot.count("interviews") == 0


async def test_three_members_same_command_and_an_admin_after_a_member_all_answered(api, core) -> None:
    """With the shipped flood guard: three members' /leaderboard within a second get three replies, and an
    administrator's /subscribe a second after a member's refused one sets the schedule."""
    from adapters.common.flood import CommandFlood

    bot = await start_harness(api, core, flood=CommandFlood())  # the shipped limits, repeats per person
    api.admins[GROUP_ID] = {ALICE["id"]}
    try:
        for who in (BOB, CAROL, DAN):
            await bot.command(who, GROUP, "/leaderboard")
        assert len(api.sent_to(GROUP_ID)) == 3, "each member got the board they asked for"
        await bot.command(BOB, GROUP, "/subscribe 09:00")
        assert "administrators" in api.last(GROUP_ID).html or "yönetici" in api.last(GROUP_ID).html
        await bot.command(ALICE, GROUP, "/subscribe 09:00")
        assert api.last(GROUP_ID).html == "Done: a daily question at 09:00 (UTC)."
        assert await bot.count("subscriptions") == 1
    finally:
        await stop_harness(bot)
