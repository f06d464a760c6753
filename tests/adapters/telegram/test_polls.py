"""Daily questions as native quiz polls, end to end against the fake Bot API: the poll sent, votes recorded
as answers (once per person, only for the bot's own polls), the reveal, the board, and the fallback to
buttons for a question a poll cannot hold."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adapters.telegram.app import ALLOWED_UPDATES
from bot.metrics import MetricsServer, serve_metrics
from bot.store.polls import asked_of_poll, poll_of_asked
from tests.adapters.telegram.conftest import ALICE, BOB, CAROL, DAN, GROUP, Harness
from tests.adapters.telegram.fake_bot_api import Stored
from tests.adapters.telegram.test_metrics import scrape, value

GROUP_ID = GROUP["id"]
ERIN = {"id": 1005, "is_bot": False, "first_name": "Erin", "language_code": "en"}


@pytest.fixture
def admin(bot: Harness) -> Harness:
    bot.api.admins[GROUP_ID] = {ALICE["id"]}
    return bot


@pytest.fixture
def exporter() -> Iterator[MetricsServer]:
    server = serve_metrics("127.0.0.1:0")
    yield server
    server.close()


def polls_in(bot: Harness) -> list[Stored]:
    return [stored for stored in bot.api.sent_to(GROUP_ID) if stored.poll is not None]


async def answers(bot: Harness) -> list[tuple[str, int, int]]:
    rows = await bot.core.db.fetch_all(
        "SELECT u.name, a.option_index, a.correct FROM answers a JOIN users u ON u.id = a.user_id ORDER BY a.id")
    return [(row[0], row[1], row[2]) for row in rows]


async def test_poll_answers_count_like_button_answers(admin: Harness, clock) -> None:
    bot = admin
    assert "poll_answer" in ALLOWED_UPDATES
    await bot.command(ALICE, GROUP, "/subscribe 09:00 UTC leakage-basics")
    await bot.command(ALICE, GROUP, "/daily poll")
    [sent] = bot.api.calls_of("sendPoll")
    [posted] = polls_in(bot)
    poll = posted.poll
    assert sent["type"] == "quiz" and sent["is_anonymous"] is False and len(sent["correct_option_ids"]) == 1
    asked_id = await asked_of_poll(bot.core.db, "telegram", poll["id"])
    asked = await bot.core.db.fetch_one("SELECT question_id, option_order, deadline, asked_at FROM asked_questions "
                                        "WHERE id = ?", (asked_id,))
    question = bot.core.bank.questions[asked["question_id"]]
    order = [int(c) for c in asked["option_order"]]
    right = order.index(question.correct_index)
    wrong = next(position for position in range(len(order)) if position != right)
    assert sent["correct_option_ids"] == [right] and sent["question"] == question.stem("en")
    assert [option["text"] for option in poll["options"]] == [question.options[i].text("en") for i in order]
    assert sent["open_period"] == int(asked["deadline"] - asked["asked_at"]), "open until the reveal"

    for member, position in ((BOB, right), (CAROL, wrong), (DAN, right)):
        clock.advance(3)
        await bot.vote(member, poll["id"], [position])
    await bot.vote(DAN, poll["id"], [wrong])  # a second vote (a redelivery, a client that allows it) changes nothing
    await bot.vote(BOB, poll["id"], [])  # a retracted vote changes nothing
    assert await answers(bot) == [("Bob", question.correct_index, 1), ("Carol", order[wrong], 0),
                                  ("Dan", question.correct_index, 1)]
    assert not bot.api.calls_of("answerCallbackQuery") and len(bot.api.sent_to(GROUP_ID)) == 2, "the poll shows it"

    users = await bot.count("users")
    await bot.vote(ERIN, "poll-forged-1", [right])
    await bot.vote(ERIN, f"{poll['id']}x", [right])
    await bot.vote(ERIN, poll["id"], [99])
    assert len(await answers(bot)) == 3
    assert await bot.count("users") == users + 1, "only the vote on our poll (refused: option 99) stored its voter"

    clock.advance(12 * 3600)
    await bot.core.tick()
    assert [call["message_id"] for call in bot.api.calls_of("stopPoll")] == [posted.message_id]
    assert poll["is_closed"] and posted.edits == 0, "a poll is stopped, never edited"
    reveal = bot.api.last(GROUP_ID)
    assert reveal.poll is None and "3 answered, 67% right." in reveal.html
    assert "Fastest right answers: Bob (3.0 s), Dan (9.0 s)" in reveal.html
    assert question.explain("en").split()[0] in reveal.html, "the full explanation comes at the reveal"

    await bot.vote(ERIN, poll["id"], [right])
    assert len(await answers(bot)) == 3, "closed at the reveal"
    await bot.command(CAROL, GROUP, "/leaderboard")
    board = bot.api.last(GROUP_ID).html
    assert "Bob" in board and "Dan" in board and "Leaderboard · this week" in board


async def test_a_chat_that_chose_polls_gets_a_poll_whenever_its_filter_has_one(admin: Harness) -> None:
    """sync-basics holds one short question and two with code blocks: the chat chose polls, so every post is
    a poll, chosen among the questions that fit one (the no-repeat rule within them); each earlier post is
    revealed before the next (a poll is stopped first)."""
    bot = admin
    await bot.command(ALICE, GROUP, "/subscribe 09:00 UTC sync-basics poll")
    for _ in range(3):
        await bot.command(ALICE, GROUP, "/daily")
    rows = await bot.core.db.fetch_all("SELECT id, question_id FROM asked_questions ORDER BY id")
    kinds = [(row["question_id"], await poll_of_asked(bot.core.db, row["id"]) is not None) for row in rows]
    assert kinds == [("fx-001", True)] * 3
    assert len(bot.api.calls_of("sendPoll")) == 3 and len(bot.api.calls_of("stopPoll")) == 2
    assert not [stored for stored in bot.api.sent_to(GROUP_ID) if stored.data], "no button question"


async def test_with_no_question_that_fits_a_poll_buttons_and_one_line_why(admin: Harness) -> None:
    """The chat's filter (sync-basics at difficulty 3) holds only a question with code: it goes out with
    buttons and says why in one line; clicks count as usual."""
    bot = admin
    await bot.command(ALICE, GROUP, "/subscribe 09:00 UTC sync-basics poll")
    async with bot.core.db.transaction() as connection:
        await connection.execute("UPDATE subscriptions SET difficulty = 3")
    await bot.command(ALICE, GROUP, "/daily")
    assert bot.api.calls_of("sendPoll") == []
    [question] = [stored for stored in bot.api.sent_to(GROUP_ID) if stored.data]
    assert "fits a quiz poll" in question.html
    await bot.click(BOB, question, question.data[0])
    assert await bot.count("answers") == 1


async def test_settings_switch_between_poll_and_buttons(admin: Harness) -> None:
    bot = admin
    await bot.command(ALICE, GROUP, "/settings poll")
    assert "no daily question" in bot.api.last(GROUP_ID).html
    await bot.command(ALICE, GROUP, "/subscribe 09:00 UTC leakage-basics")
    await bot.command(ALICE, GROUP, "/settings")
    assert "Posted with answer buttons." in bot.api.last(GROUP_ID).html
    await bot.command(BOB, GROUP, "/settings poll")
    assert bot.api.last(GROUP_ID).html == "Bunu yalnızca grubun yöneticileri yapabilir."
    await bot.command(ALICE, GROUP, "/settings poll")
    assert bot.api.last(GROUP_ID).html.startswith("Done: the daily question comes as a quiz poll.")
    await bot.command(ALICE, GROUP, "/subscribe 10:00 UTC leakage-basics")  # a new time keeps the choice
    await bot.command(CAROL, GROUP, "/settings")
    assert "Posted as a quiz poll" in bot.api.last(GROUP_ID).html
    await bot.command(ALICE, GROUP, "/daily")
    assert len(bot.api.calls_of("sendPoll")) == 1, "the chat's choice applies to /daily too"
    await bot.command(ALICE, GROUP, "/settings buttons")
    assert bot.api.last(GROUP_ID).html == "Done: the daily question comes with answer buttons."
    await bot.command(ALICE, GROUP, "/daily")
    assert len(bot.api.calls_of("sendPoll")) == 1 and bot.api.last(GROUP_ID).data
    await bot.command(ALICE, GROUP, "/settings sometimes")
    assert "Usage: /settings" in bot.api.last(GROUP_ID).html
    await bot.command(ALICE, GROUP, "/daily now")
    assert "Usage: /daily" in bot.api.last(GROUP_ID).html


async def test_a_poll_closed_by_its_open_period_is_still_revealed(admin: Harness, clock) -> None:
    """Telegram closes the poll itself at the end of its open_period; stopPoll then refuses, and the reveal goes on."""
    bot = admin
    await bot.command(ALICE, GROUP, "/subscribe 09:00 UTC leakage-basics poll")
    await bot.command(ALICE, GROUP, "/daily")
    [posted] = polls_in(bot)
    posted.poll["is_closed"] = True  # type: ignore[index]
    clock.advance(12 * 3600)
    await bot.core.tick()
    assert len(bot.api.calls_of("stopPoll")) == 1 and "0 answered" in bot.api.last(GROUP_ID).html
    assert await bot.count("daily_posts") == 1
    state = await bot.core.db.fetch_one("SELECT state FROM daily_posts")
    assert state[0] == "revealed"


async def test_a_counted_vote_is_a_daily_answer_in_the_metrics(admin: Harness, exporter) -> None:
    bot = admin
    await bot.command(ALICE, GROUP, "/subscribe 09:00 UTC leakage-basics")
    await bot.command(ALICE, GROUP, "/daily poll")
    [posted] = polls_in(bot)
    _, before = await scrape(exporter)
    await bot.vote(BOB, posted.poll["id"], [0])  # type: ignore[index]
    await bot.vote(BOB, posted.poll["id"], [1])  # type: ignore[index]
    await bot.vote(CAROL, "poll-forged-2", [0])
    _, after = await scrape(exporter)
    labels = {"platform": "telegram", "kind": "daily"}
    grew = value(after, "interview_bot_answers_total", **labels) - value(before, "interview_bot_answers_total", **labels)
    assert grew == 1
