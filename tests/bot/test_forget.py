"""/forget: after the confirmation, nothing about the person is left; everyone else's data stays."""

from __future__ import annotations

from bot.core import Core
from bot.domain import ChatRef, InterviewFilters, UserRef
from bot.text.plaintext import render_plain
from bot.tokens import FORGET_TOKEN
from tests.fakes import RecordingPort, click

ADA, BEN = UserRef("test", "ada", "Ada Lovelace"), UserRef("test", "ben", "Ben")
GROUP = ChatRef("test", "g", "group", "Study group")


async def _history(core: Core) -> None:
    core.add_port(RecordingPort())
    for user in (ADA, BEN):
        outgoing = await core.start_interview(user, ChatRef("test", f"dm-{user.platform_id}"), InterviewFilters(count=2))
        await click(core, user, ChatRef("test", f"dm-{user.platform_id}"), outgoing.message.buttons[0][0].token)
        await core.set_language("tr", user, ChatRef("test", f"dm-{user.platform_id}"))
    assert await core.post_daily_now(GROUP)
    token = core.ports["test"].sent[-1][1].buttons[0][0].token  # type: ignore[attr-defined]
    for user in (ADA, BEN):
        await click(core, user, GROUP, token)


async def test_the_confirmation_deletes_everything_about_the_clicker_only(core: Core, db) -> None:
    await _history(core)
    request = await core.forget_request(ADA)
    assert request.buttons[0][0].token == FORGET_TOKEN and "Geri alınamaz" in render_plain(request)  # her language
    reply = await core.click(ADA, ChatRef("test", "dm-ada"), FORGET_TOKEN)
    assert reply.refused is None and reply.edit is not None and "silindi" in reply.popup
    names = [row[0] for row in await db.fetch_all("SELECT name FROM users")]
    assert names == ["Ben"]
    assert "Ada" not in render_plain(await core.leaderboard(GROUP, BEN, "all"))
    counts = {table: (await db.fetch_one(f"SELECT count(*) FROM {table}"))[0]
              for table in ("answers", "interviews", "review_cards")}
    assert counts["answers"] == 2 and counts["interviews"] == 1, "Ben's interview answer and daily answer stay"
    assert await db.fetch_one("SELECT 1 FROM chats WHERE platform_chat_id = 'dm-ada'") is None
    ability_owners = {row[0] for row in await db.fetch_all("SELECT DISTINCT user_id FROM abilities")}
    ben = (await db.fetch_one("SELECT id FROM users WHERE name = 'Ben'"))[0]
    assert ability_owners == {ben}, "Ada's abilities go with her; Ben's stay"
    assert await db.fetch_one("SELECT 1 FROM chats WHERE platform_chat_id = 'g'") is not None


async def test_forgetting_someone_unknown_says_so(core: Core) -> None:
    reply = await core.click(UserRef("test", "nobody"), ChatRef("test", "dm-nobody"), FORGET_TOKEN)
    assert reply.popup == "I hold nothing about you."
    assert await core.forget(UserRef("test", "nobody")) is None
