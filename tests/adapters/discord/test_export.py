"""/export in a DM: the missed questions arrive as an .apkg attachment; with none, a message says so."""

from __future__ import annotations

from tests.adapters.discord.harness import user
from tests.adapters.discord.helpers import asked_id_of, letters
from tests.bot.formats.test_export import apkg_notes

ADA = user(1, "Ada")


async def test_export_attaches_the_deck_of_missed_questions(discord_, recorder, db, bank) -> None:
    [started] = await discord_.command("interview", ADA, dm=True, count=1)
    asked_id = asked_id_of(started.custom_ids()[0])
    _right, wrong = await letters(db, bank, asked_id)
    await discord_.click(max(recorder.messages), f"a:{asked_id}:{wrong}", ADA, dm=True)
    [reply] = await discord_.command("export", ADA, dm=True, locale="tr")
    assert reply.callback_type == 4 and reply.files == 1
    assert reply.message["content"].startswith("Kaçırdığın 1 soru bir Anki destesi")
    notes, _ = apkg_notes(reply.attachments["interview-bot-missed.apkg"])
    assert len(notes) == 1 and notes[0][2].split("\x1f")[4] == (await db.fetch_one(
        "SELECT question_id FROM asked_questions WHERE id = ?", (asked_id,)))[0]


async def test_export_with_nothing_missed(discord_) -> None:
    [reply] = await discord_.command("export", ADA, dm=True)
    assert reply.files == 0 and "nothing to export" in reply.text()
