"""Everyday commands in a server and a DM: help, language, groups."""

from __future__ import annotations

from bot.store.people import find_chat
from tests.adapters.discord.harness import ADMIN, CHANNEL_ID, MEMBER, user

ADA = user(1, "Ada")


async def test_help_lists_the_commands_offered_here(discord_) -> None:
    [in_dm] = await discord_.command("help", ADA, dm=True)
    assert not in_dm.ephemeral and "`/interview`" in in_dm.text() and "`/subscribe`" not in in_dm.text()
    [in_server] = await discord_.command("help", ADA, locale="tr")
    assert in_server.ephemeral and "`/subscribe`" in in_server.text() and "`/interview`" not in in_server.text()
    assert "Komutlar" in in_server.text()


async def test_help_in_turkish_names_the_turkish_commands_with_the_english_beside(discord_) -> None:
    """A Turkish client lists /abone-ol, not /subscribe: the help names both."""
    [reply] = await discord_.command("help", ADA, dm=True, locale="tr")
    assert "`/mülakat` (`/interview`)" in reply.text() and "`/yardım` (`/help`)" in reply.text()
    [english] = await discord_.command("help", ADA, dm=True, locale="en-US")
    assert "`/interview`:" in english.text() and "mülakat" not in english.text()


async def test_language_in_a_dm_is_the_users(discord_) -> None:
    [reply] = await discord_.command("language", ADA, dm=True, language="tr")
    assert reply.text() == "Dil Türkçe olarak ayarlandı."
    [started] = await discord_.command("interview", ADA, dm=True, count=1)
    assert started.message["embeds"][0]["footer"]["text"].startswith("Soru 1/1")


async def test_language_in_a_server_is_for_manage_server_only(discord_, db) -> None:
    """In a server /language sets the channel's language for everyone: a member is refused and nothing is
    stored; someone with Manage Server sets it; in a DM anyone sets their own."""
    [refused] = await discord_.command("language", ADA, permissions=MEMBER, language="tr")
    assert refused.ephemeral and refused.text() == "You need the Manage Server permission for that."
    assert await find_chat(db, "discord", str(CHANNEL_ID)) is None
    [done] = await discord_.command("language", ADA, permissions=ADMIN, language="tr")
    assert done.text() == "Dil Türkçe olarak ayarlandı."
    chat = await find_chat(db, "discord", str(CHANNEL_ID))
    assert chat is not None and chat.language == "tr"
    [mine] = await discord_.command("language", ADA, dm=True, permissions=MEMBER, language="en")
    assert mine.text() == "Language set to English."
    commands = {command.name: command for command in discord_.client.tree.get_commands()}
    assert commands["language"].default_permissions is None, "still offered in DMs and to every member"


async def test_groups_board(discord_) -> None:
    [reply] = await discord_.command("groups", ADA)
    assert reply.callback_type == 4 and "Study groups" in reply.text()


def test_a_report_hint_in_turkish_names_the_turkish_command_and_option_with_the_english_beside() -> None:
    from adapters.discord.render import command_hint
    from bot.text.messages import CommandHint

    assert command_hint(CommandHint("interview", "sync-basics", "tr")) == \
        "`/mülakat konu:sync-basics` (`/interview topic:sync-basics`)"
    assert command_hint(CommandHint("review", language="en")) == "`/review`"
