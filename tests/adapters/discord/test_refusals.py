"""Refusals: a member without Manage Server, commands in the wrong place, forged and stale custom_ids,
and failures that must never show a traceback. Nothing is recorded for any of them."""

from __future__ import annotations

import pytest

from bot.store.people import find_chat
from tests.adapters.discord.harness import CHANNEL_ID, MEMBER, user
from tests.adapters.discord.helpers import answer_count, asked_id_of, letters

ADA, BOB = user(1, "Ada"), user(2, "Bob")


@pytest.mark.parametrize("command, options", [("subscribe", {"time": "09:30"}), ("unsubscribe", {}), ("daily", {})])
async def test_a_member_without_manage_server_is_refused(discord_, recorder, db, command, options) -> None:
    requests = await discord_.command(command, ADA, permissions=MEMBER, **options)
    assert len(requests) == 1, "one ephemeral reply and nothing posted"
    [refusal] = requests
    assert refusal.callback_type == 4 and refusal.ephemeral
    assert refusal.text() == "You need the Manage Server permission for that."
    chat = await find_chat(db, "discord", str(CHANNEL_ID))
    assert chat is None, "nothing was stored for the channel"


async def test_the_refusal_is_in_the_members_language(discord_) -> None:
    [refusal] = await discord_.command("subscribe", ADA, permissions=MEMBER, time="09:30", locale="tr")
    assert refusal.text() == "Bunun için Sunucuyu Yönet iznin olmalı."


async def test_settings_commands_declare_manage_server_as_default_permission(discord_) -> None:
    commands = {command.name: command for command in discord_.client.tree.get_commands()}
    for name in ("daily", "subscribe", "unsubscribe"):
        assert commands[name].default_permissions.manage_guild
    assert commands["settings"].default_permissions is None


async def test_commands_in_the_wrong_place(discord_) -> None:
    [in_server] = await discord_.command("interview", ADA)
    assert in_server.ephemeral and "direct message" in in_server.text()
    [in_dm] = await discord_.command("subscribe", ADA, dm=True, time="09:30")
    assert in_dm.ephemeral and "server channel" in in_dm.text()


async def test_forged_and_stale_custom_ids(discord_, recorder, db, bank) -> None:
    [started] = await discord_.command("interview", ADA, dm=True, count=2)
    message_id = max(recorder.messages)
    asked_id = asked_id_of(started.custom_ids()[0])
    right, _wrong = await letters(db, bank, asked_id)
    message = recorder.messages[message_id]

    def forged(custom_id: str) -> dict:
        """The message as a tampered client would present it, carrying `custom_id`."""
        buttons = [{"type": 2, "style": 2, "label": "X", "custom_id": custom_id}]
        return dict(message, components=[{"type": 1, "components": buttons}])

    for custom_id in ("a:999999:a", "a:0:a", "a:1:z", "x:1:a", f"a:{asked_id}:f"):
        [refusal] = await discord_.click(message_id, custom_id, ADA, dm=True, seen=forged(custom_id))
        assert refusal.callback_type == 4 and refusal.ephemeral, custom_id
        assert refusal.text() == "This button is not valid any more.", custom_id
    [not_on_message] = await discord_.click(message_id, "a:12345:b", ADA, dm=True)
    assert not_on_message.ephemeral and "not valid" in not_on_message.text()
    [someone_else] = await discord_.click(message_id, f"a:{asked_id}:{right}", BOB, dm=True)
    assert someone_else.ephemeral and "someone else's interview" in someone_else.text()
    assert await answer_count(db) == 0

    await discord_.click(message_id, f"a:{asked_id}:{right}", ADA, dm=True)
    assert await answer_count(db) == 1
    [stale] = await discord_.click(message_id, f"a:{asked_id}:{right}", ADA, dm=True, seen=message)
    assert stale.ephemeral and "only the first answer counts" in stale.text()
    assert await answer_count(db) == 1


async def test_a_failure_is_a_polite_message_and_a_log_line(discord_, core, monkeypatch, caplog) -> None:
    async def broken(*_args, **_kwargs):
        raise RuntimeError("database is locked")

    monkeypatch.setattr(core, "history", broken)
    [reply] = await discord_.command("history", ADA, dm=True)
    assert reply.ephemeral and reply.text() == "Sorry, something went wrong on my side. Please try again."
    assert "Traceback" not in reply.text() and "database is locked" not in reply.text()
    assert any("failed" in record.message and record.exc_info for record in caplog.records)


async def test_a_failing_click_is_a_polite_message(discord_, recorder, core, monkeypatch) -> None:
    [started] = await discord_.command("interview", ADA, dm=True, count=2)
    custom_id = started.custom_ids()[0]

    async def broken(*_args, **_kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(core, "click", broken)
    [reply] = await discord_.click(max(recorder.messages), custom_id, ADA, dm=True)
    assert reply.ephemeral and "something went wrong" in reply.text()


def _answered(requests) -> dict[str, int]:
    """Interaction token -> how many initial responses (callbacks) it got."""
    counts: dict[str, int] = {}
    for request in requests:
        if request.callback_type is not None:
            token = request.path.rstrip("/").split("/")[-2]
            counts[token] = counts.get(token, 0) + 1
    return counts


async def test_a_flood_of_commands_gets_one_note_a_line_each_and_no_store_work(core, recorder, monkeypatch, db) -> None:
    """Discord has the guard Telegram has: past five commands in ten seconds, one "slow down", then a short
    "skipped" line for each of the rest before the core is asked anything; a person's own repeat gets
    "already being answered". No interaction is left unanswered ("The application did not respond")."""
    from adapters.common.flood import CommandFlood
    from tests.adapters.discord.harness import Discord, make_client

    client = await make_client(core, recorder, monkeypatch, flood=CommandFlood())  # the shipped limits
    discord_ = Discord(client, recorder)
    asked: list[str] = []
    original = core.leaderboard

    async def counting(*args, **kwargs):
        asked.append("leaderboard")
        return await original(*args, **kwargs)

    monkeypatch.setattr(core, "leaderboard", counting)
    try:
        asks = [("help", {}), ("settings", {}), ("groups", {}), ("leaderboard", {"period": "week"}),
                ("leaderboard", {"period": "month"}), ("leaderboard", {"period": "all"})]
        replies = []
        for number in range(40):
            name, options = asks[number % len(asks)]
            replies.append(await discord_.command(name, ADA, **options))
        assert all(len(reply) == 1 for reply in replies), "one response to every interaction"
        texts = [reply[0].text() for reply in replies]
        assert sum("Slow down" in text for text in texts) == 1, texts
        assert sum("Skipped" in text for text in texts) == 40 - 5 - 1, texts
        assert all(reply[0].ephemeral for reply in replies[5:])
        assert len(asked) == 2, "the flood's commands past the limit never reached the core"
        [other] = await discord_.command("leaderboard", BOB)
        assert "Slow down" not in other.text() and "Skipped" not in other.text(), "another member is not slowed down"
    finally:
        await client.port.counters.close()


async def test_every_interaction_of_a_burst_of_eight_is_answered(core, recorder, monkeypatch) -> None:
    """Eight commands from one member arriving together (the same /progress double-tapped, then others):
    each gets exactly one response: its answer, "already being answered", "slow down" or "skipped"."""
    from adapters.common.flood import CommandFlood
    from tests.adapters.discord.harness import Discord, feed_many, make_client

    client = await make_client(core, recorder, monkeypatch, flood=CommandFlood())
    discord_ = Discord(client, recorder)
    try:
        names = ["progress", "progress", "help", "leaderboard", "groups", "settings", "help", "progress"]
        payloads = [discord_.command_payload(name, ADA) for name in names]
        requests = await feed_many(discord_, payloads)
        answered = _answered(requests)
        assert sorted(answered) == sorted(p["token"] for p in payloads), "every interaction got a response"
        assert set(answered.values()) == {1}, "exactly one initial response each"
        texts = [r.text() for r in requests if r.callback_type is not None]
        assert any("already being answered" in text for text in texts), texts
    finally:
        await client.port.counters.close()


async def test_three_members_same_command_in_one_channel_three_replies(core, recorder, monkeypatch) -> None:
    """/leaderboard from three members within a second: each gets the board (no one's eats another's)."""
    from adapters.common.flood import CommandFlood
    from tests.adapters.discord.harness import Discord, make_client

    client = await make_client(core, recorder, monkeypatch, flood=CommandFlood())  # the shipped limits
    discord_ = Discord(client, recorder)
    try:
        replies = [await discord_.command("leaderboard", who) for who in (ADA, BOB, user(3, "Carl"))]
        assert [len(reply) for reply in replies] == [1, 1, 1]
        assert all("Skipped" not in r[0].text() and "already" not in r[0].text() for r in replies)
    finally:
        await client.port.counters.close()


async def test_an_admins_subscribe_right_after_a_members_refused_one_takes_effect(core, recorder, monkeypatch,
                                                                                   db) -> None:
    from adapters.common.flood import CommandFlood
    from tests.adapters.discord.harness import ADMIN, Discord, make_client

    client = await make_client(core, recorder, monkeypatch, flood=CommandFlood())
    discord_ = Discord(client, recorder)
    try:
        [refusal] = await discord_.command("subscribe", ADA, permissions=MEMBER, time="09:30")
        assert "Manage Server" in refusal.text()
        [done] = await discord_.command("subscribe", BOB, permissions=ADMIN, time="09:30")
        assert "Manage Server" not in done.text() and "already" not in done.text()
        chat = await find_chat(db, "discord", str(CHANNEL_ID))
        assert chat is not None, "the administrator's schedule was stored"
    finally:
        await client.port.counters.close()
