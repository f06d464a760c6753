"""/deck on Discord through real discord.py parsing of real payloads: `/deck add name:NAME file:<attachment>`
with the attachment downloaded by discord.py itself from a loopback file server (as from Discord's CDN);
the deck played in a daily post and a quiz round, replaced, exported and removed; each format's broken
file answered with its lines; an oversize file refused before any download; a member refused."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from tests.adapters.deck_files import FILES
from tests.adapters.discord.harness import (ADMIN, CHANNEL_ID, GUILD_ID, MEMBER, Discord, Request, last_message_id,
                                           settle, user)

ADA, BOB, CEM = user(1, "Ada"), user(2, "Bob"), user(3, "Cem")
_attachment_ids = itertools.count(960_000_000_000_000_001)


class FileServer:
    """Attachments served over HTTP on loopback, as Discord's CDN serves them; every download recorded."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.downloads: list[str] = []
        self.base = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/attachments/{path:.+}", self._serve)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.base = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _serve(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        if path not in self.files:
            return web.Response(status=404)
        self.downloads.append(path)
        response = web.Response(body=self.files[path], content_type="application/octet-stream")
        response.force_close()  # no keep-alive task left for the harness's settle() to wait on
        return response

    def attachment(self, filename: str, data: bytes, size: int | None = None) -> dict[str, Any]:
        """The attachment object of an interaction's `resolved` data, its bytes put on the server."""
        attachment_id = next(_attachment_ids)
        path = f"{CHANNEL_ID}/{attachment_id}/{filename}"
        self.files[path] = data
        url = f"{self.base}/attachments/{path}"
        return {"id": str(attachment_id), "filename": filename, "size": len(data) if size is None else size,
                "url": url, "proxy_url": url, "content_type": "text/plain; charset=utf-8"}


@pytest.fixture
async def cdn(discord_: Discord) -> AsyncIterator[FileServer]:
    """The file server, and discord.py's HTTP session (opened at login, which these tests skip) to reach it."""
    server = FileServer()
    await server.start()
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True))
    discord_.client.http._HTTPClient__session = session  # type: ignore[attr-defined]
    yield server
    await session.close()
    await server.stop()


async def add(discord_: Discord, cdn: FileServer, name: str, filename: str, data: bytes, *, who: dict = ADA,
              permissions: int = ADMIN, size: int | None = None) -> list[Request]:
    """/deck add name:NAME file:<the file>, as Discord sends it: the option holds the attachment's id and the
    interaction's resolved data the attachment itself."""
    attachment = cdn.attachment(filename, data, size)
    payload = deck_payload(discord_, "add", who, permissions, name=name)
    payload["data"]["options"][0]["options"].append({"name": "file", "type": 11, "value": attachment["id"]})
    payload["data"]["resolved"] = {"attachments": {attachment["id"]: attachment}}
    return await discord_.feed(payload)


def deck_payload(discord_: Discord, sub: str, who: dict, permissions: int = ADMIN, *, dm: bool = False,
                 **options: str) -> dict[str, Any]:
    """/deck <sub> with string options (the harness's own builder takes `name` for the command's name)."""
    payload = discord_.command_payload("deck", who, sub=sub, permissions=permissions, dm=dm)
    payload["data"]["options"][0]["options"] = [{"name": key, "type": 3, "value": value}
                                                for key, value in options.items()]
    return payload


async def deck(discord_: Discord, sub: str, who: dict = ADA, permissions: int = ADMIN, *, dm: bool = False,
               **options: str) -> list[Request]:
    return await discord_.feed(deck_payload(discord_, sub, who, permissions, dm=dm, **options))


def said(requests: list[Request]) -> str:
    """Every text the requests showed (a deferral shows none)."""
    return "\n".join(text for request in requests if (text := request.text()))


async def test_an_oversize_attachment_is_refused_before_the_download(discord_, cdn) -> None:
    [reply] = await add(discord_, cdn, "big", "big.csv", b"x" * 10, size=1_500_000)
    assert reply.ephemeral and reply.text() == \
        "That file is 1.5 MB; a deck file may be at most 1 MB. I did not download it."
    assert cdn.downloads == []


async def test_a_bad_deck_name_is_refused_before_the_download(discord_, cdn, db) -> None:
    [reply] = await add(discord_, cdn, "Week 1!", "week-1.csv", FILES["csv"].data)
    assert "Week 1!" in reply.text()
    assert cdn.downloads == [] and (await db.fetch_one("SELECT count(*) AS n FROM decks"))["n"] == 0


async def test_a_member_without_manage_server_may_not_add_or_remove(discord_, cdn, db) -> None:
    [reply] = await add(discord_, cdn, "week-1", "week-1.yaml", FILES["yaml"].data, who=BOB, permissions=MEMBER)
    assert reply.ephemeral and "Manage Server" in reply.text()
    [reply] = await deck(discord_, "remove", BOB, MEMBER, name="week-1")
    assert reply.ephemeral and "Manage Server" in reply.text()
    assert cdn.downloads == [] and (await db.fetch_one("SELECT count(*) AS n FROM decks"))["n"] == 0


async def test_the_deck_commands_are_a_server_group_with_localized_names(discord_, recorder) -> None:
    await discord_.client.sync_commands()
    [deck] = [command for command in recorder.requests[-1].json if command["name"] == "deck"]
    assert sorted(deck["contexts"]) == [0, 1] and deck.get("default_member_permissions") is None, \
        "members list and play, in a DM too"
    subcommands = {option["name"]: option for option in deck["options"]}
    assert set(subcommands) == {"add", "list", "remove", "export"}
    assert deck["name_localizations"] == {"tr": "deste"} and subcommands["add"]["name_localizations"] == {"tr": "ekle"}
    add_options = {option["name"]: option for option in subcommands["add"]["options"]}
    assert add_options["file"]["type"] == 11 and add_options["file"]["required"]
    assert add_options["name"]["max_length"] == 32
    for option in deck["options"]:
        assert 1 <= len(option["description"]) <= 100
        assert all(1 <= len(text) <= 100 for text in option["description_localizations"].values())
        for inner in option.get("options", ()):
            assert 1 <= len(inner["description"]) <= 100
            assert all(1 <= len(text) <= 100 for text in inner["description_localizations"].values())


@pytest.mark.parametrize("fmt", sorted(FILES))
async def test_each_format_is_read_from_an_attachment_and_its_broken_twin_names_the_line(discord_, cdn, db,
                                                                                         fmt: str) -> None:
    deck_file = FILES[fmt]
    refused = said(await add(discord_, cdn, f"bad-{fmt}", deck_file.filename, deck_file.broken))
    assert f"Deck `bad-{fmt}` was not stored" in refused and f"\n{deck_file.broken_at}" in f"\n{refused}", refused
    assert (await db.fetch_one("SELECT count(*) AS n FROM decks"))["n"] == 0
    requests = await add(discord_, cdn, fmt, deck_file.filename, deck_file.data)
    assert requests[0].callback_type == 5, "deferred before the download"
    assert said(requests).startswith(f"deck `{fmt}`: {deck_file.count} questions (")
    assert cdn.downloads[-1].endswith(deck_file.filename), "discord.py fetched the attachment itself"


async def test_a_deck_is_played_replaced_exported_and_removed(discord_, cdn, recorder, core, db, clock) -> None:
    await add(discord_, cdn, "week-1", "losses.csv", FILES["csv"].data)
    await discord_.command("daily", ADA, permissions=ADMIN, topic="deck:week-1")  # before any subscription
    [confirmation] = await discord_.command("subscribe", ADA, permissions=ADMIN, time="09:00", topic="deck:week-1")
    assert "Done: a daily question at 09:00 (UTC)" in confirmation.text()
    await discord_.command("daily", ADA, permissions=ADMIN)
    await discord_.command("quiz", BOB, sub="start", topic="deck:week-1", questions=3)
    await core.quiz.run_due()
    rows = await db.fetch_all("SELECT question_id FROM asked_questions ORDER BY id")
    assert len(rows) == 3 and all(row["question_id"].startswith("deck.") for row in rows), "daily and quiz: the deck's"

    replaced = said(await add(discord_, cdn, "week-1", "optimisers.gift", FILES["gift"].data))
    assert replaced.startswith("deck `week-1`: 3 questions") and "replaces the earlier deck" in replaced
    listing = said(await deck(discord_, "list", CEM, MEMBER))
    assert "week-1" in listing and "Ada" in listing, "anyone lists"

    [exported] = await deck(discord_, "export", CEM, MEMBER, name="week-1", format="csv")
    assert exported.files == 1 and exported.message["content"] == "Deck week-1: 3 questions."
    assert exported.attachments["week-1.csv"].decode().startswith("stem,options,key")

    [asked] = await deck(discord_, "remove", ADA, name="week-1")
    [token] = asked.custom_ids()
    assert token.startswith("deck:rm:") and "Remove deck `week-1`" in asked.text()
    message_id = last_message_id(recorder)
    [refused] = await discord_.click(message_id, token, BOB)
    assert refused.ephemeral and "Only the administrator who asked" in refused.text()
    [removed] = await discord_.click(message_id, token, ADA)
    assert "Deck `week-1` is removed." in removed.text() and "still revealed at" in removed.text()
    assert "no decks yet" in said(await deck(discord_, "list", CEM, MEMBER))
    [unknown] = await discord_.command("quiz", BOB, sub="start", topic="deck:week-1")
    assert unknown.ephemeral and "Unknown topic deck:week-1" in unknown.text()
    assert (await db.fetch_one("SELECT count(*) AS n FROM decks"))["n"] == 1, "kept for its open questions"
    for _ in range(3):  # the daily posts' reveal, the quiz round's question closed and the round stopped
        clock.advance(13 * 3600)
        await core.tick()
    assert (await db.fetch_one("SELECT count(*) AS n FROM decks"))["n"] == 0, "gone once they are revealed"


async def test_a_member_plays_a_deck_of_their_server_in_a_dm(discord_, cdn, db) -> None:
    await add(discord_, cdn, "week-1", "week-1.yaml", FILES["yaml"].data)
    started = await discord_.command("interview", ADA, dm=True, topic="deck:week-1", count=2)
    assert started[0].custom_ids(), "the deck's first question"
    [row] = await db.fetch_all("SELECT question_id FROM asked_questions")
    assert row["question_id"].startswith("deck.")
    [stranger] = await discord_.command("interview", CEM, dm=True, topic="deck:week-1")
    assert stranger.ephemeral and "Unknown topic deck:week-1" in stranger.text(), "not Cem's server's deck"

    listing = said(await deck(discord_, "list", ADA, dm=True))
    assert "Decks of your groups" in listing and "week-1" in listing
    [exported] = await deck(discord_, "export", ADA, dm=True, name="week-1")
    assert exported.files == 1 and "week-1.gift" in exported.attachments
    [refused] = await deck(discord_, "remove", ADA, dm=True, name="week-1")
    assert refused.ephemeral and "server" in refused.text() and "week-1" not in refused.text()
    [offered] = await discord_.autocomplete("deck", ADA, "name", "w", dm=True, sub="export")
    assert offered.json["data"]["choices"] == [{"name": "week-1", "value": "week-1"}]


async def test_unknown_and_forged_names_get_a_polite_line(discord_, cdn) -> None:
    for sub, options, expected in (("export", {"name": "nope"}, "There is no deck nope here."),
                                   ("remove", {"name": "nope"}, "There is no deck nope here."),
                                   ("export", {"name": "week-1", "format": "pdf"}, "exported as gift or csv")):
        assert expected in said(await deck(discord_, sub, ADA, **options))
    assert "is 1 to 32 characters" in said(await add(discord_, cdn, "Week 1!", "losses.csv", FILES["csv"].data))


async def test_a_server_that_removes_the_bot_keeps_its_decks_30_days(discord_, cdn, core, clock, db) -> None:
    await discord_.guild_create((CHANNEL_ID, "ml-study"))
    await add(discord_, cdn, "week-1", "week-1.yaml", FILES["yaml"].data)
    discord_.client._connection.parse_guild_delete({"id": str(GUILD_ID)})  # kicked: GUILD_DELETE, not unavailable
    await settle()
    clock.advance(29 * 86400)
    await core.tick()
    assert (await db.fetch_one("SELECT count(*) AS n FROM decks"))["n"] == 1, "kept for 30 days"
    clock.advance(86400 + 60)
    await core.tick()
    assert (await db.fetch_one("SELECT count(*) AS n FROM decks"))["n"] == 0


async def test_decks_are_offered_where_a_topic_or_a_deck_name_goes(discord_, cdn) -> None:
    await add(discord_, cdn, "week-1", "week-1.yaml", FILES["yaml"].data)

    async def offered(name: str, focused: str, typed: str, **where: Any) -> list[dict]:
        [reply] = await discord_.autocomplete(name, ADA, focused, typed, **where)
        assert reply.callback_type == 8
        return reply.json["data"]["choices"]

    assert await offered("quiz", "topic", "week", sub="start") == [{"name": "deck:week-1", "value": "deck:week-1"}]
    assert await offered("interview", "topic", "deck:", dm=True) == [
        {"name": "deck:week-1 · ml-study", "value": "deck:week-1"}], "a DM offers the member's servers' decks"
    assert await offered("deck", "name", "w", sub="remove") == [{"name": "week-1", "value": "week-1"}]
    [reply] = await discord_.autocomplete("interview", CEM, "topic", "deck:", dm=True)
    assert reply.json["data"]["choices"] == [], "not Cem's server's deck"
