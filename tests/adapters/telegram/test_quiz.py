"""Live quiz rounds end to end through the real Application against the fake Bot API, the round's clock
moved by hand: questions as quiz polls where they fit and with buttons otherwise, speed points and the
ranking, one answer each, the stop rules, bad input, the boards afterwards, a restart mid-question, and
the core's own timer driving a round."""

from __future__ import annotations

import asyncio
import random

import pytest

from adapters.telegram.quiz import QuizArgs, quiz_args
from bot.core import Core
from bot.domain import LETTERS
from bot.store import Database
from bot.store.polls import asked_of_poll
from tests.adapters.telegram.conftest import (ALICE, BOB, CAROL, DAN, GROUP, Harness, private, start_harness,
                                             stop_harness)
from tests.adapters.telegram.fake_bot_api import Stored, visible_text

GROUP_ID = GROUP["id"]


def questions(bot: Harness) -> list[Stored]:
    """The round's questions in the group, as posted: quiz polls and messages with answer buttons."""
    return [stored for stored in bot.api.sent_to(GROUP_ID)
            if stored.poll is not None or any(data.startswith("a:") for data in stored.data)]


async def asked_id_of(bot: Harness, question: Stored) -> int:
    if question.poll is not None:
        found = await asked_of_poll(bot.core.db, "telegram", question.poll["id"])
        assert found is not None
        return found
    return int(question.data[0].split(":")[1])


async def right_position(bot: Harness, question: Stored) -> int:
    row = await bot.core.db.fetch_one("SELECT option_order, question_id FROM asked_questions WHERE id = ?",
                                      (await asked_id_of(bot, question),))
    correct = bot.core.bank.questions[row["question_id"]].correct_index
    return [int(c) for c in row["option_order"]].index(correct)


async def answer(bot: Harness, member: dict, question: Stored, right: bool, other: int = 0) -> None:
    """A member answers right, or wrong (the `other`-th wrong option), by vote or by click as it was posted."""
    correct = await right_position(bot, question)
    position = correct if right else [p for p in range(len(LETTERS)) if p != correct][other]
    if question.poll is not None:
        await bot.vote(member, question.poll["id"], [position])
    else:
        letter = LETTERS[position]
        await bot.click(member, question, next(data for data in question.data if data.endswith(f":{letter}")))


async def next_question(bot: Harness) -> Stored:
    """The round's clock posts the next question; it is the newest one in the group."""
    before = len(questions(bot))
    await bot.core.quiz.run_due()
    posted = questions(bot)
    assert len(posted) == before + 1, "the clock posted the next question"
    return posted[-1]


@pytest.mark.parametrize(("args", "parsed"), [
    ([], QuizArgs()),
    (["distributed-strategies-sync", "10", "20s"], QuizArgs("distributed-strategies-sync", 10, 20)),
    (["sync-basics", "5", "30"], QuizArgs("sync-basics", 5, 30)),
    (["15S"], QuizArgs(seconds=15)),
    (["2"], QuizArgs(count=2)),
    (["5", "999s"], QuizArgs(count=5, seconds=999)),
    (["a", "b"], None), (["5", "20", "30"], None), (["5x"], None), (["1234567"], None), (["20s", "30s"], None),
])
def test_arguments(args: list[str], parsed: QuizArgs | None) -> None:
    assert quiz_args(args) == parsed


async def test_a_round_of_three_ranks_by_speed_and_counts_on_the_boards(bot: Harness, clock) -> None:
    await bot.command(ALICE, GROUP, "/quiz sync-basics 3 10s")
    assert "3 questions on Sync basics" in bot.api.last(GROUP_ID).html
    kinds = []
    for number in range(1, 4):
        question = await next_question(bot)
        kinds.append("poll" if question.poll is not None else "buttons")
        clock.advance(1)
        await answer(bot, ALICE, question, right=True)  # 950 points
        clock.advance(2)
        await answer(bot, CAROL, question, right=True)  # 850 points
        clock.advance(2)
        await answer(bot, DAN, question, right=False)
        clock.advance(6)  # past its 10 s
        await bot.core.quiz.run_due()
        if question.poll is not None:
            assert question.poll["is_closed"], "stopped if Telegram's countdown had not closed it yet"
            result = bot.api.sent_to(GROUP_ID)[-2 if number == 3 else -1].html  # under the poll: a message
        else:
            assert question.markup is None and question.edits == 1, "a button question becomes its result"
            result = question.html
        assert f"question {number}/3" in result and "2 of 3 players got it." in result
        assert "1. Alice Smith (" in result and "2. Carol (" in result
        clock.advance(3)

    assert sorted(kinds) == ["buttons", "buttons", "poll"], "the question that fits a poll went as one"
    [poll] = bot.api.calls_of("sendPoll")
    assert poll["type"] == "quiz" and poll["is_anonymous"] is False and poll["open_period"] == 10
    popups = bot.popups()
    assert ("✅ Right: 950 points.", False) in popups and ("✅ Right: 850 points.", False) in popups
    assert ("❌ Not this one: 0 points.", False) in popups

    final = bot.api.last(GROUP_ID).html
    assert "Quiz over: all 3 questions asked." in final and "<pre>" in final
    assert final.index("Alice") < final.index("Carol") < final.index("Dan"), "faster right answers rank higher"
    ranking = [line.split() for line in visible_text(final).split("\n") if line.strip()[:1].isdigit()]
    assert [row[-2:] for row in ranking] == [["2,850", "3/3"], ["2,550", "3/3"], ["0", "0/3"]]
    sent = len(bot.api.sent_to(GROUP_ID))
    assert sent == 1 + 3 + 1 + 1, "the start, three questions, a result under the poll, the ranking"
    assert await bot.count("answers") == 9

    await bot.command(DAN, GROUP, "/leaderboard all")
    board = bot.api.last(GROUP_ID).html
    assert "Alice" in board and "Carol" in board and board.index("Alice") < board.index("Carol")
    await bot.command(ALICE, GROUP, "/quiz stop")
    assert bot.api.last(GROUP_ID).html == "No quiz is running here. Start one: /quiz [topic] [questions] [seconds]"


async def test_one_answer_each_and_none_after_the_close(bot: Harness, clock) -> None:
    await bot.command(ALICE, GROUP, "/quiz sync-basics 3 10s")
    question = await next_question(bot)
    while question.poll is not None:  # a button question for the clicks (the poll's votes: the test below)
        clock.advance(11)
        await bot.core.quiz.run_due()
        clock.advance(3)
        question = await next_question(bot)
    clock.advance(2)
    await answer(bot, CAROL, question, right=True)
    await answer(bot, CAROL, question, right=False)
    assert bot.popups()[-1] == ("You have already answered this question; only the first answer counts.", True)
    await answer(bot, CAROL, question, right=True)  # the same click again (a redelivery): the same verdict
    assert bot.popups()[-1][0].startswith("✅ Right:")
    clock.advance(9)
    await answer(bot, DAN, question, right=True)  # at its 11th second: closed, though the clock has not run yet
    assert bot.popups()[-1] == ("This question is closed.", True)
    answers = await bot.core.db.fetch_all("SELECT user_id, correct FROM answers WHERE asked_id = ?",
                                          (await asked_id_of(bot, question),))
    assert [row["correct"] for row in answers] == [1], "Carol's first answer only"


async def test_poll_votes_count_and_the_poll_closes(bot: Harness, clock) -> None:
    await bot.command(ALICE, GROUP, "/quiz leakage-basics 3 15s")
    assert "Quiz: 2 questions on" in bot.api.last(GROUP_ID).html, "a topic of two questions: a round of two"
    for number in (1, 2):
        question = await next_question(bot)
        assert question.poll is not None and question.poll["open_period"] == 15
        clock.advance(2)
        await answer(bot, CAROL, question, right=True)  # 1000 - 500 * 2/15 = 933
        clock.advance(2)
        await answer(bot, DAN, question, right=False)
        await answer(bot, DAN, question, right=True)  # a second vote changes nothing
        await bot.vote(CAROL, question.poll["id"], [])  # a retracted vote changes nothing
        await bot.vote(BOB, f"{question.poll['id']}x", [0])  # not the bot's poll
        clock.advance(12)
        await bot.core.quiz.run_due()
        assert question.poll["is_closed"]
        result = next(stored.html for stored in bot.api.sent_to(GROUP_ID) if f"question {number}/2" in stored.html)
        assert "1 of 2 players got it." in result and f"1. Carol ({933 * number:,}), 2. Dan (0)" in result
        clock.advance(3)
    assert not bot.api.calls_of("answerCallbackQuery"), "a poll shows the voter its verdict itself"
    final = bot.api.last(GROUP_ID).html
    assert "all 2 questions asked" in final and final.index("Carol") < final.index("Dan") and "1,866" in final
    assert await bot.count("answers") == 4


async def test_a_second_round_is_refused_and_only_the_starter_or_an_admin_stops(bot: Harness, clock) -> None:
    bot.api.admins[GROUP_ID] = {DAN["id"]}
    await bot.command(ALICE, GROUP, "/quiz sync-basics 3 10s")
    await next_question(bot)
    await bot.command(CAROL, GROUP, "/quiz leakage-basics")
    assert bot.api.last(GROUP_ID).html.startswith("A quiz is already running here (question 1/3).")
    await bot.command(CAROL, GROUP, "/quiz stop")
    assert bot.api.last(GROUP_ID).html == "Only the member who started this quiz or an administrator can stop it."
    await bot.core.quiz.run_due()
    assert len(questions(bot)) == 1 and await bot.count("quiz_rounds") == 1, "nothing started, nothing stopped"

    await bot.command(DAN, GROUP, "/quiz stop")
    assert bot.api.last(GROUP_ID).html == "Stopping the quiz…"
    await bot.core.quiz.run_due()
    assert "Quiz stopped after 1 of 3 questions." in bot.api.last(GROUP_ID).html

    await bot.command(CAROL, GROUP, "/quiz leakage-basics 3")
    assert "Quiz: 2 questions" in bot.api.last(GROUP_ID).html, "a new round may start"
    await bot.command(CAROL, GROUP, "/quiz stop")  # its own starter, no administrator
    assert bot.api.last(GROUP_ID).html == "Stopping the quiz…"
    await bot.core.quiz.run_due()
    assert "Quiz stopped after 0 of 2 questions." in bot.api.last(GROUP_ID).html


async def test_bad_input_gets_one_line_and_starts_nothing(bot: Harness) -> None:
    for text, expected in (
            ("/quiz 2", "A round has 3 to 30 questions, not 2."),
            ("/quiz 31", "A round has 3 to 30 questions, not 31."),
            ("/quiz 5 999s", "Each question lasts 10 to 120 seconds, not 999."),
            ("/quiz sync-basics 5 9", "Each question lasts 10 to 120 seconds, not 9."),
            ("/quiz no-such-topic", "Unknown topic no-such-topic."),
            ("/quiz sync-basics leakage-basics", "Usage: /quiz [topic] [questions] [seconds]"),
            ("/quiz 5 20 30", "Usage: /quiz [topic] [questions] [seconds]"),
            ("/quiz stop now", "Usage: /quiz [topic] [questions] [seconds]"),
            ("/quiz stop", "No quiz is running here.")):
        await bot.command(CAROL, GROUP, text)
        assert bot.api.last(GROUP_ID).html.startswith(expected), text
    dm = private(CAROL)
    for text in ("/quiz", "/quiz sync-basics 5", "/quiz stop"):
        await bot.command(CAROL, dm, text)
        assert bot.api.last(CAROL["id"]).html == ("Quiz rounds are played in groups. For a private mock interview, "
                                                  "use /interview."), text
    await bot.core.quiz.run_due()
    assert await bot.count("quiz_rounds") == 0 and not questions(bot)


async def test_quiz_is_in_the_group_menu_only(bot: Harness) -> None:
    from adapters.telegram.app import register_commands

    await register_commands(bot.application.bot)
    menus = {(call["scope"]["type"], call.get("language_code")): [c["command"] for c in call["commands"]]
             for call in bot.api.calls_of("setMyCommands")}
    assert "quiz" in menus[("all_group_chats", None)] and "quiz" in menus[("all_group_chats", "tr")]
    assert "quiz" not in menus[("all_private_chats", None)]


async def test_the_cores_running_timer_posts_the_first_question_after_the_start_line(api, db, bank) -> None:
    """No hand on the clock: the core's own timer, running in the process, moves the round on."""
    core = Core(db, bank, None, random.Random(5))  # scheduled, on the system clock
    bot = await start_harness(api, core)
    await core.start()
    try:
        await bot.command(ALICE, GROUP, "/quiz sync-basics 3 10s")
        for _ in range(250):
            if questions(bot):
                break
            await asyncio.sleep(0.02)
        sent = bot.api.sent_to(GROUP_ID)
        assert len(questions(bot)) == 1 and "Quiz: 3 questions" in sent[0].html and sent[1] is questions(bot)[0]
    finally:
        for timer in (core.timer, core.reveals, core.deadlines, core.quizzes):
            if timer is not None:
                await timer.stop()
        await stop_harness(bot)


async def test_a_restart_mid_question_goes_on_and_keeps_the_answers(api, bank, clock, db_file) -> None:
    """The process dies with a question open: the next one closes it on time, the answer given before the
    crash counts, and the round plays on to its ranking."""
    first = await start_harness(api, Core(await Database.open(db_file), bank, clock, random.Random(5),
                                          scheduled=False))
    await first.command(ALICE, GROUP, "/quiz sync-basics 3 10s")
    question = await next_question(first)
    clock.advance(2)
    await answer(first, ALICE, question, right=True)  # 900 points
    await stop_harness(first)
    await first.core.db.close()

    bot = await start_harness(api, Core(await Database.open(db_file), bank, clock, random.Random(6), scheduled=False))
    try:
        clock.advance(9)
        await bot.core.quiz.run_due()  # the open question closes, in the new process
        assert any("question 1/3" in stored.html and "1. Alice Smith (900)" in stored.html
                   for stored in api.sent_to(GROUP_ID)), "the answer before the crash counts"
        for _ in range(2):
            clock.advance(3)
            question = await next_question(bot)
            clock.advance(5)
            await answer(bot, CAROL, question, right=True)  # 750 points each
            clock.advance(6)
            await bot.core.quiz.run_due()
        final = visible_text(api.last(GROUP_ID).html)
        assert "Quiz over: all 3 questions asked." in final
        assert final.index("Carol") < final.index("Alice") and "1,500" in final and "900" in final
    finally:
        await stop_harness(bot)
        await bot.core.db.close()
