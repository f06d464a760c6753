"""A restart: a NEW client and a NEW Core over the same SQLite file; buttons sent before still work."""

from __future__ import annotations

import random

from bot.core import Core
from bot.store import Database
from bot.store import interviews as records
from tests.adapters.discord.harness import ADMIN, Discord, Recorder, last_message_id, make_client, user
from tests.adapters.discord.helpers import answer_count, asked_id_of, letters

ADA, BOB = user(1, "Ada"), user(2, "Bob")


async def test_old_buttons_work_after_a_restart(db_path, bank, clock, monkeypatch) -> None:
    first_db = await Database.open(db_path)
    recorder = Recorder()
    first = Discord(await make_client(Core(first_db, bank, clock, random.Random(1), scheduled=False), recorder,
                                      monkeypatch), recorder)
    [started] = await first.command("interview", ADA, dm=True, count=2)
    dm_message = max(recorder.messages)
    dm_asked = asked_id_of(started.custom_ids()[0])
    await first.command("daily", user(10, "Admin"), permissions=ADMIN)
    daily_message = last_message_id(recorder)
    daily_asked = asked_id_of(recorder.messages[daily_message]["components"][0]["components"][0]["custom_id"])
    await first.client.close()
    await first_db.close()

    second_db = await Database.open(db_path)
    core = Core(second_db, bank, clock, random.Random(2), scheduled=False)
    second = Discord(await make_client(core, recorder, monkeypatch), recorder)
    right, _ = await letters(second_db, bank, dm_asked)
    edit, follow_up = await second.click(dm_message, f"a:{dm_asked}:{right}", ADA, dm=True)
    assert edit.callback_type == 7 and "✅ Right" in edit.text()
    assert follow_up.message["embeds"][0]["footer"]["text"].startswith("Question 2/2")
    assert await records.message_ref(second_db, asked_id_of(follow_up.custom_ids()[0])) == str(max(recorder.messages))

    right, _ = await letters(second_db, bank, daily_asked)
    [feedback, *_counter] = await second.click(daily_message, f"a:{daily_asked}:{right}", BOB)
    assert feedback.ephemeral and "Right" in feedback.text()
    assert await answer_count(second_db) == 2
    await second.client.close()
    await second_db.close()
