"""A whole DM interview: /interview, a click per question (the embed edited, the next question
followed up), the report at the end; the core learns where each question was posted."""

from __future__ import annotations

from bot.store import interviews as records
from tests.adapters.discord.harness import APP_ID, DM_CHANNEL_ID, last_message_id, user
from tests.adapters.discord.helpers import answer_count, asked_id_of, letters

ADA = user(1, "Ada")


async def test_a_whole_dm_interview(discord_, recorder, core, db, bank) -> None:
    [response] = await discord_.command("interview", ADA, dm=True, count=3)
    assert response.callback_type == 4 and not response.ephemeral
    assert response.message["embeds"][0]["footer"]["text"].startswith("Question 1/3")
    message_id = int(recorder.messages[max(recorder.messages)]["id"])
    asked_id = asked_id_of(response.custom_ids()[0])
    assert await records.message_ref(db, asked_id) == str(message_id)

    for number in (1, 2, 3):
        right, wrong = await letters(db, bank, asked_id)
        letter = right if number != 2 else wrong
        edit, follow_up = await discord_.click(message_id, f"a:{asked_id}:{letter}", ADA, dm=True)
        assert edit.callback_type == 7, "the clicked question is edited in place"
        assert edit.message["components"] == [], "its buttons are gone"
        verdict = "✅ Right" if letter == right else "❌ Not quite"
        assert verdict in edit.text() and "Why" in edit.text()
        assert follow_up.method == "POST" and follow_up.path == f"/webhooks/{APP_ID}/token-{number + 1}"
        message_id = max(recorder.messages)
        if number < 3:
            assert follow_up.message["embeds"][0]["footer"]["text"].startswith(f"Question {number + 1}/3")
            asked_id = asked_id_of(follow_up.custom_ids()[0])
            assert await records.message_ref(db, asked_id) == str(message_id)
        else:
            report = follow_up.message["embeds"][0]
            assert report["title"] == "Interview report" and "Score: 2/3" in report["description"]
            assert follow_up.custom_ids() == []
    assert await answer_count(db) == 3
    assert int(recorder.messages[message_id]["channel_id"]) == DM_CHANNEL_ID


async def test_in_turkish_for_a_turkish_discord_locale(discord_, recorder) -> None:
    [response] = await discord_.command("interview", ADA, dm=True, count=2, locale="tr")
    assert response.message["embeds"][0]["footer"]["text"].startswith("Soru 1/2")


async def test_stop_history_and_review_in_a_dm(discord_, recorder, db, bank) -> None:
    [nothing] = await discord_.command("stop", ADA, dm=True)
    assert nothing.callback_type == 4 and "no interview in progress" in nothing.text()
    [started] = await discord_.command("interview", ADA, dm=True, count=2)
    asked_id = asked_id_of(started.custom_ids()[0])
    _right, wrong = await letters(db, bank, asked_id)
    await discord_.click(max(recorder.messages), f"a:{asked_id}:{wrong}", ADA, dm=True)
    [report] = await discord_.command("stop", ADA, dm=True)
    assert "Interview report" in report.text() and "stopped early" in report.text()
    [history] = await discord_.command("history", ADA, dm=True)
    assert history.callback_type == 4 and "```" in history.message["embeds"][0]["description"]
    [review] = await discord_.command("review", ADA, dm=True)
    assert review.callback_type == 4


async def test_topic_autocomplete_and_an_unknown_topic(discord_, recorder) -> None:
    [choices] = await discord_.autocomplete("interview", ADA, "topic", "leak", dm=True)
    assert choices.callback_type == 8
    values = [choice["value"] for choice in choices.json["data"]["choices"]]
    assert values and all("leak" in value for value in values)
    [refusal] = await discord_.command("interview", ADA, dm=True, topic="no-such-topic")
    assert refusal.callback_type == 4 and refusal.ephemeral and "Unknown topic no-such-topic" in refusal.text()


async def test_forget_in_a_dm_deletes_after_the_button(discord_, db) -> None:
    await discord_.command("interview", ADA, dm=True, count=1)
    who = str(ADA["id"])
    assert await db.fetch_one("SELECT 1 FROM users WHERE platform_user_id = ?", (who,)) is not None
    [ask] = await discord_.command("forget", ADA, dm=True)
    assert "cannot be undone" in ask.text()
    await discord_.click(last_message_id(discord_.recorder), "forget:yes", ADA, dm=True)
    assert await db.fetch_one("SELECT 1 FROM users WHERE platform_user_id = ?", (who,)) is None
