"""The rest of a person's commands: menus, deep links, language, progress, stop, review, errors."""

from __future__ import annotations

import logging

from adapters.telegram.app import COMMAND_HANDLERS
from bot.text.commands import COMMANDS
from tests.adapters.telegram.conftest import ALICE, BOB, Harness, private
from tests.adapters.telegram.fake_bot_api import TOKEN

CHAT = ALICE["id"]


def test_every_command_has_a_handler() -> None:
    assert {command.name for command in COMMANDS} == set(COMMAND_HANDLERS)


async def test_menus_choose_topic_level_and_length(bot: Harness) -> None:
    await bot.command(ALICE, private(ALICE), "/interview")
    menu = bot.api.last(CHAT)
    assert "Choose a topic:" in menu.html and "m:t:*" in menu.data
    topic = next(button["callback_data"] for button in menu.buttons if button["text"].startswith("Sync basics"))
    await bot.click(ALICE, menu, topic)
    assert "Choose a level:" in menu.html and len(menu.data) == 4
    await bot.click(ALICE, menu, next(data for data in menu.data if data.endswith(":0")))
    assert "How many questions?" in menu.html
    await bot.click(ALICE, menu, next(data for data in menu.data if data.endswith(":3")))
    assert menu.markup is None and "Sync basics (test fixture) · Adaptive level · 3 questions" in menu.html
    assert "Question 1/3" in bot.api.last(CHAT).html
    for data in ("m:t:99", "m:c:0:1:7", "m:l:0", "m:x"):
        await bot.click(ALICE, menu, data)
    assert [popup for popup in bot.popups() if popup[1]] == [("This button is not valid any more.", True)] * 4
    assert await bot.count("interviews") == 1


async def test_a_deep_link_starts_an_interview(bot: Harness) -> None:
    await bot.command(ALICE, private(ALICE), "/start interview_leakage-basics")
    question = bot.api.last(CHAT)
    assert "Question 1/2" in question.html and question.data


async def test_bad_arguments_get_usage_and_core_refusals_their_text(bot: Harness) -> None:
    dm = private(ALICE)
    await bot.command(ALICE, dm, "/interview 5 6")
    assert bot.api.last(CHAT).html.startswith("Usage: /interview")
    await bot.command(ALICE, dm, "/interview nosuch 3")
    assert bot.api.last(CHAT).html.startswith("Unknown topic nosuch.")
    await bot.command(ALICE, dm, "/language")
    assert bot.api.last(CHAT).html.startswith("Usage: /language")
    await bot.command(ALICE, dm, "/language de")
    assert "de is not a language" in bot.api.last(CHAT).html


async def test_language_stop_progress_history_review_help(bot: Harness) -> None:
    dm = private(ALICE)
    await bot.command(ALICE, dm, "/stop")
    assert bot.api.last(CHAT).html == "You have no interview in progress."
    await bot.command(ALICE, dm, "/language tr")
    assert bot.api.last(CHAT).html == "Dil Türkçe olarak ayarlandı."
    await bot.command(ALICE, dm, "/help")
    assert "/interview" in bot.api.last(CHAT).html and "Komutlar" in bot.api.last(CHAT).html
    await bot.command(ALICE, dm, "/interview sync-basics 2")
    first = bot.api.last(CHAT)
    await bot.click(ALICE, first, first.data[0])
    await bot.command(ALICE, dm, "/stop")
    assert bot.api.last(CHAT).html.startswith("<b>Mülakat raporu</b>")
    await bot.command(ALICE, dm, "/progress")
    [photo] = bot.api.calls_of("sendPhoto")
    assert isinstance(photo["photo"], bytes) and photo["photo"].startswith(b"\x89PNG")
    await bot.command(ALICE, dm, "/history")
    assert "<pre>" in bot.api.last(CHAT).html
    await bot.command(ALICE, dm, "/review")
    assert bot.api.last(CHAT).html and not bot.api.last(CHAT).data


async def test_forget_deletes_after_the_confirmation_button(bot: Harness) -> None:
    dm = private(ALICE)
    await bot.command(ALICE, dm, "/interview sync-basics 2")
    first = bot.api.last(CHAT)
    await bot.click(ALICE, first, first.data[0])
    await bot.command(ALICE, dm, "/forget")
    ask = bot.api.last(CHAT)
    assert "cannot be undone" in ask.html and ask.data == ["forget:yes"]
    assert (await bot.core.db.fetch_one("SELECT count(*) FROM answers"))[0] == 1, "nothing before the button"
    await bot.click(ALICE, ask, "forget:yes")
    assert "everything about you is deleted" in bot.api.last(CHAT).html
    for table in ("users", "answers", "interviews"):
        assert (await bot.core.db.fetch_one(f"SELECT count(*) FROM {table}"))[0] == 0, table


async def test_an_unexpected_error_is_logged_and_apologised_for(bot: Harness, caplog, monkeypatch) -> None:
    async def broken(*args: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(bot.core, "history", broken)
    monkeypatch.setattr(bot.core, "click", broken)
    with caplog.at_level(logging.DEBUG):
        await bot.command(BOB, private(BOB), "/history")
        await bot.click(BOB, bot.api.last(BOB["id"]), "a:1:a")
    assert bot.api.last(BOB["id"]).html == "Üzgünüm, benim tarafımda bir şeyler ters gitti. Lütfen tekrar dene."
    assert bot.popups() == [("Üzgünüm, benim tarafımda bir şeyler ters gitti. Lütfen tekrar dene.", True)]
    failures = [record for record in caplog.records if record.name == "adapters.telegram.errors"]
    assert any("from user 1002" in record.getMessage() and "disk on fire" in record.getMessage() for record in failures)
    assert all("Traceback" not in stored.html for stored in bot.api.messages.values())
    assert all(TOKEN not in record.getMessage() for record in caplog.records)


def test_interview_arguments() -> None:
    from adapters.telegram.handlers import interview_filters

    assert interview_filters(["sync", "5", "60s"]).time_limit_s == 60
    assert interview_filters(["7"]).count == 7 and interview_filters(["7"]).topics == ()
    assert interview_filters(["sync"]).count == 5
    for bad in (["5", "6"], ["a", "b"], ["¹²"], ["sync", "5", "60s", "x"]):
        assert interview_filters(bad) is None, bad
    assert interview_filters(["31"]).count == 31 and interview_filters(["5s"]).time_limit_s == 5, \
        "ranges are the core's to refuse, with the same message on every platform"


async def test_a_click_on_an_inline_message_is_refused_not_crashed(bot: Harness) -> None:
    """A callback with inline_message_id and no message (inline mode, or a forged update)."""
    await bot.process({"callback_query": {"id": "77", "from": ALICE, "chat_instance": "ci", "data": "a:1:a",
                                          "inline_message_id": "AAAA"}})
    assert bot.popups() == [("This button is not valid any more.", True)]
    assert await bot.count("answers") == 0


async def test_a_flood_of_commands_gets_one_note_and_a_bystander_is_still_answered(api, core) -> None:
    """500 commands from one user: five answered, one "slow down" note, the rest dropped without a send;
    the same command repeated is coalesced; another user's /help is answered as usual."""
    from tests.adapters.telegram.conftest import start_harness, stop_harness

    from adapters.common.flood import CommandFlood

    bot = await start_harness(api, core, flood=CommandFlood())  # the shipped limits
    try:
        for _ in range(20):
            await bot.command(ALICE, private(ALICE), "/start")
        assert len(api.sent_to(CHAT)) == 2, "one /start answered (welcome and topic menu); the rest coalesced"
        for number in range(500):
            await bot.command(ALICE, private(ALICE), f"/help {number}")
        await bot.command(BOB, private(BOB), "/help")
        texts = [stored.html for stored in api.sent_to(CHAT)]
        assert sum("Slow down" in text for text in texts) == 1
        assert len(texts) <= 5 * 2 + 1, "a few answers (a welcome is two messages at most), one note"
        assert "/interview" in api.last(BOB["id"]).html, "the bystander got their help (BOB speaks Turkish)"
    finally:
        await stop_harness(bot)
