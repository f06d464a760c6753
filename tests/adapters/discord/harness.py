"""A real discord.py client with no network: raw gateway/interaction payloads in, recorded HTTP requests out.

`Recorder` stands in for Discord's REST API at the two places discord.py talks to it: the bot's
HTTPClient.request (channel messages, command sync) and the webhook adapter (interaction callbacks
and follow-ups). It answers with plausible JSON (message objects with ids) and remembers every
message it "created", so a test can click a button on it by building the INTERACTION_CREATE that
Discord would send.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import discord
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter

from adapters.common.flood import CommandFlood
from adapters.discord.client import InterviewClient
from bot.core import Core

APP_ID = 900_000_000_000_000_001
BOT_ID = 900_000_000_000_000_002
GUILD_ID = 910_000_000_000_000_001
CHANNEL_ID = 920_000_000_000_000_001
OTHER_CHANNEL_ID = 920_000_000_000_000_002
DM_CHANNEL_ID = 930_000_000_000_000_001
ADMIN = discord.Permissions(manage_guild=True, view_channel=True, send_messages=True).value
MEMBER = discord.Permissions(view_channel=True, send_messages=True).value
BOT_USER = {"id": str(BOT_ID), "username": "interview-bot", "discriminator": "0", "global_name": None,
            "avatar": None, "bot": True}
_ids = itertools.count(950_000_000_000_000_000)


def user(number: int, name: str) -> dict[str, Any]:
    return {"id": str(800_000_000_000_000_000 + number), "username": name.lower(), "discriminator": "0",
            "global_name": name, "avatar": None}


@dataclass
class Request:
    method: str
    path: str
    json: dict[str, Any] | list[Any] | None
    files: int = 0
    params: dict[str, Any] | None = None
    at: float = field(default_factory=time.monotonic)
    attachments: dict[str, bytes] = field(default_factory=dict)  # file name -> bytes of each file sent

    @property
    def callback_type(self) -> int | None:
        return self.json.get("type") if self.path.endswith("/callback") and isinstance(self.json, dict) else None

    @property
    def message(self) -> dict[str, Any]:
        """The message part of the request (a callback's `data`, or the request itself)."""
        assert isinstance(self.json, dict)
        return self.json.get("data") or {} if self.path.endswith("/callback") else self.json

    @property
    def ephemeral(self) -> bool:
        return bool(self.message.get("flags", 0) & 64)

    def custom_ids(self) -> list[str]:
        return [child["custom_id"] for row in self.message.get("components", []) for child in row["components"]]

    def text(self) -> str:
        """Every visible text of the message: content, titles, descriptions, footers."""
        parts = [self.message.get("content") or ""]
        for embed in self.message.get("embeds") or []:
            parts += [embed.get("title", ""), embed.get("description", ""), (embed.get("footer") or {}).get("text", "")]
        return "\n".join(part for part in parts if part)


@dataclass
class Recorder:
    """Discord's REST API as seen by discord.py: records requests, answers with message objects."""

    requests: list[Request] = field(default_factory=list)
    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    failures: list[tuple[str, str, Exception]] = field(default_factory=list)
    delay: float = 0.0

    def fail(self, method: str, path_part: str, error: Exception) -> None:
        """The next request whose method matches and whose path contains `path_part` raises `error`."""
        self.failures.append((method, path_part, error))

    def _check_failure(self, method: str, path: str) -> None:
        for index, (wanted, part, error) in enumerate(self.failures):
            if wanted == method and part in path:
                del self.failures[index]
                raise error

    def _message(self, channel_id: int, payload: dict[str, Any], message_id: int | None = None) -> dict[str, Any]:
        message_id = message_id or next(_ids)
        stored = self.messages.get(message_id, {})
        message = {
            "id": str(message_id), "channel_id": str(channel_id), "author": BOT_USER, "type": 0,
            "content": "", "embeds": [], "components": [], "attachments": [], "mentions": [], "mention_roles": [],
            "mention_everyone": False, "pinned": False, "tts": False, "flags": 0,
            "timestamp": "2026-05-04T09:00:00+00:00", "edited_timestamp": None,
        }
        message.update({key: value for key, value in stored.items() if key in message})
        for key in ("content", "embeds", "components", "flags"):
            if key in payload:
                message[key] = payload[key] if payload[key] is not None else ([] if key != "content" else "")
        self.messages[message_id] = message
        return message

    def _record(self, method: str, path: str, payload: Any, files: Any, params: Any = None) -> Request:
        attachments = {file.filename: file.fp.getvalue() for file in files or () if hasattr(file.fp, "getvalue")}
        request = Request(method, path, payload, len(files or ()), params, attachments=attachments)
        self.requests.append(request)
        return request

    async def http(self, route: Route, *, files: Any = None, form: Any = None, **kwargs: Any) -> Any:
        """Stands in for discord.http.HTTPClient.request."""
        payload = kwargs.get("json")
        if payload is None and form:
            payload = json.loads(next(part["value"] for part in form if part["name"] == "payload_json"))
        self._record(route.method, route.url.replace(Route.BASE, ""), payload, files)
        if self.delay:
            await asyncio.sleep(self.delay)
        path = self.requests[-1].path
        self._check_failure(route.method, path)
        if route.method == "POST" and path.endswith("/messages"):
            return self._message(int(route.channel_id), payload or {})
        if route.method == "PATCH" and "/messages/" in path:
            return self._message(int(route.channel_id), payload or {}, int(path.rsplit("/", 1)[1]))
        if route.method == "PUT" and path.endswith("/commands"):
            return [dict(command, id=str(next(_ids)), application_id=str(APP_ID), version="1") for command in payload]
        return {}

    async def webhook(self, route: Route, session: Any, *, payload: Any = None, multipart: Any = None,
                      files: Any = None, params: Any = None, **_: Any) -> Any:
        """Stands in for AsyncWebhookAdapter.request (interaction callbacks, follow-ups)."""
        if payload is None and multipart:
            payload = json.loads(next(part["value"] for part in multipart if part["name"] == "payload_json"))
        path = route.url.replace(Route.BASE, "")
        self._record(route.method, path, payload, files, params)
        self._check_failure(route.method, path)
        if path.endswith("/callback"):
            return self._callback(int(route.webhook_id), payload)
        if route.method == "POST":  # a follow-up message
            return self._message(self.channel_of_token.get(route.webhook_token, CHANNEL_ID), payload or {})
        if route.method == "PATCH":  # the original response or the clicked message
            original = self.original.get(route.webhook_token)
            return self._message(self.channel_of_token.get(route.webhook_token, CHANNEL_ID), payload or {}, original)
        return {}

    channel_of_token: dict[str, int] = field(default_factory=dict)
    original: dict[str, int] = field(default_factory=dict)

    def _callback(self, interaction_id: int, payload: dict[str, Any]) -> dict[str, Any]:
        kind, data = payload["type"], payload.get("data") or {}
        token = self.token_of_interaction.get(interaction_id, "")
        interaction = {"id": str(interaction_id), "type": 2, "response_message_loading": kind == 5,
                       "response_message_ephemeral": bool(data.get("flags", 0) & 64)}
        if kind in (4, 5):
            message = self._message(self.channel_of_token.get(token, CHANNEL_ID), data)
            interaction["response_message_id"] = message["id"]
            return {"interaction": interaction, "resource": {"type": kind, "message": message}}
        if kind == 7 and token in self.original:
            message = self._message(self.channel_of_token[token], data, self.original[token])
            return {"interaction": interaction, "resource": {"type": kind, "message": message}}
        return {"interaction": interaction}

    token_of_interaction: dict[int, str] = field(default_factory=dict)

    def since(self, mark: int) -> list[Request]:
        return self.requests[mark:]

    def clear(self) -> None:
        self.requests.clear()


def http_error(status: int, code: int, message: str = "error") -> discord.HTTPException:
    response = SimpleNamespace(status=status, reason=message)
    kind = {403: discord.Forbidden, 404: discord.NotFound}.get(status)
    if kind is None:
        kind = discord.DiscordServerError if status >= 500 else discord.HTTPException
    return kind(response, {"code": code, "message": message})


async def make_client(core: Core, recorder: Recorder, monkeypatch: Any, flood: CommandFlood | None = None) -> InterviewClient:
    """An InterviewClient as after login: HTTP recorded, bot user known, setup_hook run (buttons, translator)."""
    monkeypatch.setattr(AsyncWebhookAdapter, "request", lambda self, route, session, **kw: recorder.webhook(route, session, **kw))
    client = InterviewClient(core, application_id=APP_ID, flood=flood or CommandFlood(limit=10_000, repeat_s=0.0))
    client.http.request = recorder.http  # type: ignore[method-assign]
    await client._async_setup_hook()
    client._connection.user = discord.ClientUser(state=client._connection, data=BOT_USER)
    await client.setup_hook()
    client.port.counters.delay = 0.05
    return client


async def settle() -> None:
    """Wait until every task the client started (command invocations, clicks, counters) has finished."""
    current = asyncio.current_task()
    for _ in range(50):
        pending = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
        if not pending:
            return
        await asyncio.wait(pending, timeout=5)
    raise AssertionError("tasks did not settle")


class Discord:
    """Builds the INTERACTION_CREATE payloads Discord sends and feeds them to the client."""

    def __init__(self, client: InterviewClient, recorder: Recorder) -> None:
        self.client, self.recorder = client, recorder
        self.numbers = itertools.count(1)
        self.guild_locale = "en-US"

    def _base(self, kind: int, data: dict[str, Any], who: dict[str, Any], *, dm: bool, permissions: int,
              locale: str, channel_id: int | None = None) -> dict[str, Any]:
        interaction_id, token = next(_ids), f"token-{next(self.numbers)}"
        channel_id = channel_id or (DM_CHANNEL_ID if dm else CHANNEL_ID)
        self.recorder.token_of_interaction[interaction_id] = token
        self.recorder.channel_of_token[token] = channel_id
        payload: dict[str, Any] = {
            "id": str(interaction_id), "application_id": str(APP_ID), "type": kind, "data": data, "token": token,
            "version": 1, "locale": locale, "attachment_size_limit": 10_485_760, "entitlements": [],
            "authorizing_integration_owners": {"0": str(GUILD_ID)} if not dm else {"0": str(GUILD_ID)},
            "context": 1 if dm else 0, "app_permissions": str(discord.Permissions.all().value),
            "channel_id": str(channel_id),
        }
        if dm:
            payload["channel"] = {"id": str(channel_id), "type": 1, "recipients": [who]}
            payload["user"] = who
        else:
            payload.update(guild_id=str(GUILD_ID), guild_locale=self.guild_locale)
            payload["channel"] = {"id": str(channel_id), "type": 0, "name": "ml-study", "guild_id": str(GUILD_ID),
                                  "position": 0, "permission_overwrites": [], "nsfw": False, "parent_id": None}
            payload["member"] = {"user": who, "roles": [], "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False,
                                 "mute": False, "flags": 0, "permissions": str(permissions)}
        return payload

    async def feed(self, payload: dict[str, Any]) -> list[Request]:
        mark = len(self.recorder.requests)
        self.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
        await settle()
        return self.recorder.since(mark)

    def command_payload(self, name: str, who: dict[str, Any], *, dm: bool = False, permissions: int = MEMBER,
                        locale: str = "en-US", resolved: dict[str, Any] | None = None, sub: str | None = None,
                        **options: Any) -> dict[str, Any]:
        """The INTERACTION_CREATE of a slash command with its options (of its subcommand `sub`: /quiz start)."""
        kinds = {str: 3, int: 4, bool: 5}
        given = [{"name": key, "type": 7 if key == "channel" else kinds[type(value)], "value": value}
                 for key, value in options.items()]
        if sub is not None:
            given = [{"name": sub, "type": 1, "options": given}]
        data: dict[str, Any] = {"id": str(next(_ids)), "name": name, "type": 1, "options": given}
        if resolved:
            data["resolved"] = resolved
        return self._base(2, data, who, dm=dm, permissions=permissions, locale=locale)

    async def command(self, name: str, who: dict[str, Any], *, dm: bool = False, permissions: int = MEMBER,
                      locale: str = "en-US", resolved: dict[str, Any] | None = None, sub: str | None = None,
                      **options: Any) -> list[Request]:
        return await self.feed(self.command_payload(name, who, dm=dm, permissions=permissions, locale=locale,
                                                    resolved=resolved, sub=sub, **options))

    async def autocomplete(self, name: str, who: dict[str, Any], focused: str, typed: str, *, dm: bool = False,
                           locale: str = "en-US", sub: str | None = None) -> list[Request]:
        given: list[dict[str, Any]] = [{"name": focused, "type": 3, "value": typed, "focused": True}]
        if sub is not None:
            given = [{"name": sub, "type": 1, "options": given}]
        data = {"id": str(next(_ids)), "name": name, "type": 1, "options": given}
        return await self.feed(self._base(4, data, who, dm=dm, permissions=MEMBER, locale=locale))

    def click_payload(self, message_id: int, custom_id: str, who: dict[str, Any], *, dm: bool = False,
                      locale: str = "en-US", seen: dict[str, Any] | None = None) -> dict[str, Any]:
        """A click on the message as stored now, or as the clicker's client last saw it (`seen`)."""
        message = dict(seen or self.recorder.messages[message_id])
        payload = self._base(3, {"custom_id": custom_id, "component_type": 2}, who, dm=dm, permissions=MEMBER,
                             locale=locale, channel_id=int(message["channel_id"]))
        payload["message"] = message
        self.recorder.original[payload["token"]] = message_id
        return payload

    async def click(self, message_id: int, custom_id: str, who: dict[str, Any], *, dm: bool = False,
                    locale: str = "en-US", seen: dict[str, Any] | None = None) -> list[Request]:
        return await self.feed(self.click_payload(message_id, custom_id, who, dm=dm, locale=locale, seen=seen))

    async def guild_create(self, *channels: tuple[int, str]) -> None:
        """A GUILD_CREATE with text channels, as the guilds intent delivers at connection."""
        self.client._connection.parse_guild_create({
            "id": str(GUILD_ID), "name": "ML study", "owner_id": "1", "roles": [], "emojis": [], "stickers": [],
            "features": [], "member_count": 3, "members": [], "voice_states": [], "presences": [], "threads": [],
            "stage_instances": [], "guild_scheduled_events": [], "soundboard_sounds": [], "preferred_locale": "tr",
            "channels": [{"id": str(cid), "type": 0, "name": name, "position": i, "permission_overwrites": [],
                          "nsfw": False, "parent_id": None} for i, (cid, name) in enumerate(channels)],
        })


def last_message_id(recorder: Recorder) -> int:
    """The id of the newest message that carries buttons."""
    with_buttons = [int(mid) for mid, message in recorder.messages.items() if message["components"]]
    return max(with_buttons)


async def feed_many(discord_: Discord, payloads: list[dict[str, Any]]) -> list[Request]:
    """Several interactions arriving at once (a burst of clicks), then everything settled."""
    mark = len(discord_.recorder.requests)
    for payload in payloads:
        discord_.client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
    await settle()
    return discord_.recorder.since(mark)
