"""Names are plain text: no bidi tricks, no invisible characters, no markup, a sane length."""

from __future__ import annotations

from bot.core import Core
from bot.domain import ChatRef, UserRef
from bot.text.names import clean_name, short_name
from bot.text.plaintext import render_plain
from tests.fakes import RecordingPort, click


def test_a_name_keeps_only_visible_plain_text() -> None:
    assert clean_name("Ada\u202eecalevoL\u202c") == "AdaecalevoL"
    assert clean_name("Ben\u200b\u200d Smith\x00") == "Ben Smith"
    assert clean_name("`rm -rf` **boss**") == "rm -rf boss"
    assert clean_name("x" * 5000) == "x" * 64
    assert short_name("y" * 40) == "y" * 31 + "…" and short_name("Ada") == "Ada"


async def test_a_hostile_name_reads_as_plain_text_on_the_board_and_the_reveal(core: Core, clock) -> None:
    port = RecordingPort()
    core.add_port(port)
    group = ChatRef("test", "g", "group", "Group")
    assert await core.post_daily_now(group)
    token = port.sent[-1][1].buttons[0][0].token
    hostile = UserRef("test", "h", "**Boss** `x`\u202e" + "z" * 5000)
    await click(core, hostile, group, token)
    board = render_plain(await core.leaderboard(group, hostile, "all"))
    assert "**" not in board and "`" not in board and "\u202e" not in board
    assert max(len(line) for line in board.splitlines()) < 120, "a 5,000-character name is one short cell"
    clock.advance(13 * 3600)
    await core.tick()
    reveal = port.edits[-1][2]
    assert all("**" not in getattr(block, "text", "") for block in reveal.blocks)


async def test_a_huge_argument_is_echoed_back_short(core: Core) -> None:
    import pytest

    from bot.errors import UserError

    with pytest.raises(UserError) as refused:
        await core.subscribe(ChatRef("test", "g", "group"), "09:00", "Europe/" + "x" * 10_000)
    text = core.error_text("en", refused.value)
    assert len(text) < 300 and "…" in text
