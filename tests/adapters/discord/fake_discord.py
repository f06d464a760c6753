"""A local Discord for sharded bots: the gateway (websocket) and the REST API on one aiohttp server.

The gateway speaks the protocol discord.py speaks to Discord: HELLO, heartbeats and their ACKs,
IDENTIFY with its shard pair [shard_id, shard_count] (a wrong pair is closed with 4010 Invalid Shard,
a missing one with 4011 Sharding Required), READY, RESUME with session id and sequence (the events
missed meanwhile replayed in order, then RESUMED). A guild's events go to the shard that owns it,
`(guild_id >> 22) % shard_count`, as on Discord; an event for a shard whose socket is down waits in its
session until the shard resumes.

Each bot process gets its own address prefix (`/<process>/...`) for both the gateway and the REST API,
so the fake knows which process identified which shard and which process sent each message.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.adapters.discord.harness import APP_ID, BOT_USER, MEMBER, Recorder, Request

INVALID_SHARD, SHARDING_REQUIRED = 4010, 4011
_interaction_ids = itertools.count(960_000_000_000_000_000)


@dataclass(frozen=True)
class Guild:
    """A server with one text channel; its shard follows from its id."""

    id: int
    channel_id: int

    def shard(self, count: int) -> int:
        return (self.id >> 22) % count


def guilds_over_shards(count: int, per_shard: int) -> list[Guild]:
    """`per_shard` guilds on each of `count` shards (snowflake ids whose timestamp part picks the shard)."""
    base = 910_000_000_000_000_000 >> 22
    return [Guild(((base + number) << 22) + 7, 920_000_000_000_100_000 + number)
            for number in range(count * per_shard)]


@dataclass
class Session:
    """One gateway session of one shard: its events by sequence number, and its socket when connected."""

    id: str
    shard: int
    process: str
    events: list[dict[str, Any]] = field(default_factory=list)
    socket: web.WebSocketResponse | None = None

    @property
    def seq(self) -> int:
        return len(self.events)


@dataclass(frozen=True)
class Identify:
    process: str
    shard: Any  # as sent: [shard_id, shard_count], or None
    accepted: bool


@dataclass(frozen=True)
class Resume:
    process: str
    shard: int
    session_id: str
    seq: int
    replayed: int  # events sent again from after `seq`


class FakeDiscord:
    """Discord's gateway and REST API for `shard_count` shards serving `guilds`."""

    def __init__(self, shard_count: int, guilds: list[Guild]) -> None:
        self.shard_count, self.guilds = shard_count, guilds
        self.recorder = Recorder()  # message objects and interaction callback answers, as in the in-process tests
        self.requests: list[tuple[str, Request]] = []  # (process, request) in arrival order
        self.identifies: list[Identify] = []
        self.resumes: list[Resume] = []
        self.sessions: dict[str, Session] = {}
        self.current: dict[int, Session] = {}  # shard -> its live session
        self.resume_gate = asyncio.Event()  # cleared: a RESUME waits (the shard stays down) until it is set
        self.resume_gate.set()
        self.resume_asked = asyncio.Event()  # a RESUME arrived (and may be waiting at the gate)
        self._runner: web.AppRunner | None = None
        self.port = 0

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/{process}/gateway", self._gateway)
        app.router.add_route("*", "/{process}/api/v10/{path:.*}", self._rest)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        for session in self.sessions.values():
            if session.socket is not None and not session.socket.closed:
                await session.socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def api(self, process: str) -> str:
        return f"http://127.0.0.1:{self.port}/{process}/api/v10"

    def gateway(self, process: str) -> str:
        return f"ws://127.0.0.1:{self.port}/{process}/gateway"

    def owner(self, guild: Guild) -> Session | None:
        return self.current.get(guild.shard(self.shard_count))

    # -- the gateway ----------------------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        process = request.match_info["process"]
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        await socket.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41_250}}))
        session: Session | None = None
        async for frame in socket:
            if frame.type is not WSMsgType.TEXT:
                continue
            message = json.loads(frame.data)
            op, data = message.get("op"), message.get("d")
            if op == 1:
                await socket.send_str(json.dumps({"op": 11}))
            elif op == 2:
                session = await self._identify(process, socket, data)
            elif op == 6:
                session = await self._resume(process, socket, data)
        if session is not None and session.socket is socket:
            session.socket = None
        return socket

    async def _identify(self, process: str, socket: web.WebSocketResponse, data: dict[str, Any]) -> Session | None:
        pair = data.get("shard")
        good = (isinstance(pair, list) and len(pair) == 2 and pair[1] == self.shard_count
                and isinstance(pair[0], int) and 0 <= pair[0] < self.shard_count)
        self.identifies.append(Identify(process, pair, good))
        if not good:
            code = SHARDING_REQUIRED if pair is None and self.shard_count > 1 else INVALID_SHARD
            await socket.close(code=code, message=b"Invalid shard" if code == INVALID_SHARD else b"Sharding required")
            return None
        shard = pair[0]
        session = Session(uuid.uuid4().hex, shard, process, socket=socket)
        self.sessions[session.id] = session
        self.current[shard] = session
        mine = [guild for guild in self.guilds if guild.shard(self.shard_count) == shard]
        await self._send(session, "READY", {
            "v": 10, "user": BOT_USER, "session_id": session.id, "resume_gateway_url": self.gateway(process),
            "shard": [shard, self.shard_count], "application": {"id": str(APP_ID), "flags": 0},
            "guilds": [{"id": str(guild.id), "unavailable": True} for guild in mine],
            "private_channels": [], "relationships": [], "user_settings": {}, "presences": []})
        for guild in mine:
            await self._send(session, "GUILD_CREATE", guild_create(guild))
        return session

    async def _resume(self, process: str, socket: web.WebSocketResponse, data: dict[str, Any]) -> Session | None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or self.current.get(session.shard) is not session:
            await socket.send_str(json.dumps({"op": 9, "d": False}))  # invalid session: identify anew
            return None
        self.resume_asked.set()
        await self.resume_gate.wait()
        seq = int(data.get("seq") or 0)
        missed = session.events[seq:]
        self.resumes.append(Resume(process, session.shard, session.id, seq, len(missed)))
        session.socket = socket
        for event in missed:
            await socket.send_str(json.dumps(event))
        await self._send(session, "RESUMED", {})
        return session

    async def _send(self, session: Session, kind: str, data: dict[str, Any]) -> None:
        event = {"op": 0, "t": kind, "s": session.seq + 1, "d": data}
        session.events.append(event)
        if session.socket is not None and not session.socket.closed:
            await session.socket.send_str(json.dumps(event))

    async def dispatch(self, guild: Guild, kind: str, data: dict[str, Any]) -> Session:
        """An event of `guild`, to the shard that owns it (kept for a RESUME if that shard is down)."""
        session = self.owner(guild)
        assert session is not None, f"no shard {guild.shard(self.shard_count)} has identified"
        await self._send(session, kind, data)
        return session

    async def drop(self, shard: int) -> None:
        """Close the shard's socket as Discord does when it wants a client to reconnect and resume."""
        session = self.current[shard]
        socket, session.socket = session.socket, None
        if socket is not None:
            await socket.close(code=4000, message=b"Unknown error")

    # -- the REST API ---------------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.Response:
        process, path = request.match_info["process"], "/" + request.match_info["path"]
        payload = await _body(request)
        recorded = Request(request.method, path, payload)
        self.requests.append((process, recorded))
        method, parts = request.method, path.strip("/").split("/")
        if method == "GET" and path == "/users/@me":
            return _json(BOT_USER)
        if method == "GET" and path == "/oauth2/applications/@me":
            return _json({"id": str(APP_ID), "name": "interview-bot", "description": "", "icon": None,
                          "bot_public": True, "bot_require_code_grant": False, "owner": BOT_USER,
                          "verify_key": "0" * 64, "flags": 0})
        if method == "PUT" and path.endswith("/commands"):
            return _json([dict(command, id=str(next(_interaction_ids)), application_id=str(APP_ID), version="1")
                          for command in payload or []])
        if parts[0] == "channels" and parts[2:3] == ["messages"]:
            message_id = int(parts[3]) if len(parts) > 3 and method == "PATCH" else None
            return _json(self.recorder._message(int(parts[1]), payload or {}, message_id))
        if parts[0] == "interactions" and parts[-1] == "callback":
            return _json(self.recorder._callback(int(parts[1]), payload or {}))
        if parts[0] == "webhooks" and method in ("POST", "PATCH"):
            token = parts[2]
            channel = self.recorder.channel_of_token.get(token, 0)
            original = self.recorder.original.get(token) if method == "PATCH" else None
            return _json(self.recorder._message(channel, payload or {}, original))
        return _json({"message": "404: Not Found", "code": 0}, status=404)

    def sent(self, method: str, path_part: str) -> list[tuple[str, Request]]:
        return [(process, request) for process, request in self.requests
                if request.method == method and path_part in request.path]

    def callbacks(self, interaction_id: int) -> list[tuple[str, Request]]:
        return self.sent("POST", f"/interactions/{interaction_id}/")

    # -- what members do ------------------------------------------------------------------------------------

    def click(self, guild: Guild, message_id: int, custom_id: str, who: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The INTERACTION_CREATE of a member's click on a button of a message in the guild's channel."""
        interaction_id, token = next(_interaction_ids), f"token-{uuid.uuid4().hex}"
        self.recorder.token_of_interaction[interaction_id] = token
        self.recorder.channel_of_token[token] = guild.channel_id
        self.recorder.original[token] = message_id
        channel = {"id": str(guild.channel_id), "type": 0, "name": "ml-study", "guild_id": str(guild.id),
                   "position": 0, "permission_overwrites": [], "nsfw": False, "parent_id": None}
        return interaction_id, {
            "id": str(interaction_id), "application_id": str(APP_ID), "type": 3, "token": token, "version": 1,
            "data": {"custom_id": custom_id, "component_type": 2}, "locale": "en-US", "guild_locale": "en-US",
            "attachment_size_limit": 10_485_760, "entitlements": [], "context": 0,
            "authorizing_integration_owners": {"0": str(guild.id)}, "app_permissions": "2251799813685247",
            "guild_id": str(guild.id), "channel_id": str(guild.channel_id), "channel": channel,
            "member": {"user": who, "roles": [], "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False,
                       "mute": False, "flags": 0, "permissions": str(MEMBER)},
            "message": dict(self.recorder.messages[message_id]),
        }


def guild_create(guild: Guild) -> dict[str, Any]:
    """The GUILD_CREATE the guilds intent delivers for a server after READY: the server and its channels."""
    return {
        "id": str(guild.id), "name": f"Server {guild.id % 1000}", "owner_id": "1", "unavailable": False,
        "roles": [], "emojis": [], "stickers": [], "features": [], "member_count": 3, "large": False,
        "members": [], "voice_states": [], "presences": [], "threads": [], "stage_instances": [],
        "guild_scheduled_events": [], "soundboard_sounds": [], "preferred_locale": "en-US",
        "joined_at": "2026-01-01T00:00:00+00:00",
        "channels": [{"id": str(guild.channel_id), "type": 0, "name": "ml-study", "position": 0,
                      "permission_overwrites": [], "nsfw": False, "parent_id": None}],
    }


async def _body(request: web.Request) -> Any:
    """A request's JSON body, from plain JSON or the payload_json part of a multipart upload."""
    if request.content_type == "application/json":
        return await request.json()
    if request.content_type.startswith("multipart/"):
        reader = await request.multipart()
        payload = None
        async for part in reader:
            if getattr(part, "name", None) == "payload_json":
                payload = json.loads(await part.text())  # type: ignore[union-attr]
            else:
                await part.read()  # type: ignore[union-attr]
        return payload
    return None


def _json(body: Any, status: int = 200) -> web.Response:
    """discord.py parses a body as JSON only when the content type is exactly application/json."""
    return web.Response(body=json.dumps(body).encode(), status=status, headers={"Content-Type": "application/json"})
