"""Live quiz rounds in a server channel through real discord.py parsing: /quiz start and /quiz stop, the
questions posted by the core's quiz clock through the DiscordPort (buttons and a relative timestamp),
members clicking at different times, each question's result as an edit, the final ranking; the refusals
(a second round, a stop by someone who may not, bad input, a DM) and the topic autocomplete."""

from __future__ import annotations

import re

import pytest

from tests.adapters.discord.harness import ADMIN, APP_ID, CHANNEL_ID, MEMBER, Request, last_message_id, user
from tests.adapters.discord.helpers import answer_count, asked_id_of, letters

ADA, BOB, CEM, ADMIN_USER = user(1, "Ada"), user(2, "Bob"), user(3, "Cem"), user(10, "Admin")


async def rounds(db) -> int:
    return (await db.fetch_one("SELECT count(*) AS n FROM quiz_rounds"))["n"]


async def tick(core, recorder) -> list[Request]:
    """The quiz clock's turn (what the core's one timer does when a round is due): what it sent Discord."""
    mark = len(recorder.requests)
    await core.quiz.run_due()
    return recorder.since(mark)


async def start_round(discord_, who=ADA, **options) -> Request:
    [reply] = await discord_.command("quiz", who, sub="start", **options)
    assert reply.callback_type == 4 and not reply.ephemeral, "the start is told to the whole channel"
    return reply


async def test_a_full_round_ranks_three_members_by_speed(discord_, recorder, core, clock, db, bank) -> None:
    started = await start_round(discord_, topic="sync-basics", questions=3, seconds=10)
    assert "3 questions on Sync basics" in started.text() and "10 s each" in started.text()
    for number in (1, 2, 3):
        [question] = await tick(core, recorder)
        assert question.method == "POST" and question.path == f"/channels/{CHANNEL_ID}/messages"
        assert question.json["embeds"][0]["footer"]["text"].startswith(f"🎯 Quiz · question {number}/3")
        closes = question.json["embeds"][0]["description"]
        assert re.search(r"closes at <t:(\d+):t> \(<t:\1:R>\)", closes), "the closing time as a relative timestamp"
        message_id = last_message_id(recorder)
        asked_id = asked_id_of(question.custom_ids()[0])
        right, wrong = await letters(db, bank, asked_id)

        clock.advance(1)
        [ada] = await discord_.click(message_id, f"a:{asked_id}:{right}", ADA)
        assert ada.callback_type == 4 and ada.ephemeral and ada.text() == "✅ Right: 950 points."
        clock.advance(3)
        [bob] = await discord_.click(message_id, f"a:{asked_id}:{right}", BOB)
        assert bob.ephemeral and bob.text() == "✅ Right: 800 points."
        clock.advance(2)
        [cem] = await discord_.click(message_id, f"a:{asked_id}:{wrong}", CEM)
        assert cem.ephemeral and cem.text() == "❌ Not this one: 0 points."
        [again] = await discord_.click(message_id, f"a:{asked_id}:{wrong}", ADA)
        assert again.ephemeral and "only the first answer counts" in again.text(), "one answer each"
        assert await answer_count(db) == 3 * number

        clock.advance(5)  # past the 10 s
        requests = await tick(core, recorder)
        result = requests[0]
        assert result.method == "PATCH" and result.path == f"/channels/{CHANNEL_ID}/messages/{message_id}"
        assert result.json["components"] == [], "the question's buttons are gone"
        assert f"The answer: {right.upper()}." in result.text() and "2 of 3 players got it" in result.text()
        assert "Top so far: 1. Ada" in result.text()
        [late] = await discord_.click(message_id, f"a:{asked_id}:{right}", user(4, "Dan"))
        assert late.ephemeral and "not valid any more" in late.text()
        if number < 3:
            assert len(requests) == 1
            clock.advance(3)  # the gap before the next question

    final = requests[-1]
    assert final.method == "POST" and final.path == f"/channels/{CHANNEL_ID}/messages"
    text = final.text()
    assert "Quiz over: all 3 questions asked" in text
    assert text.index("Ada") < text.index("Bob") < text.index("Cem"), "faster right answers rank higher"
    assert re.search(r"1\s+Ada\s+2,850\s+3/3", text) and re.search(r"2\s+Bob\s+2,400\s+3/3", text)
    assert re.search(r"3\s+Cem\s+0\s+0/3", text), "everyone who played is named"
    [board] = await discord_.command("leaderboard", BOB, period="all")
    assert "Ada" in board.text() and "Bob" in board.text(), "the round's right answers count on the board"
    assert await tick(core, recorder) == [], "the round is over: the clock has nothing more to do"


async def test_a_second_quiz_is_refused_while_one_runs(discord_, recorder, core, db) -> None:
    await start_round(discord_, topic="sync-basics", questions=3, seconds=10)
    await tick(core, recorder)
    [refused] = await discord_.command("quiz", BOB, sub="start", questions=5)
    assert refused.callback_type == 4 and refused.ephemeral
    assert refused.text() == "A quiz is already running here (question 1/3). `/quiz stop` ends it (its starter or " \
                             "Manage Server)."
    [turkish] = await discord_.command("quiz", CEM, sub="start", locale="tr")
    assert turkish.ephemeral and "`/yarışma bitir` (`/quiz stop`)" in turkish.text()
    assert await rounds(db) == 1, "nothing started"


async def test_only_the_starter_or_manage_server_stops_a_round(discord_, recorder, core, db) -> None:
    await start_round(discord_, topic="sync-basics", questions=3, seconds=10)
    await tick(core, recorder)
    [refused] = await discord_.command("quiz", BOB, sub="stop", permissions=MEMBER)
    assert refused.ephemeral and refused.text() == "Only the member who started this quiz or an administrator " \
                                                   "can stop it."
    assert await tick(core, recorder) == [], "the round goes on"
    [stopping] = await discord_.command("quiz", ADMIN_USER, sub="stop", permissions=ADMIN)
    assert stopping.callback_type == 4 and not stopping.ephemeral and "Stopping the quiz" in stopping.text()
    [final] = await tick(core, recorder)
    assert final.method == "POST" and "Quiz stopped after 1 of 3 questions" in final.text()

    await start_round(discord_, BOB, topic="sync-basics", questions=3, seconds=10)
    [own] = await discord_.command("quiz", BOB, sub="stop", permissions=MEMBER)
    assert not own.ephemeral and "Stopping the quiz" in own.text(), "a round's own starter stops it"
    await tick(core, recorder)  # the clock ends it
    [nothing] = await discord_.command("quiz", BOB, sub="stop")
    assert nothing.ephemeral and "No quiz is running here" in nothing.text()


@pytest.mark.parametrize("options, line", [
    ({"questions": 2}, "A round has 3 to 30 questions, not 2."),
    ({"questions": 31}, "A round has 3 to 30 questions, not 31."),
    ({"seconds": 999}, "Each question lasts 10 to 120 seconds, not 999."),
    ({"seconds": 9}, "Each question lasts 10 to 120 seconds, not 9."),
    ({"topic": "no-such-topic"}, "Unknown topic no-such-topic. Known topics: leakage-basics, sync-basics."),
    ({"dm": True}, "Quiz rounds are played in server channels. For a private mock interview, use `/interview` here."),
])
async def test_bad_input_is_one_ephemeral_line_and_starts_nothing(discord_, recorder, core, db, options, line) -> None:
    requests = await discord_.command("quiz", ADA, sub="start", **options)
    assert len(requests) == 1, "one response, nothing posted"
    [reply] = requests
    assert reply.callback_type == 4 and reply.ephemeral and reply.text() == line
    assert await rounds(db) == 0 and await tick(core, recorder) == []


async def test_in_a_dm_in_turkish(discord_, db) -> None:
    [reply] = await discord_.command("quiz", ADA, sub="start", dm=True, locale="tr")
    assert reply.ephemeral and "sunucu kanallarında" in reply.text() and "`/mülakat` (`/interview`)" in reply.text()
    [stop] = await discord_.command("quiz", ADA, sub="stop", dm=True)
    assert stop.ephemeral and "server channels" in stop.text()
    assert await rounds(db) == 0


async def test_the_topic_autocomplete_lists_matching_topics_in_english_and_turkish(discord_) -> None:
    async def offered(typed: str, locale: str) -> list[dict]:
        [reply] = await discord_.autocomplete("quiz", ADA, "topic", typed, locale=locale, sub="start")
        assert reply.callback_type == 8
        return reply.json["data"]["choices"]

    assert await offered("sync", "en-US") == [{"name": "Sync basics (test fixture) (sync-basics)",
                                                "value": "sync-basics"}]
    assert await offered("senkron", "tr") == [{"name": "Senkronizasyon temelleri (test verisi) (sync-basics)",
                                                "value": "sync-basics"}]
    assert sorted(choice["value"] for choice in await offered("", "tr")) == ["leakage-basics", "sync-basics"]
    assert await offered("zzz", "en-US") == []


async def test_a_topic_typed_by_its_turkish_title_starts_that_topic(discord_, recorder, core) -> None:
    started = await start_round(discord_, topic="senkronizasyon temelleri (test verisi)", questions=3, seconds=10)
    assert "Sync basics" in started.text()
    [question] = await tick(core, recorder)
    assert "Sync basics" in question.json["embeds"][0]["footer"]["text"]


async def test_a_slow_start_is_deferred_then_followed_up(discord_, recorder, core, monkeypatch) -> None:
    """Discord allows 3 s: a start that takes longer than the budget shows "thinking" first."""
    import asyncio

    original = core.start_quiz

    async def slow(*args, **kwargs):
        await asyncio.sleep(0.2)
        return await original(*args, **kwargs)

    monkeypatch.setattr(core, "start_quiz", slow)
    discord_.client.response_budget = 0.05
    deferred, followup = await discord_.command("quiz", ADA, sub="start", topic="sync-basics", questions=3)
    assert deferred.callback_type == 5 and not deferred.ephemeral
    assert followup.path == f"/webhooks/{APP_ID}/token-1" and "3 questions" in followup.text()


async def test_the_command_tree_has_quiz_start_and_stop_in_both_languages(discord_, recorder) -> None:
    mark = len(recorder.requests)
    await discord_.client.sync_commands()
    [request] = recorder.since(mark)
    quiz = next(command for command in request.json if command["name"] == "quiz")
    assert quiz["name_localizations"] == {"tr": "yarışma"} and quiz["contexts"] == [0], "server channels only"
    assert quiz.get("default_member_permissions") is None, "every member may start a round"
    subcommands = {option["name"]: option for option in quiz["options"]}
    assert [option["type"] for option in quiz["options"]] == [1, 1]
    assert subcommands["start"]["name_localizations"] == {"tr": "başlat"}
    assert subcommands["stop"]["name_localizations"] == {"tr": "bitir"}
    options = {option["name"]: option for option in subcommands["start"]["options"]}
    assert list(options) == ["topic", "questions", "seconds", "difficulty"]
    assert [options[name]["name_localizations"]["tr"] for name in options] == ["konu", "soru", "saniye", "zorluk"]
    assert options["topic"]["autocomplete"]
    assert (options["questions"]["min_value"], options["questions"]["max_value"]) == (3, 30)
    assert (options["seconds"]["min_value"], options["seconds"]["max_value"]) == (10, 120)
    assert [choice["value"] for choice in options["difficulty"]["choices"]] == [1, 2, 3]
    assert not any(option.get("required") for option in options.values())


async def test_help_in_a_server_names_the_quiz(discord_) -> None:
    [english] = await discord_.command("help", ADA)
    assert "`/quiz`: A live quiz round in this channel" in english.text()
    [turkish] = await discord_.command("help", ADA, locale="tr")
    assert "`/yarışma` (`/quiz`)" in turkish.text()


async def test_the_cores_running_timer_posts_the_first_question_after_the_start_line(db, bank, recorder,
                                                                                      monkeypatch) -> None:
    """No hand on the clock: the core's own quiz timer, running in the process, posts the first question,
    and the channel reads the start line first."""
    import asyncio
    import random

    from bot.core import Core
    from tests.adapters.discord.harness import Discord, make_client

    core = Core(db, bank, None, random.Random(5))  # scheduled, on the system clock
    client = await make_client(core, recorder, monkeypatch)
    discord_ = Discord(client, recorder)
    await core.start()
    try:
        # let the start-up catch-up tick finish: a poke that lands between a tick's end and its re-arm is lost
        # (bot/schedule/timer.py replaces the poke's job with the later one), which is the core's to fix
        await asyncio.sleep(0.3)
        await discord_.command("quiz", ADA, sub="start", topic="sync-basics", questions=3, seconds=10)
        for _ in range(250):
            if any(request.custom_ids() for request in recorder.requests):
                break
            await asyncio.sleep(0.02)
        posts = [request for request in recorder.requests
                 if request.method == "POST" and (request.callback_type == 4 or request.path.endswith("/messages"))]
        assert [bool(post.custom_ids()) for post in posts] == [False, True], "the start line, then question 1"
        assert "Quiz: 3 questions" in posts[0].text() and posts[1].path == f"/channels/{CHANNEL_ID}/messages"
    finally:
        for timer in (core.timer, core.reveals, core.deadlines, core.quizzes):
            if timer is not None:
                await timer.stop()
        await client.port.counters.close()
