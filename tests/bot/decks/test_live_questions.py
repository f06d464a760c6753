"""A deck removed or replaced while one of its questions is live, from the members' side, on both stores:
the open daily question is still revealed with its explanation and its points count, a quiz round's
question closes with its answer, a private interview answers its question and ends with a line and the
report, review cards of the removed deck stop being due, and the kept rows go once nothing live needs
them (at once, after /forget for the uploader's name, and after the 30 days of a chat that left)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from bot.core import Core, UserError
from bot.domain import InterviewFilters, UserRef
from bot.limits import DECK_LIVE_AT_MOST_S, DECK_REMOVAL_GRACE_S
from bot.store import decks as deck_store
from bot.store import quiz as quiz_store
from bot.store.interviews import get_asked
from bot.store.review import due_questions
from bot.text.plaintext import render_plain
from tests.bot.decks.files import GIFT
from tests.bot.decks.test_interviews import two_workers
from tests.bot.decks.test_core_decks import ADA, ADA_DM, BO, BO_DM, GROUP, add, buttons, right_and_wrong
from tests.fakes import RecordingPort, click

CY = UserRef("test", "u3", "Cy")
BLOCKS = GIFT.strip().split("\n\n")
EXPLAINED = "\n\n".join(BLOCKS[:2]) + "\n"  # two questions, each with an explanation
ANOTHER = "// interview-bot: difficulty=1\n::g4::Which metric suits imbalanced classes? {\n  =F1\n  ~Accuracy\n}"
EXPLANATIONS = {"Which split is a scaler fitted on?": "Anything else leaks test statistics.",
                "What does dropout do at inference time?": "Dropout is a training-time regulariser."}


def shown(port: RecordingPort, since_sent: int = 0, since_edits: int = 0) -> list[str]:
    return ([render_plain(message) for _, message in port.sent[since_sent:]]
            + [render_plain(message) for _, _, message in port.edits[since_edits:]])


async def remove(core: Core, name: str = "week") -> str:
    """The administrator asks and confirms; the confirmation's edited text."""
    question = await core.deck_remove(ADA, GROUP, name, is_admin=True)
    done = await core.click(ADA, GROUP, question.buttons[0][0].token)
    assert done.refused is None and done.edit is not None, done.popup
    return render_plain(done.edit)


async def points(core: Core, user: UserRef) -> int:
    row = await core.db.fetch_one(
        "SELECT coalesce(sum(a.points), 0) FROM answers a JOIN users u ON u.id = a.user_id"
        " WHERE u.platform_user_id = ?", (user.platform_id,))
    return int(row[0])


async def test_the_open_daily_question_is_revealed_and_counted_after_its_deck_is_removed(core, clock, port) -> None:
    await add(core, EXPLAINED)
    assert await core.post_daily_now(GROUP, topic="deck:week")
    tokens = buttons(port)
    right, wrong, question_id = await right_and_wrong(core, tokens)
    stem = core.library.get(question_id).stem("en")
    await click(core, BO, GROUP, tokens[right])
    await click(core, ADA, GROUP, tokens[wrong])
    confirmed = await remove(core)
    reveal_at = float((await core.db.fetch_one("SELECT reveal_at FROM daily_posts"))[0])
    at = datetime.fromtimestamp(reveal_at, timezone.utc).strftime("%H:%M")
    assert "is removed" in confirmed and f"still revealed at {at} (UTC)" in confirmed, confirmed
    assert "no decks yet" in render_plain(await core.deck_list(GROUP, ADA)), "gone from the list at once"
    assert (await click(core, CY, GROUP, tokens[right])).correct, "the open question still takes answers"
    sent, edits = len(port.sent), len(port.edits)
    clock.advance(13 * 3600)
    await core.tick()
    [reveal] = shown(port, sent, edits)
    assert stem in reveal and EXPLANATIONS[stem] in reveal, reveal
    assert "Bo" in reveal and "Cy" in reveal, "who got it right"
    assert await points(core, BO) > 0 and await points(core, CY) > 0, "their points count"
    board = render_plain(await core.leaderboard(GROUP, ADA, "all"))
    assert "Bo" in board and "Cy" in board
    assert await deck_store.deck_by_id(core.db, 1) is None, "deleted once its last live question was revealed"


async def test_a_removal_with_nothing_live_leaves_the_chat_at_once_and_the_store_after_the_grace(core, clock,
                                                                                                port) -> None:
    await add(core, EXPLAINED)
    confirmed = await remove(core)
    assert confirmed.strip() == "Deck `week` is removed.", confirmed
    kept = await deck_store.deck_by_id(core.db, 1)
    assert kept is not None and kept.removed_at is not None, "hidden at once, the row kept through the grace"
    clock.advance(DECK_REMOVAL_GRACE_S + 1)
    await core.tick()
    assert await deck_store.deck_by_id(core.db, 1) is None


async def test_a_quiz_question_live_when_its_deck_is_removed_closes_with_its_answer(core, clock, port) -> None:
    await add(core, GIFT)
    await core.start_quiz(ADA, GROUP, "deck:week", 3, 10)
    await core.quiz.run_due()
    tokens = buttons(port)
    right, _, _ = await right_and_wrong(core, tokens)
    assert (await click(core, BO, GROUP, tokens[right])).correct
    confirmed = await remove(core)
    assert "finish normally" in confirmed, confirmed
    sent, edits = len(port.sent), len(port.edits)
    for _ in range(3):
        clock.advance(11)
        await core.quiz.run_due()
        await core.quiz.close_due()
    after = shown(port, sent, edits)
    assert any("The answer:" in text and "1 of 1 player got it" in text and "Bo" in text for text in after), after
    assert any("Quiz stopped after 1 of 3" in text for text in after), after
    assert sum(1 for text in after if "?" in text and "Quiz" not in text) <= 1, "nothing new asked"
    assert await points(core, BO) > 0
    clock.advance(DECK_REMOVAL_GRACE_S)
    await core.tick()
    assert await deck_store.deck_by_id(core.db, 1) is None


async def test_a_private_interview_answers_its_question_then_ends_with_a_line_and_the_report(core, port) -> None:
    await add(core, GIFT)
    started = await core.start_interview(ADA, ADA_DM, InterviewFilters(topics=("deck:week",), count=3))
    first = await get_asked(core.db, started.asked_id)
    reply = await core.click(ADA, ADA_DM, await token_for(core, first.id, right=True))
    [following] = reply.follow_ups
    second = await get_asked(core.db, following.asked_id)
    stem = core.library.get(second.question_id).stem("en")
    await remove(core)
    answered = await core.click(ADA, ADA_DM, await token_for(core, second.id, right=False))
    assert answered.refused is None and not answered.correct, answered.popup
    assert stem in render_plain(answered.edit), "the answered question shown with its answer"
    [report] = answered.follow_ups
    text = render_plain(report.message)
    assert "The group removed this deck, so the interview ends here" in text, text
    assert "1/2" in text, text
    status = await core.db.fetch_one("SELECT status FROM interviews")
    assert status is not None and status[0] == "finished"


async def test_review_cards_of_a_removed_deck_stop_being_due(core, clock, port) -> None:
    await add(core, EXPLAINED)
    await core.subscribe(GROUP, "09:00", reveal_after_hours=48)  # the post stays open past the card's day
    assert await core.post_daily_now(GROUP, topic="deck:week")
    right, wrong, question_id = await right_and_wrong(core, buttons(port))
    await click(core, BO, GROUP, buttons(port)[wrong])  # a miss: a review card for Bo
    await remove(core)  # the post is still open: the deck is kept for it
    await click(core, CY, GROUP, buttons(port)[right])  # an answer after the removal: this worker holds it again
    assert core.library.get(question_id) is not None
    clock.advance(25 * 3600)
    bo = await core.db.fetch_one("SELECT id FROM users WHERE platform_user_id = 'u2'")
    assert await due_questions(core.db, int(bo[0]), clock.now()) == [question_id], "the card itself is due"
    review = await core.review(BO, BO_DM)
    assert review.asked_id is None, "a removed deck's card is not asked while its post is open"
    clock.advance(3 * 86400)
    await core.tick()
    review = await core.review(BO, BO_DM)
    assert review.asked_id is None and "review" in render_plain(review.message).lower()


async def test_a_replace_that_drops_the_open_question_still_reveals_it(core, clock, port) -> None:
    await add(core, EXPLAINED)
    assert await core.post_daily_now(GROUP, topic="deck:week")
    right, _, question_id = await right_and_wrong(core, buttons(port))
    stem = core.library.get(question_id).stem("en")
    await click(core, BO, GROUP, buttons(port)[right])
    kept = next(block for block in BLOCKS if stem not in block)
    reply = await add(core, kept + "\n\n" + BLOCKS[2] + "\n\n" + ANOTHER + "\n")
    assert "1 of its questions are unchanged" in reply, reply
    await core.start_quiz(ADA, GROUP, "deck:week", 3, 10)
    sent, edits = len(port.sent), len(port.edits)
    clock.advance(13 * 3600)
    await core.tick()
    after = shown(port, sent, edits)
    assert any(stem in text and EXPLANATIONS[stem] in text and "Bo" in text for text in after), after
    assert sum(1 for text in after if stem in text) == 1, "the dropped question is not asked again"
    stored = await deck_store.deck_questions(core.db, 1)
    assert stored is not None and stored.retired is None, "kept only until its reveal"


async def test_a_quiz_round_whose_next_question_a_replace_dropped_goes_on_with_a_new_one(core, clock, port) -> None:
    """The group replaces its deck during a round, dropping the question planned next: the round does not
    stop short; it asks one of the deck's new questions in its place and runs to its full length, never
    asking the dropped one or any question twice."""
    await add(core, GIFT)
    await core.start_quiz(ADA, GROUP, "deck:week", 3, 10)
    await core.quiz.run_due()
    round_ = await quiz_store.get_round(core.db, 1)
    assert round_ is not None and len(round_.question_ids) == 3
    dropped = core.library.get(round_.question_ids[1]).stem("en")
    kept = [block for block in BLOCKS if dropped not in block]
    reply = await add(core, "\n\n".join([*kept, ANOTHER]) + "\n")
    assert "replaces" in reply, reply
    for _ in range(8):  # Bo answers each question as it comes (a round nobody plays ends early)
        await core.click(BO, GROUP, next(iter(buttons(port).values())))  # (the last one's is refused: closed)
        clock.advance(11)
        await core.quiz.run_due()
        await core.quiz.close_due()
    texts = shown(port)
    assert any("Quiz over: all 3 questions asked" in text for text in texts), texts
    assert not any(dropped in text for text in texts), "the dropped question is not asked"
    assert any("Which metric suits imbalanced classes?" in text for text in texts), "the new one takes its place"
    asked = await quiz_store.asked_question_ids(core.db, 1)
    assert len(asked) == len(set(asked)) == 3


async def test_a_kept_deck_forgets_its_uploader_and_goes_with_a_chat_that_left(core, clock, port) -> None:
    await add(core, EXPLAINED)
    assert await core.post_daily_now(GROUP, topic="deck:week")
    await remove(core)
    assert await core.forget(ADA) is not None
    row = await core.db.fetch_one("SELECT added_by, added_by_name FROM decks")
    assert row is not None and row[0] is None and row[1] == "", "/forget reaches a removed deck too"
    await core.bot_left_chat(GROUP)
    clock.advance(30 * 86400 + 1)
    await core.tick()
    assert await core.db.fetch_one("SELECT id FROM decks") is None, "the 30-day purge deletes whatever is live"


async def test_a_removed_name_uploaded_again_is_a_new_deck_played_again(core, clock, port) -> None:
    await add(core, EXPLAINED)
    assert await core.post_daily_now(GROUP, topic="deck:week")
    await remove(core)
    reply = await add(core, GIFT)
    assert reply.startswith("deck `week`: 3 questions") and "replaces" not in reply, reply
    assert "deck:week" in render_plain(await core.deck_list(GROUP, ADA))
    started = render_plain(await core.start_quiz(ADA, GROUP, "deck:week", 3, 10))
    assert "3 questions" in started


async def token_for(core: Core, asked_id: int, right: bool) -> str:
    asked = await get_asked(core.db, asked_id)
    await core.library.ready_ids([asked.question_id])  # as a click does
    question = core.library.get(asked.question_id)
    position = next(p for p, i in enumerate(asked.option_order) if (i == question.correct_index) == right)
    return f"a:{asked_id}:{'abcdef'[position]}"


async def test_a_replace_mid_interview_answers_the_open_question_and_skips_the_dropped_ones(core, port) -> None:
    four = GIFT + "\n" + ANOTHER + "\n"
    await add(core, four)
    started = await core.start_interview(ADA, ADA_DM, InterviewFilters(topics=("deck:week",), count=4,
                                                                       adaptive=False))
    plan = [str(qid) for qid in json.loads((await core.db.fetch_one("SELECT plan FROM interviews"))[0])]
    reply = await core.click(ADA, ADA_DM, await token_for(core, started.asked_id, right=True))
    [following] = reply.follow_ups
    stems = {qid: core.library.get(qid).stem("en") for qid in plan}
    blocks = [block for block in four.strip().split("\n\n")]
    kept = [block for block in blocks if stems[plan[1]] not in block and stems[plan[2]] not in block]
    await add(core, "\n\n".join(kept) + "\n")  # drops the open question (plan[1]) and the next one (plan[2])
    answered = await core.click(ADA, ADA_DM, await token_for(core, following.asked_id, right=True))
    assert answered.refused is None and answered.correct, "the open question, dropped by the replace, still counts"
    [last] = answered.follow_ups
    assert stems[plan[3]] in render_plain(last.message), "the dropped unasked question is skipped, not the rest"
    done = await core.click(ADA, ADA_DM, await token_for(core, last.asked_id, right=False))
    [report] = done.follow_ups
    text = render_plain(report.message)
    assert "2/3" in text and "removed this deck" not in text, text


async def test_a_removal_on_another_worker_reaches_this_ones_cache_and_its_reveal(db_path, bank, clock) -> None:
    async with two_workers(db_path, bank, clock) as (first, second, port):
        first_port = first.ports["test"]
        assert await first.post_daily_now(GROUP, topic="deck:week")
        tokens = buttons(first_port)
        right, _, question_id = await right_and_wrong(first, tokens)
        stem = first.library.get(question_id).stem("en")
        await click(first, BO, GROUP, tokens[right])
        question = await second.deck_remove(ADA, GROUP, "week", is_admin=True)
        assert (await second.click(ADA, GROUP, question.buttons[0][0].token)).refused is None
        with pytest.raises(UserError):
            await first.start_quiz(ADA, GROUP, "deck:week", 3, 10)  # the first worker held the deck: not any more
        clock.advance(13 * 3600)
        await first.tick()
        [(_, _, reveal)] = first_port.edits
        assert stem in render_plain(reveal) and "Bo" in render_plain(reveal)
        assert await deck_store.deck_by_id(second.db, 1) is None, "the revealing worker's own sweep deleted it"


async def test_an_interview_whose_last_question_was_live_ends_as_usual(core, port) -> None:
    await add(core, GIFT)
    started = await core.start_interview(ADA, ADA_DM, InterviewFilters(topics=("deck:week",), count=2))
    reply = await core.click(ADA, ADA_DM, await token_for(core, started.asked_id, right=True))
    [last] = reply.follow_ups
    await remove(core)
    done = await core.click(ADA, ADA_DM, await token_for(core, last.asked_id, right=True))
    [report] = done.follow_ups
    text = render_plain(report.message)
    assert "2/2" in text and "removed this deck" not in text, "it reached its count: no line about an early end"


async def test_an_interview_left_open_past_the_kept_days_is_stopped_at_its_next_click(core, clock, port) -> None:
    await add(core, GIFT)
    started = await core.start_interview(ADA, ADA_DM, InterviewFilters(topics=("deck:week",), count=3))
    await remove(core)
    clock.advance(DECK_LIVE_AT_MOST_S + 60)
    await core.tick()
    assert await deck_store.deck_by_id(core.db, 1) is None, "not kept past its days"
    asked = await get_asked(core.db, started.asked_id)
    late = await core.click(ADA, ADA_DM, f"a:{asked.id}:a")
    assert late.refused == "deck_gone" and "your interview is stopped" in late.popup, late.popup
    status = await core.db.fetch_one("SELECT status FROM interviews")
    assert status is not None and status[0] == "stopped", "no interview left waiting for an answer that cannot come"
    assert (await core.click(ADA, ADA_DM, f"a:{asked.id}:a")).refused == "unknown"
