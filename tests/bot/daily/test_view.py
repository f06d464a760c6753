"""A group's day as its members read it, in both languages: when the answer comes, in the group's own
zone; the settings' reveal window in hours; the fastest answers' times."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.domain import ChatRef
from bot.text.messages import Moment, Paragraph
from bot.text.plaintext import render_plain

GROUP = ChatRef("test", "g1", "group", "Study group")


def at(text: str, tz: str = "Europe/Istanbul") -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(tz)).timestamp()




@pytest.mark.parametrize("language,said", [("en", "Answer revealed: 21:00, Europe/Istanbul."),
                                           ("tr", "Cevabın açıklanma zamanı: 21:00, Europe/Istanbul.")])
async def test_the_daily_question_says_when_its_answer_comes_in_the_groups_zone(core, clock, port, language,
                                                                                said) -> None:
    await core.set_language(language, chat=GROUP)
    clock.set(at("2026-12-01 08:00"))
    await core.subscribe(GROUP, "09:00", "Europe/Istanbul")
    clock.set(at("2026-12-01 09:00"))
    await core.tick()
    [question] = port.sent_to("g1")
    text = render_plain(question)
    assert said in text and " s." not in text.split("\n")[-1], "no 'You have 43200 s.'"
    [note] = [block for block in question.blocks if isinstance(block, Paragraph) and block.inline is not None]
    assert note.inline == Moment(round(at("2026-12-01 21:00")), "21:00, Europe/Istanbul")


async def test_a_late_post_reveals_tomorrow_and_says_so(core, clock, port) -> None:
    clock.set(at("2026-12-01 21:00", "UTC"))
    await core.subscribe(GROUP, "22:00", "UTC")
    clock.set(at("2026-12-01 22:00", "UTC"))
    await core.tick()
    assert "Answer revealed: tomorrow 10:00, UTC." in render_plain(port.sent_to("g1")[0])


@pytest.mark.parametrize("language,said", [("en", "The answer is revealed after 12 h."),
                                           ("tr", "Cevap 12 saat sonra açıklanır.")])
async def test_settings_say_hours_as_people_do(core, language, said) -> None:
    await core.set_language(language, chat=GROUP)
    await core.subscribe(GROUP, "09:00", "Europe/Istanbul")
    text = render_plain(await core.settings(GROUP))
    assert said in text and "12.0" not in text
    await core.subscribe(GROUP, "09:00", "UTC", reveal_after_hours=1.5)
    assert ("1 h 30 min" if language == "en" else "1 saat 30 dakika") in render_plain(await core.settings(GROUP))


async def test_the_reveal_gives_the_fastest_times_in_the_groups_language(core, clock, port, bank) -> None:
    from bot.domain import LETTERS, UserRef

    await core.set_language("tr", chat=GROUP)
    await core.subscribe(GROUP, "09:00", "UTC")
    assert await core.post_daily_now(GROUP)
    [question] = port.sent_to("g1")
    asked_id = int(question.buttons[0][0].token.split(":")[1])
    row = await core.db.fetch_one("SELECT question_id, option_order FROM asked_questions WHERE id = ?", (asked_id,))
    right = LETTERS[[int(c) for c in row["option_order"]].index(bank.questions[row["question_id"]].correct_index)]
    clock.advance(3.2)
    await core.click(UserRef("test", "u1", "Ada"), GROUP, f"a:{asked_id}:{right}")
    clock.advance(13 * 3600)
    await core.tick()
    [(_, _, reveal)] = port.edits
    assert "En hızlı doğru cevaplar: Ada (3,2 sn)" in render_plain(reveal)
