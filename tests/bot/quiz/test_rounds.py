"""Live quiz rounds through the one door, on a moved clock: the questions one after another, speed
scoring, one answer each, the stop rules, the boards, a restart mid-round, and bad input."""

from __future__ import annotations

import random

import pytest

from bot.core import Core
from bot.domain import ChatRef, UserRef
from bot.errors import UserError
from bot.store.database import Database
from bot.store.quiz import ask_next, running_round
from bot.asking.delivery import shuffled_options
from bot.text.plaintext import render_plain
from tests.fakes import RecordingPort, click

GROUP = ChatRef("test", "g1", "group", "Study group")
DM = ChatRef("test", "u1", "private", "Ana")
ANA, BO, CEM = UserRef("test", "u1", "Ana"), UserRef("test", "u2", "Bo"), UserRef("test", "u3", "Cem")


def open_question(port: RecordingPort):
    """The newest message with buttons, and the token of each letter on it."""
    message = next(m for _, m in reversed(port.sent) if m.buttons)
    return message, {button.token.split(":")[-1]: button.token for row in message.buttons for button in row}


async def right_letter(core: Core, tokens: dict[str, str]) -> str:
    asked_id = int(next(iter(tokens.values())).split(":")[1])
    row = await core.db.fetch_one("SELECT question_id, option_order FROM asked_questions WHERE id = ?", (asked_id,))
    correct = core.bank.questions[row[0]].correct_index
    return "abcd"[[int(c) for c in row[1]].index(correct)]


async def test_a_full_round_scores_by_speed_and_counts_on_the_boards(core, clock, port) -> None:
    started = await core.start_quiz(ANA, GROUP, "sync-basics", 3, 10)
    assert "3 questions" in render_plain(started)
    for number in range(3):
        await core.quiz.run_due()
        _, tokens = open_question(port)
        right = await right_letter(core, tokens)
        wrong = next(letter for letter in tokens if letter != right)
        clock.advance(1)
        reply = await click(core, ANA, GROUP, tokens[right])
        assert reply.correct and "950 points" in reply.popup
        clock.advance(4)
        assert (await click(core, BO, GROUP, tokens[right])).correct
        await click(core, CEM, GROUP, tokens[wrong])
        clock.advance(6)  # past the 10 s
        await core.quiz.run_due()  # closes the question: its result is an edit of the question
        result = render_plain(port.edits[-1][2])
        assert "got it" in result and "1. Ana" in result
        clock.advance(3)
    await core.quiz.run_due()
    final = render_plain(port.sent[-1][1])
    assert "Quiz over" in final
    assert final.index("Ana") < final.index("Bo") < final.index("Cem"), "faster right answers rank higher"
    assert "2,850" in final and "2,250" in final, "950 three times, then 750 three times"
    board = render_plain(await core.leaderboard(GROUP, ANA, "all"))
    assert "Ana" in board and "Bo" in board, "the round's right answers count on the all-time board"
    assert await running_round(core.db, (await core.caller(ANA, GROUP)).chat.id) is None


async def test_one_answer_each_and_no_answer_after_the_close(core, clock, port) -> None:
    await core.start_quiz(ANA, GROUP, "sync-basics", 3, 10)
    await core.quiz.run_due()
    _, tokens = open_question(port)
    letters = sorted(tokens)
    first = await click(core, ANA, GROUP, tokens[letters[0]])
    again = await click(core, ANA, GROUP, tokens[letters[0]])
    assert again.refused is None and again.correct == first.correct, "a redelivered click: the same verdict"
    other = await core.click(ANA, GROUP, tokens[letters[1]])
    assert other.refused == "already_answered"
    clock.advance(11)
    late = await core.click(BO, GROUP, tokens[letters[0]])
    assert late.refused == "closed"
    elsewhere = await core.click(CEM, ChatRef("test", "g2", "group", "Other"), tokens[letters[0]])
    assert elsewhere.refused is not None
    assert (await core.db.fetch_one("SELECT count(*) FROM answers"))[0] == 1


async def test_a_second_quiz_is_refused_and_only_the_starter_or_an_admin_stops(core, clock, port) -> None:
    await core.start_quiz(ANA, GROUP, "sync-basics", 3, 10)
    with pytest.raises(UserError) as running:
        await core.start_quiz(BO, GROUP)
    assert running.value.key == "quiz.running"
    with pytest.raises(UserError) as refused:
        await core.stop_quiz(BO, GROUP, is_admin=False)
    assert refused.value.key == "quiz.not_allowed"
    await core.quiz.run_due()
    stopping = await core.stop_quiz(CEM, GROUP, is_admin=True)
    assert "Stopping" in render_plain(stopping)
    await core.quiz.run_due()
    assert "stopped after 1 of 3" in render_plain(port.sent[-1][1])
    assert render_plain(await core.start_quiz(BO, GROUP, "sync-basics", 3, 10)), "a new round may start"
    await core.stop_quiz(BO, GROUP, is_admin=False)  # its own starter


async def test_two_questions_nobody_answers_end_the_round(core, clock, port) -> None:
    await core.start_quiz(ANA, GROUP, "sync-basics", 3, 10)
    for _ in range(2):
        await core.quiz.run_due()
        clock.advance(11)
        await core.quiz.run_due()
        clock.advance(3)
    assert "nobody answered two questions in a row" in render_plain(port.sent[-1][1])
    assert "Nobody played" in render_plain(port.sent[-1][1])


async def test_bad_input_gets_one_clear_line_and_starts_nothing(core) -> None:
    for kwargs, key in (({"count": 2}, "quiz.bad_count"), ({"count": 31}, "quiz.bad_count"),
                        ({"seconds": 9}, "quiz.bad_seconds"), ({"seconds": 121}, "quiz.bad_seconds"),
                        ({"topic": "no-such-topic"}, "interview.unknown_topic")):
        with pytest.raises(UserError) as error:
            await core.start_quiz(ANA, GROUP, **kwargs)
        assert error.value.key == key
    with pytest.raises(UserError) as private:
        await core.start_quiz(ANA, DM)
    assert private.value.key == "quiz.group_only"
    with pytest.raises(UserError) as nothing:
        await core.stop_quiz(ANA, GROUP, is_admin=True)
    assert nothing.value.key == "quiz.none_running"
    assert (await core.db.fetch_one("SELECT count(*) FROM quiz_rounds"))[0] == 0


async def test_a_restart_mid_round_goes_on_and_keeps_the_answers(db_path, bank, clock) -> None:
    first_port = RecordingPort()
    first = Core(await Database.open(db_path), bank, clock, random.Random(1), scheduled=False)
    first.add_port(first_port)
    await first.start_quiz(ANA, GROUP, "sync-basics", 3, 10)
    await first.quiz.run_due()
    _, tokens = open_question(first_port)
    right = await right_letter(first, tokens)
    clock.advance(2)
    await click(first, ANA, GROUP, tokens[right])
    chat_id = (await first.caller(ANA, GROUP)).chat.id
    await first.db.close()  # the process dies mid-question

    second_port = RecordingPort()
    second = Core(await Database.open(db_path), bank, clock, random.Random(2), scheduled=False)
    second.add_port(second_port)
    try:
        clock.advance(9)
        await second.quiz.run_due()  # the open question closes on time, after the restart
        assert "1. Ana" in render_plain(second_port.edits[-1][2]), "the answer before the crash still counts"
        # the next question is recorded, then the process dies before sending it
        round_ = await running_round(second.db, chat_id)
        question = second.bank.questions[round_.question_ids[round_.asked]]
        clock.advance(3)
        await ask_next(second.db, round_, question.id, shuffled_options(question, random.Random(0)), clock.now())
        clock.advance(10)
        await second.quiz.run_due()  # found recorded but never sent: sent now, with its full time
        message, tokens = open_question(second_port)
        assert "question 2/3" in render_plain(message)
        clock.advance(5)
        assert (await click(second, BO, GROUP, tokens[await right_letter(second, tokens)])).correct
    finally:
        await second.db.close()


async def test_a_send_that_waited_for_the_groups_pace_still_gets_its_full_time(db, bank, clock) -> None:
    class PacedPort(RecordingPort):
        async def send(self, chat, message):
            clock.advance(4)  # the group's pace held the question back
            return await super().send(chat, message)

    port = PacedPort()
    core = Core(db, bank, clock, random.Random(5), scheduled=False)
    core.add_port(port)
    await core.start_quiz(ANA, GROUP, "sync-basics", 3, 10)
    await core.quiz.run_due()
    _, tokens = open_question(port)
    clock.advance(9)  # 9 s after the question reached the chat: 13 s after it was first due
    reply = await core.click(BO, GROUP, tokens[sorted(tokens)[0]])
    assert reply.refused is None, "the player still had time left"


async def test_questions_close_on_time_without_waiting_for_the_clocks_sends(core, clock, port) -> None:
    """The close pass stops answers at the deadline in one statement; the result follows at the send pace."""
    await core.start_quiz(ANA, GROUP, "sync-basics", 3, 10)
    await core.quiz.run_due()
    _, tokens = open_question(port)
    assert await core.quiz.next_close() == clock.now() + 10
    clock.advance(10.5)
    assert await core.quiz.close_due() == 1
    row = await core.db.fetch_one(
        "SELECT a.closed_at - q.closes_at FROM quiz_questions q JOIN asked_questions a ON a.id = q.asked_id")
    assert 0 <= row[0] <= 0.5
    assert (await core.click(BO, GROUP, tokens[sorted(tokens)[0]])).refused == "closed"
    edits = len(port.edits)
    await core.quiz.run_due()  # the clock shows the result later; the close time stays the one recorded
    assert len(port.edits) == edits + 1
    again = await core.db.fetch_one(
        "SELECT a.closed_at - q.closes_at FROM quiz_questions q JOIN asked_questions a ON a.id = q.asked_id")
    assert again[0] == row[0]
