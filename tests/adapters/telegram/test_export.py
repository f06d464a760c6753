"""/export end to end against the fake Bot API: the missed questions arrive as an .apkg document."""

from __future__ import annotations

import io
import zipfile

from tests.adapters.telegram.conftest import ALICE, BOB, GROUP, Harness, private
from tests.bot.formats.test_export import apkg_notes
from tests.bot.test_core import wrong_token


async def test_export_sends_the_missed_questions_as_an_anki_document(bot: Harness) -> None:
    dm, chat_id = private(ALICE), ALICE["id"]
    await bot.command(ALICE, dm, "/interview sync-basics 2")
    for _ in range(2):
        question = bot.api.last(chat_id)
        asked_id = int(question.data[0].split(":")[1])
        await bot.click(ALICE, question, await wrong_token(bot.core, asked_id))
    await bot.command(ALICE, dm, "/export")
    [call] = bot.api.calls_of("sendDocument")
    assert call["chat_id"] == chat_id and call["filenames"]["document"] == "interview-bot-missed.apkg"
    assert call["caption"].startswith("Your 2 missed questions as an Anki deck")
    assert zipfile.is_zipfile(io.BytesIO(call["document"]))
    notes, decks = apkg_notes(call["document"])
    assert len(notes) == 2 and any(deck["name"] == "interview-bot: missed questions" for deck in decks.values())
    assert bot.api.last(chat_id).document == call["document"]


async def test_export_with_nothing_missed_says_so_and_is_private_only(bot: Harness) -> None:
    await bot.command(BOB, private(BOB), "/export")
    assert bot.api.calls_of("sendDocument") == []
    assert "Henüz kaçırdığın bir soru yok" in bot.api.last(BOB["id"]).html
    await bot.command(ALICE, GROUP, "/export")
    assert bot.api.calls_of("sendDocument") == [] and "private chat" in bot.api.last(GROUP["id"]).html


async def test_export_is_in_the_command_menus(bot: Harness) -> None:
    from adapters.telegram.app import register_commands

    await register_commands(bot.application.bot)
    menus = [call["commands"] for call in bot.api.calls_of("setMyCommands")]
    assert any(command["command"] == "export" for menu in menus for command in menu)
