"""Private chats end to end: the real Application against the fake Bot API over HTTP."""

from __future__ import annotations

from tests.adapters.telegram.conftest import ALICE, Harness, private


async def test_a_whole_interview_in_a_private_chat(bot: Harness) -> None:
    dm, chat_id = private(ALICE), ALICE["id"]
    await bot.command(ALICE, dm, "/start")
    assert "Welcome to interview-bot" in bot.api.sent_to(chat_id)[0].html
    await bot.command(ALICE, dm, "/interview sync-basics 3")
    for number in range(1, 4):
        question = bot.api.last(chat_id)
        assert f"Question {number}/3" in question.html and question.data
        await bot.click(ALICE, question, question.data[0])
        edited = bot.api.messages[(chat_id, question.message_id)]
        assert edited.markup is None and "<b>Why</b>" in edited.html and ("✅" in edited.html)
    report = bot.api.last(chat_id)
    assert "Interview report" in report.html and "Score:" in report.html
    assert await bot.count("answers") == 3
    assert [alert for _, alert in bot.popups()] == [False, False, False]
    refs = [row[0] for row in await bot.core.db.fetch_all("SELECT message_ref FROM asked_questions")]
    assert len(refs) == 3 and all(ref and ref.startswith(f"{chat_id}:") for ref in refs)
