"""serve(): log in (setup_hook registers the buttons and the port, syncs the commands), catch up on
missed posts, stay connected until the stop event, then close and unregister the port."""

from __future__ import annotations

import asyncio

import discord

from adapters.discord import client as discord_client
from bot.app.config import Settings
from tests.adapters.discord.harness import APP_ID, BOT_USER, Recorder


async def test_serve_until_the_stop_event(core, recorder: Recorder, monkeypatch, tmp_path) -> None:
    seen: dict[str, object] = {}

    async def login(self: discord_client.InterviewClient, token: str) -> None:
        seen["token"] = token
        self.http.request = recorder.http  # type: ignore[method-assign]
        self._connection.application_id = APP_ID
        self._connection.user = discord.ClientUser(state=self._connection, data=BOT_USER)
        await self.setup_hook()
        seen["port"] = core.ports.get("discord")

    async def connect(self: discord_client.InterviewClient, *, reconnect: bool = True) -> None:
        await asyncio.Event().wait()  # the gateway, until closed

    monkeypatch.setattr(discord_client.InterviewClient, "login", login)
    monkeypatch.setattr(discord_client.InterviewClient, "connect", connect)
    stop = asyncio.Event()
    settings = Settings(db_path=tmp_path / "unused.sqlite3", discord_token="secret-token")
    serving = asyncio.create_task(discord_client.serve(core, settings, stop, sync_guild=4321))
    await asyncio.sleep(0.05)
    assert seen["token"] == "secret-token" and seen["port"] is not None
    assert [r.path for r in recorder.requests] == [f"/applications/{APP_ID}/guilds/4321/commands"]
    stop.set()
    await asyncio.wait_for(serving, 5)
    assert "discord" not in core.ports
