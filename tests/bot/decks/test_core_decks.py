"""Group decks through the one door, Core, on both stores and a moved clock: each format added and
played (a daily post and a quiz round), replaced with its ids kept, exported, removed with a confirmation,
and refused when it must be."""

from __future__ import annotations

import pytest

from bot.core import Core, Document, UserError
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.limits import DECK_MAX_BYTES, DECKS_PER_CHAT
from bot.text.plaintext import render_plain
from tests.bot.decks.files import BROKEN, CSV, GIFT, GOOD
from tests.fakes import RecordingPort, click

GROUP = ChatRef("test", "g1", "group", "Study group")
OTHER = ChatRef("test", "g2", "group", "Other group")
ADA, BO = UserRef("test", "u1", "Ada"), UserRef("test", "u2", "Bo")
ADA_DM = ChatRef("test", "u1", "private", "Ada")
BO_DM = ChatRef("test", "u2", "private", "Bo")
STEMS = {"Which split is a scaler fitted on?", "What does dropout do at inference time?",
         "Which optimiser keeps per-parameter second moments?"}


async def add(core: Core, text: str, name: str = "week", filename: str = "week.gift", chat: ChatRef = GROUP,
              user: UserRef = ADA, admin: bool = True) -> str:
    return render_plain(await core.deck_add(user, chat, name, filename, text.encode(), admin))


def buttons(port: RecordingPort):
    message = next(m for _, m in reversed(port.sent) if m.buttons)
    return {button.token.split(":")[-1]: button.token for row in message.buttons for button in row}


async def right_and_wrong(core: Core, tokens: dict[str, str]) -> tuple[str, str, str]:
    """(right letter, a wrong letter, the question id) of the question the tokens answer."""
    asked_id = int(next(iter(tokens.values())).split(":")[1])
    row = await core.db.fetch_one("SELECT question_id, option_order FROM asked_questions WHERE id = ?", (asked_id,))
    question = core.library.get(row[0])
    right = "abcdef"[[int(c) for c in row[1]].index(question.correct_index)]
    return right, next(letter for letter in tokens if letter != right), row[0]


@pytest.mark.parametrize("fmt", sorted(GOOD))
async def test_each_format_is_added_and_played_in_a_daily_post_and_a_quiz(core, clock, port, fmt) -> None:
    filename, text = GOOD[fmt]
    reply = await add(core, text, filename=filename)
    assert reply.startswith("deck `week`: 3 questions ("), reply
    assert "without explanations" in reply
    assert await core.post_daily_now(GROUP, topic="deck:week")
    posted = render_plain(port.sent[-1][1])
    assert any(stem in posted for stem in STEMS) and "deck:week" in posted, posted
    right, _, question_id = await right_and_wrong(core, buttons(port))
    assert question_id.startswith("deck.")
    assert (await click(core, BO, GROUP, buttons(port)[right])).correct
    started = render_plain(await core.start_quiz(ADA, GROUP, "deck:week", 3, 10))
    assert "3 questions" in started
    for _ in range(3):
        await core.quiz.run_due()
        asked = render_plain(port.sent[-1][1])
        assert any(stem in asked for stem in STEMS), asked
        right, _, _ = await right_and_wrong(core, buttons(port))
        assert (await click(core, ADA, GROUP, buttons(port)[right])).correct
        clock.advance(11)
        await core.quiz.run_due()
        clock.advance(3)
    await core.quiz.run_due()
    board = render_plain(await core.leaderboard(GROUP, ADA, "all"))
    assert "Ada" in board and "Bo" in board, "deck answers count on the board"


async def test_the_summary_counts_levels_and_missing_explanations(core) -> None:
    assert (await add(core, CSV, filename="w.csv")).startswith(
        "deck `week`: 3 questions (1 easy, 1 medium, 1 hard), 1 without explanations")


@pytest.mark.parametrize("fmt", sorted(BROKEN))
async def test_a_broken_file_gets_its_lines_and_nothing_is_stored(core, fmt) -> None:
    filename, text, line = BROKEN[fmt]
    reply = await add(core, text, filename=filename)
    assert "was not stored" in reply and line in reply, reply
    assert "no decks yet" in render_plain(await core.deck_list(GROUP, ADA))


async def test_at_most_ten_problems_then_how_many_more(core) -> None:
    rows = "".join(f"Q{i}?,a|a,A,,easy,\n" for i in range(14))
    reply = await add(core, "stem,options,key,explanation,difficulty,tags\n" + rows, filename="x.csv")
    assert reply.count("line ") == 10 and "and 4 more" in reply, reply


async def test_only_administrators_add_or_remove(core, port) -> None:
    assert "Only the group's administrators" in await add(core, GIFT, admin=False)
    await add(core, GIFT)
    refusal = await core.deck_remove(BO, GROUP, "week", is_admin=False)
    assert "Only the group's administrators" in render_plain(refusal) and not refusal.buttons
    assert "Only the group's administrators" in await add(core, CSV, user=BO, admin=False), "no replace either"
    assert "deck:week" in render_plain(await core.deck_list(GROUP, BO)), "anyone may list"


async def test_names_and_the_twentyfirst_deck(core) -> None:
    assert "is not one" in await add(core, GIFT, name="Week 1!")
    assert "deck `week-1`" in await add(core, GIFT, name="Week-1")  # lower-cased
    for number in range(2, DECKS_PER_CHAT + 1):
        await add(core, GIFT, name=f"w{number}")
    assert f"holds {DECKS_PER_CHAT} decks already" in await add(core, GIFT, name="one-more")
    assert "deck `w2`" in await add(core, CSV, name="w2", filename="w.csv"), "a replace is not a new deck"


async def test_what_refuses_an_upload_whatever_its_file_is_known_before_the_file(core) -> None:
    """The adapters ask this before downloading: a bad name, a member, a private chat, a full chat."""
    async def refusal(name: str, chat: ChatRef = GROUP, admin: bool = True) -> str | None:
        message = await core.deck_add_refusal(ADA, chat, name, admin)
        return None if message is None else render_plain(message)

    assert "is not one" in (await refusal("Week 1!") or "")
    assert await refusal("week-1", admin=False) is not None and await refusal("week-1", chat=ADA_DM) is not None
    assert await refusal("w1") is None
    for number in range(1, DECKS_PER_CHAT + 1):
        await add(core, GIFT, name=f"w{number}")
    assert f"holds {DECKS_PER_CHAT} decks already" in (await refusal("one-more") or "")
    assert await refusal("w3") is None, "replacing a deck in a full chat is fine"


async def test_replacing_keeps_the_ids_and_review_cards_of_unchanged_questions(core, clock, port) -> None:
    await add(core, GIFT)
    assert await core.post_daily_now(GROUP, topic="deck:week")
    _, wrong, missed_id = await right_and_wrong(core, buttons(port))
    await click(core, BO, GROUP, buttons(port)[wrong])  # a miss: a review card for Bo
    missed_stem = core.library.get(missed_id).stem("en")
    other = next(stem for stem in sorted(STEMS) if stem != missed_stem)
    old_ids = {question.stem("en"): question.id for question in core.library.select(("deck.1",))}
    reply = await add(core, GIFT.replace(other, other.replace("?", ", in one word?")))
    assert "2 of its questions are unchanged" in reply, reply
    await core.post_daily_now(GROUP, topic="deck:week")
    new_ids = {question.stem("en"): question.id for question in core.library.select(("deck.1",))}
    assert new_ids[missed_stem] == old_ids[missed_stem], "an unchanged question keeps its id"
    assert old_ids[other] not in new_ids.values(), "a changed one is a new question"
    clock.advance(3 * 86400)
    review = await core.review(BO, BO_DM)
    assert review.asked_id is not None, "the review card survived the replace"
    row = await core.db.fetch_one("SELECT question_id FROM asked_questions WHERE id = ?", (review.asked_id,))
    assert row[0] == missed_id and missed_stem in render_plain(review.message)


async def test_export_gives_the_deck_back(core) -> None:
    await add(core, CSV, filename="w.csv")
    gift = await core.deck_export(ADA, GROUP, "week")
    assert isinstance(gift, Document) and gift.filename == "week.gift"
    assert "Adam" in gift.data.decode() and "3 questions" in gift.caption
    again = render_plain(await core.deck_add(ADA, GROUP, "again", gift.filename, gift.data, True))
    assert again.startswith("deck `again`: 3 questions (1 easy, 1 medium, 1 hard)"), "a round trip keeps it"
    csv = await core.deck_export(ADA, GROUP, "deck:week", "csv")
    assert isinstance(csv, Document) and csv.data.decode().startswith("stem,options,key")
    assert "gift or csv" in render_plain(await core.deck_export(ADA, GROUP, "week", "anki"))
    assert "no deck nope" in render_plain(await core.deck_export(ADA, GROUP, "nope"))


async def test_removing_asks_first_and_keeps_the_answers_on_the_board(core, port) -> None:
    await add(core, GIFT)
    assert await core.post_daily_now(GROUP, topic="deck:week")
    right, _, _ = await right_and_wrong(core, buttons(port))
    await click(core, BO, GROUP, buttons(port)[right])
    await core.subscribe(GROUP, "09:00", "UTC", topic="deck:week")
    question = await core.deck_remove(ADA, GROUP, "week", is_admin=True)
    assert "Remove deck `week` (3 questions)?" in render_plain(question)
    token = question.buttons[0][0].token
    assert "deck:week" in render_plain(await core.deck_list(GROUP, ADA)), "nothing removed before the confirmation"
    refused = await core.click(BO, GROUP, token)
    assert refused.refused == "not_allowed", "only the administrator who asked confirms"
    done = await core.click(ADA, GROUP, token)
    assert done.refused is None and "is removed" in done.popup and done.edit is not None
    assert "no decks yet" in render_plain(await core.deck_list(GROUP, ADA))
    again = await core.click(ADA, GROUP, token)
    assert again.refused == "unknown", "a second press removes nothing"
    with pytest.raises(UserError) as unknown:
        await core.start_quiz(ADA, GROUP, "deck:week")
    assert "/deck list" in core.error_text("en", unknown.value)
    assert "deck:" not in render_plain(await core.settings(GROUP)), "the daily question went back to every topic"
    assert "Bo" in render_plain(await core.leaderboard(GROUP, ADA, "all")), "answers stay on the board"


async def test_a_deck_is_visible_only_in_its_chat_and_its_members_dms(core, port) -> None:
    await add(core, GIFT)
    for attempt in (core.start_quiz(ADA, OTHER, "deck:week"), core.post_daily_now(OTHER, topic="deck:week"),
                    core.subscribe(OTHER, "09:00", topic="deck:week"),
                    core.start_quiz(ADA, OTHER, "deck.1"), core.start_quiz(ADA, GROUP, "deck.1")):
        with pytest.raises(UserError):
            await attempt
    assert "no decks yet" in render_plain(await core.deck_list(OTHER, ADA))
    assert "no deck week" in render_plain(await core.deck_export(ADA, OTHER, "week"))
    assert await core.decks_for(BO) == [], "Bo is not known in the group yet"
    with pytest.raises(UserError):
        await core.start_interview(BO, BO_DM, InterviewFilters(topics=("deck:week",), count=3))
    assert await core.post_daily_now(GROUP, topic="deck:week")
    right, _, _ = await right_and_wrong(core, buttons(port))
    await click(core, BO, GROUP, buttons(port)[right])  # now Bo is on the group's board
    assert await core.decks_for(BO) == [(ChatRef("test", "g1", "group", "Study group"), "week")]
    assert "deck:week" in render_plain(await core.deck_list(BO_DM, BO))
    started = await core.start_interview(BO, BO_DM, InterviewFilters(topics=("deck:week",), count=3))
    assert any(stem in render_plain(started.message) for stem in STEMS)
    ambiguous = await core.start_interview(ADA, ADA_DM, InterviewFilters(topics=("deck:week@g1",), count=2))
    assert ambiguous.asked_id is not None, "deck:NAME@<chat id> names the group"


async def test_forget_removes_the_uploaders_name_and_keeps_the_deck(core) -> None:
    await add(core, GIFT)
    assert "Ada" in render_plain(await core.deck_list(GROUP, BO))
    assert await core.forget(ADA) is not None
    listing = render_plain(await core.deck_list(GROUP, BO))
    assert "deck:week" in listing and "Ada" not in listing and "(forgotten)" in listing


async def test_a_chat_that_removed_the_bot_loses_its_decks_after_thirty_days(core, clock) -> None:
    await add(core, GIFT)
    await add(core, GIFT, chat=OTHER)
    await core.bot_left_chat(GROUP)
    clock.advance(29 * 86400)
    await core.tick()
    assert "deck:week" in render_plain(await core.deck_list(GROUP, ADA)), "kept for 30 days"
    await core.bot_left_chat(OTHER)
    await core.bot_joined_chat(OTHER)  # the bot is back there: its decks stay
    clock.advance(86400 + 1)
    await core.tick()
    assert "no decks yet" in render_plain(await core.deck_list(GROUP, ADA))
    assert "deck:week" in render_plain(await core.deck_list(OTHER, ADA))


async def test_a_quiz_round_on_a_removed_deck_stops_asking_it(core, clock, port) -> None:
    await add(core, GIFT)
    await core.start_quiz(ADA, GROUP, "deck:week", 3, 10)
    await core.quiz.run_due()
    assert any(stem in render_plain(port.sent[-1][1]) for stem in STEMS)
    question = await core.deck_remove(ADA, GROUP, "week", is_admin=True)
    assert (await core.click(ADA, GROUP, question.buttons[0][0].token)).refused is None
    for _ in range(3):
        clock.advance(11)
        await core.quiz.run_due()
    shown = [render_plain(message) for _, message in port.sent]
    assert "Quiz stopped after 1 of 3" in shown[-1], shown[-1]
    assert sum(1 for text in shown if any(stem in text for stem in STEMS)) == 1, "no deck question after removal"


async def test_a_file_over_the_size_limit_is_one_line_in_the_chats_language(core) -> None:
    reply = await add(core, "x" * (DECK_MAX_BYTES + 1))
    assert "1,000,001 bytes" in reply and "at most 1,000,000" in reply
    await core.set_language("tr", chat=GROUP)
    assert "bayt" in await add(core, "x" * (DECK_MAX_BYTES + 1))
    assert (await add(core, GIFT)).startswith("`week` destesi: 3 soru (1 kolay, 1 orta, 1 zor), 1 soru açıklamasız")
    assert "deck:week" in render_plain(await core.deck_list(GROUP, ADA))
