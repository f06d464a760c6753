"""A fake Telegram Bot API server on loopback (aiohttp), for the real python-telegram-bot to talk to.

It implements the methods the adapter calls, keeps the messages it was sent (with their HTML and
keyboards), records every call with its parameters, serves getUpdates from a queue the tests push
into, and answers like Telegram: `{"ok": true, "result": ...}` with real message objects, 400 for
unbalanced or unknown HTML tags, oversized texts or callback_data, and, on command, 429 with
retry_after, 403 Forbidden, 400 with migrate_to_chat_id, a 502, a dropped connection, or a response slower
than the client waits. Files live under ids as on Telegram: `add_file` makes a document a user can send,
getFile names its path and `/file/bot<token>/<path>` serves it (each download recorded). A `Chaos` plan
adds seeded random faults to a share of all calls (the reliability suite), and every call records whether
its effect was applied, so tests can tell delivered from lost.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from aiohttp import web

TOKEN = "123456:TEST-fake-token"
BOT = {"id": 4242, "is_bot": True, "first_name": "Interview Bot", "username": "interview_test_bot",
       "can_join_groups": True, "can_read_all_group_messages": False, "supports_inline_queries": False}
TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre", "a", "blockquote",
        "tg-spoiler", "span", "tg-emoji"}
RAW_STRINGS = {"text", "caption", "parse_mode", "callback_query_id", "language_code", "url", "secret_token",
               "description", "question", "explanation"}
_TAG = re.compile(r"</?([a-z-]+)(\s[^<>]*)?>")
_ENTITY = re.compile(r"&(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);")


class BadHtml(ValueError):
    pass


class _Balance(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag not in TAGS:
            raise BadHtml(f"Unsupported start tag \"{tag}\"")
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            raise BadHtml(f"Unmatched end tag \"{tag}\"")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def visible_text(markup: str) -> str:
    """The text Telegram would show for `markup` in HTML parse mode; BadHtml where Telegram refuses it."""
    for index, char in enumerate(markup):
        if char == "<" and not _TAG.match(markup, index):
            raise BadHtml(f"Unsupported start tag at byte offset {index}")
        if char == "&" and not _ENTITY.match(markup, index):
            raise BadHtml(f"Unsupported HTML entity at byte offset {index}")
    parser = _Balance()
    parser.feed(markup)
    parser.close()
    if parser.stack:
        raise BadHtml(f"Can't find end tag corresponding to start tag \"{parser.stack[-1]}\"")
    return "".join(parser.text)


@dataclass
class Fault:
    """An answer to give instead of the normal one: retry_after, forbidden, migrate or slow."""

    method: str
    kind: str
    chat_id: int | None = None
    times: int = 1
    value: float = 1


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    status: int = 200
    applied: bool = False  # the method's effect happened (a message stored, a query answered)
    fault: str | None = None  # the injected fault this call got, if any


CHAOS_KINDS = ("retry_after", "bad_gateway", "drop", "timeout")


@dataclass(frozen=True)
class Incident:
    """A fault the chaos plan gave one call: its kind and whether the call's effect happened first."""

    method: str
    subject: tuple
    kind: str
    applied: bool
    retry_after: int = 0


def subject_of(params: dict) -> tuple:
    """What a call is about (chat, message, callback query): chaos decisions are drawn per subject."""
    return tuple(params.get(name) for name in ("chat_id", "message_id", "callback_query_id"))


@dataclass
class Chaos:
    """Seeded random faults on about `rate` of the calls the server receives, and `refuse_rate` of the
    connections a client transport asks about (see `refuse`).

    Each decision depends only on the seed, the method, the call's subject and how many calls of that
    method about that subject came before, so concurrent traffic does not reshuffle who gets what.
    A 429 is answered before the call has any effect; a 502, a dropped connection or a timeout come
    after the request was read, and half of the 502s and drops happen before the effect, half after
    (a timeout is always applied, then answered too late): the client cannot tell which.
    """

    seed: int
    rate: float = 0.1
    kinds: tuple[str, ...] = CHAOS_KINDS
    methods: frozenset[str] | None = None  # None: every method
    retry_after: tuple[int, ...] = (0, 1)
    delay: float = 2.0  # a timeout answers this late: longer than the client waits
    refuse_rate: float = 0.0
    refuse_once: list[tuple[str, int]] = field(default_factory=list)  # (method, chat_id): refuse its next call
    active: bool = True
    incidents: list[Incident] = field(default_factory=list)
    refusals: list[tuple[str, tuple]] = field(default_factory=list)
    _seen: Counter = field(default_factory=Counter)

    def _draw(self, stage: str, method: str, subject: tuple) -> random.Random:
        number = self._seen[(stage, method, subject)]
        self._seen[(stage, method, subject)] += 1
        return random.Random(f"{self.seed}:{stage}:{method}:{subject}:{number}")

    def _targets(self, method: str) -> bool:
        return self.active and (self.methods is None or method in self.methods)

    def decide(self, method: str, params: dict) -> Incident | None:
        """The fault for a call the server just read, or None to answer it normally."""
        if not self._targets(method):
            return None
        subject = subject_of(params)
        rng = self._draw("server", method, subject)
        if rng.random() >= self.rate:
            return None
        kinds = [kind for kind in self.kinds if not (kind == "timeout" and method == "getUpdates")]
        kind = rng.choice(kinds)
        applied = kind == "timeout" or (kind != "retry_after" and rng.random() < 0.5)
        return Incident(method, subject, kind, applied, rng.choice(self.retry_after))

    def refuse(self, method: str, params: dict) -> bool:
        """Whether a client's connection for this call should be refused (the request never leaves)."""
        if not self._targets(method):
            return False
        subject = subject_of(params)
        if (method, subject[0]) in self.refuse_once:
            self.refuse_once.remove((method, subject[0]))
            refused = True
        else:
            refused = self._draw("client", method, subject).random() < self.refuse_rate
        if refused:
            self.refusals.append((method, subject))
        return refused


@dataclass
class Stored:
    """A message the bot sent, as the fake keeps it."""

    chat_id: int
    message_id: int
    html: str
    markup: dict | None = None
    photo: bytes | None = None
    edits: int = 0
    document: bytes | None = None
    filename: str = ""
    poll: dict | None = None  # a native poll, as Telegram returns it

    @property
    def buttons(self) -> list[dict]:
        return [button for row in (self.markup or {}).get("inline_keyboard", []) for button in row]

    @property
    def data(self) -> list[str]:
        return [button["callback_data"] for button in self.buttons]


@dataclass(frozen=True)
class FakeFile:
    """A file on the fake's file server: what getFile tells and the download serves."""

    file_id: str
    unique_id: str
    data: bytes = field(repr=False)
    path: str


class ApiError(Exception):
    def __init__(self, status: int, description: str, parameters: dict | None = None) -> None:
        super().__init__(description)
        self.status, self.description, self.parameters = status, description, parameters


@dataclass
class FakeBotApi:
    calls: list[Call] = field(default_factory=list)
    messages: dict[tuple[int, int], Stored] = field(default_factory=dict)
    admins: dict[int, set[int]] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    chats: dict[int, dict] = field(default_factory=dict)
    updates: list[dict] = field(default_factory=list)
    answered_queries: set[str] = field(default_factory=set)
    token: str = TOKEN
    chaos: Chaos | None = None
    served: Counter = field(default_factory=Counter)  # update_id -> how many live getUpdates answers carried it
    files: dict[str, FakeFile] = field(default_factory=dict)  # file_id -> the file as Telegram keeps it
    downloads: list[str] = field(default_factory=list)  # the file paths fetched from the file URL
    on_served: Callable[[list[int]], None] | None = None  # called with the ids of each non-empty batch served

    def __post_init__(self) -> None:
        self._ids = itertools.count(1)
        self._update_ids = itertools.count(1)
        self._arrived = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    # --- lifecycle --------------------------------------------------------------------------------

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post(f"/bot{self.token}/{{method}}", self._handle)
        app.router.add_get(f"/bot{self.token}/{{method}}", self._handle)
        app.router.add_get(f"/file/bot{self.token}/{{path:.+}}", self._download)
        app.router.add_route("*", "/{path:.*}", self._unauthorized)  # another token: what Telegram answers
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}/bot"
        return self.base_url

    @property
    def file_url(self) -> str:
        """Where files are downloaded from: the base URL with /file before /bot, as on Telegram."""
        return self.base_url.replace("/bot", "/file/bot")

    @staticmethod
    async def _unauthorized(request: web.Request) -> web.Response:
        return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    # --- what tests use ---------------------------------------------------------------------------

    def fail(self, method: str, kind: str, *, chat_id: int | None = None, times: int = 1, value: float = 1) -> None:
        """Answer the next `times` calls of `method` (to `chat_id`) with a fault: retry_after (value s),
        forbidden, migrate (to chat value), slow (value s late), bad_gateway (502, not applied), drop
        (applied, then the connection closed)."""
        self.faults.append(Fault(method, kind, chat_id, times, value))

    def calls_of(self, method: str) -> list[dict[str, Any]]:
        return [call.params for call in self.calls if call.method == method]

    def applied(self, method: str) -> list[Call]:
        """The calls of `method` whose effect happened, whatever the client was told."""
        return [call for call in list(self.calls) if call.method == method and call.applied]

    def sent_to(self, chat_id: int) -> list[Stored]:
        return [stored for (chat, _), stored in sorted(self.messages.items()) if chat == chat_id]

    def last(self, chat_id: int) -> Stored:
        return self.sent_to(chat_id)[-1]

    def add_file(self, data: bytes, file_name: str, mime_type: str = "application/octet-stream",
                 *, file_size: int | None = None) -> dict:
        """A file a user sent, kept under a new id; returns its `document` object (file_size may be told
        otherwise than the data's length: Telegram's word is what the bot checks before downloading)."""
        number = len(self.files) + 1
        file_id = f"BQACAgIAAx-file-{number}"
        extension = file_name.rsplit(".", 1)[-1] if "." in file_name else "bin"
        self.files[file_id] = FakeFile(file_id, f"u{number}", data, f"documents/file_{number}.{extension}")
        return {"file_id": file_id, "file_unique_id": f"u{number}", "file_name": file_name, "mime_type": mime_type,
                "file_size": len(data) if file_size is None else file_size}

    def push(self, update: dict) -> dict:
        """Queue an update for getUpdates; it gets the next update_id."""
        update = {"update_id": next(self._update_ids), **update}
        self.updates.append(update)
        self._arrived.set()
        return update

    # --- the HTTP side ------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = await _params(request)
        call = Call(method, params)
        self.calls.append(call)
        incident = self.chaos.decide(method, params) if self.chaos is not None else None
        try:
            if incident is not None and not incident.applied:
                return self._failed(request, call, incident)
            delay = self._fault(method, params, call)
            handler = getattr(self, f"api_{method}", None)
            if handler is None:
                raise ApiError(404, "Not Found: method not found")
            result = await handler(params)
            if method == "getUpdates" and incident is None:
                result = self._serve(request, result)
            call.applied = True
            if incident is not None:
                if incident.kind != "timeout":
                    return self._failed(request, call, incident)
                self._record(call, incident)
                delay = max(delay, self.chaos.delay)  # type: ignore[union-attr]
            if call.fault == "drop":
                request.transport.close()  # type: ignore[union-attr]  # done, but the answer is lost
            if delay:
                await asyncio.sleep(delay)  # done, but answered after the client gave up
            return web.json_response({"ok": True, "result": result})
        except ApiError as error:
            call.status = error.status
            body: dict[str, Any] = {"ok": False, "error_code": error.status, "description": error.description}
            if error.parameters:
                body["parameters"] = error.parameters
            return web.json_response(body, status=error.status)

    def _record(self, call: Call, incident: Incident) -> None:
        call.fault = incident.kind
        self.chaos.incidents.append(incident)  # type: ignore[union-attr]

    def _failed(self, request: web.Request, call: Call, incident: Incident) -> web.Response:
        """Answer a call with its chaos fault: a 429 (never applied), a 502, or a dropped connection."""
        self._record(call, incident)
        if incident.kind == "retry_after":
            raise ApiError(429, f"Too Many Requests: retry after {incident.retry_after}",
                           {"retry_after": incident.retry_after})
        if incident.kind == "bad_gateway":
            raise ApiError(502, "Bad Gateway")
        if incident.kind == "drop":
            request.transport.close()  # type: ignore[union-attr]  # the client sees the connection go
            return web.Response()
        assert incident.kind == "timeout" and not incident.applied
        raise AssertionError("a timeout is always applied")

    def _fault(self, method: str, params: dict, call: Call) -> float:
        for fault in self.faults:
            if fault.method != method or fault.times <= 0:
                continue
            if fault.chat_id is not None and params.get("chat_id") != fault.chat_id:
                continue
            fault.times -= 1
            if fault.kind == "retry_after":
                raise ApiError(429, f"Too Many Requests: retry after {int(fault.value)}",
                               {"retry_after": int(fault.value)})
            if fault.kind == "forbidden":
                raise ApiError(403, "Forbidden: bot was kicked from the supergroup chat")
            if fault.kind == "migrate":
                raise ApiError(400, "Bad Request: group chat was upgraded to a supergroup chat",
                               {"migrate_to_chat_id": int(fault.value)})
            if fault.kind == "slow":
                return fault.value
            if fault.kind == "bad_gateway":
                raise ApiError(502, "Bad Gateway")
            if fault.kind == "drop":
                call.fault = "drop"  # applied, then the connection is closed instead of answering
                return 0.0
            raise AssertionError(f"unknown fault {fault.kind}")
        return 0.0

    def _chat(self, chat_id: int) -> dict:
        if chat_id in self.chats:
            return self.chats[chat_id]
        if chat_id > 0:
            return {"id": chat_id, "type": "private", "first_name": f"User {chat_id}"}
        return {"id": chat_id, "type": "supergroup", "title": f"Group {chat_id}"}

    async def _download(self, request: web.Request) -> web.Response:
        """GET /file/bot<token>/<file_path>: the file's bytes, as Telegram's file server serves them."""
        path = request.match_info["path"]
        found = next((file for file in self.files.values() if file.path == path), None)
        if found is None:
            return web.json_response({"ok": False, "error_code": 404, "description": "Not Found"}, status=404)
        self.downloads.append(path)
        return web.Response(body=found.data, content_type="application/octet-stream")

    def _message(self, stored: Stored) -> dict:
        body = {"message_id": stored.message_id, "date": int(time.time()), "chat": self._chat(stored.chat_id),
                "from": BOT}
        if stored.photo is not None:
            body["photo"] = [{"file_id": f"photo{stored.message_id}", "file_unique_id": f"u{stored.message_id}",
                              "width": 800, "height": 600}]
            if stored.html:
                body["caption"] = visible_text(stored.html)
        elif stored.document is not None:
            file_id = f"doc{stored.message_id}"
            self.files.setdefault(file_id, FakeFile(file_id, f"d{stored.message_id}", stored.document,
                                                    f"documents/sent_{stored.message_id}_{stored.filename}"))
            body["document"] = {"file_id": file_id, "file_unique_id": f"d{stored.message_id}",
                                "file_name": stored.filename, "file_size": len(stored.document)}
            if stored.html:
                body["caption"] = visible_text(stored.html)
        elif stored.poll is not None:
            body["poll"] = stored.poll
        else:
            body["text"] = visible_text(stored.html)
        if stored.markup and stored.markup.get("inline_keyboard"):
            body["reply_markup"] = stored.markup
        if stored.edits:
            body["edit_date"] = int(time.time())
        return body

    @staticmethod
    def _checked(text: str, limit: int, params: dict) -> None:
        try:
            shown = visible_text(text) if params.get("parse_mode") == "HTML" else text
        except BadHtml as error:
            raise ApiError(400, f"Bad Request: can't parse entities: {error}") from None
        if len(shown.encode("utf-16-le")) // 2 > limit:
            raise ApiError(400, "Bad Request: message is too long")
        markup = params.get("reply_markup") or {}
        for row in markup.get("inline_keyboard", []):
            for button in row:
                if not 1 <= len(button.get("callback_data", "x").encode()) <= 64:
                    raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")

    def _stored(self, params: dict) -> Stored:
        stored = self.messages.get((params.get("chat_id"), params.get("message_id")))
        if stored is None:
            raise ApiError(400, "Bad Request: message to edit not found")
        return stored

    # --- the Bot API methods --------------------------------------------------------------------------

    async def api_getMe(self, params: dict) -> dict:
        return BOT

    async def api_deleteWebhook(self, params: dict) -> bool:
        return True

    async def api_setWebhook(self, params: dict) -> bool:
        return True

    async def api_setMyCommands(self, params: dict) -> bool:
        return True

    async def api_getMyCommands(self, params: dict) -> list:
        for call in reversed(self.calls):
            if call.method == "setMyCommands" and call.params.get("scope") == params.get("scope") \
                    and call.params.get("language_code") == params.get("language_code"):
                return call.params["commands"]
        return []

    async def api_getUpdates(self, params: dict) -> list[dict]:
        offset = int(params.get("offset") or 0)
        self.updates = [update for update in self.updates if update["update_id"] >= offset]
        if not self.updates and float(params.get("timeout") or 0) > 0:
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), min(float(params["timeout"]), 0.5))
            except TimeoutError:
                pass
        return self.updates[: int(params.get("limit") or 100)]

    def _serve(self, request: web.Request, batch: list[dict]) -> list[dict]:
        """Count a getUpdates answer as served unless its client is gone (a killed process's last poll)."""
        if request.transport is None or request.transport.is_closing():
            return []
        ids = [update["update_id"] for update in batch]
        self.served.update(ids)
        if ids and self.on_served is not None:
            self.on_served(ids)
        return batch

    async def api_sendMessage(self, params: dict) -> dict:
        text = params.get("text", "")
        self._checked(text, 4096, params)
        stored = Stored(params["chat_id"], next(self._ids), text, params.get("reply_markup"))
        self.messages[(stored.chat_id, stored.message_id)] = stored
        return self._message(stored)

    async def api_sendPhoto(self, params: dict) -> dict:
        caption = params.get("caption") or ""
        self._checked(caption, 1024, params)
        photo = params.get("photo")
        stored = Stored(params["chat_id"], next(self._ids), caption, params.get("reply_markup"),
                        photo if isinstance(photo, bytes) else b"")
        self.messages[(stored.chat_id, stored.message_id)] = stored
        return self._message(stored)

    async def api_sendDocument(self, params: dict) -> dict:
        """A file upload: kept with its name; Telegram refuses one over 50 MB or with a caption over 1024."""
        caption = params.get("caption") or ""
        self._checked(caption, 1024, params)
        document = params.get("document")
        if not isinstance(document, bytes) or not document:
            raise ApiError(400, "Bad Request: there is no document in the request")
        if len(document) > 50 * 1024 * 1024:
            raise ApiError(413, "Request Entity Too Large")
        stored = Stored(params["chat_id"], next(self._ids), caption, params.get("reply_markup"),
                        document=document, filename=params.get("filenames", {}).get("document", ""))
        self.messages[(stored.chat_id, stored.message_id)] = stored
        return self._message(stored)

    async def api_sendPoll(self, params: dict) -> dict:
        """A poll within Telegram's limits (Bot API 9.6+: quiz keys as `correct_option_ids`), else a 400."""
        question, options = params.get("question", ""), [option["text"] for option in params.get("options", [])]
        explanation, period = params.get("explanation") or "", params.get("open_period")
        quiz = params.get("type") == "quiz"
        correct = params.get("correct_option_ids")
        if not 1 <= len(question) <= 300:
            raise ApiError(400, "Bad Request: poll question length must not exceed 300")
        if not 2 <= len(options) <= 12 or not all(1 <= len(option) <= 100 for option in options):
            raise ApiError(400, "Bad Request: POLL_OPTION_INVALID")
        if len(explanation) > 200 or explanation.count("\n") > 2:
            raise ApiError(400, "Bad Request: explanation is too long")
        if period is not None and not 5 <= int(period) <= 2_628_000:
            raise ApiError(400, "Bad Request: wrong open period specified")
        if quiz and (not correct or not all(0 <= index < len(options) for index in correct)):
            raise ApiError(400, "Bad Request: wrong correct option ids specified")
        message_id = next(self._ids)
        poll = {"id": f"poll-{params['chat_id']}-{message_id}", "question": question, "total_voter_count": 0,
                "options": [{"text": text, "voter_count": 0, "persistent_id": str(number)}
                            for number, text in enumerate(options)],
                "is_closed": False, "is_anonymous": params.get("is_anonymous", True),
                "type": params.get("type", "regular"), "allows_multiple_answers": False,
                "allows_revoting": not quiz, "members_only": False}
        if quiz:
            poll["correct_option_ids"] = correct
        if explanation:
            poll["explanation"] = explanation
        if period is not None:
            poll["open_period"] = int(period)
        stored = Stored(params["chat_id"], message_id, "", params.get("reply_markup"), poll=poll)
        self.messages[(stored.chat_id, stored.message_id)] = stored
        return self._message(stored)

    async def api_stopPoll(self, params: dict) -> dict:
        stored = self._stored(params)
        if stored.poll is None:
            raise ApiError(400, "Bad Request: message with poll to stop not found")
        if stored.poll["is_closed"]:
            raise ApiError(400, "Bad Request: poll has already been closed")
        stored.poll["is_closed"] = True
        return stored.poll

    async def api_editMessageText(self, params: dict) -> dict:
        stored = self._stored(params)
        if stored.poll is not None:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        self._checked(params.get("text", ""), 4096, params)
        markup = params.get("reply_markup")
        if params.get("text") == stored.html and markup == stored.markup:
            raise ApiError(400, "Bad Request: message is not modified: specified new message content and reply "
                                "markup are exactly the same as a current content and reply markup of the message")
        stored.html, stored.markup, stored.edits = params.get("text", ""), markup, stored.edits + 1
        return self._message(stored)

    async def api_editMessageReplyMarkup(self, params: dict) -> dict:
        stored = self._stored(params)
        stored.markup, stored.edits = params.get("reply_markup"), stored.edits + 1
        return self._message(stored)

    async def api_answerCallbackQuery(self, params: dict) -> bool:
        query_id = params["callback_query_id"]
        if query_id in self.answered_queries:
            raise ApiError(400, "Bad Request: query is too old and response timeout expired or query ID is invalid")
        if len(params.get("text") or "") > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        self.answered_queries.add(query_id)
        return True

    async def api_getFile(self, params: dict) -> dict:
        """A file's size and path for download; Telegram refuses an unknown id, and a file over 20 MB."""
        found = self.files.get(str(params.get("file_id")))
        if found is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        if len(found.data) > 20 * 1024 * 1024:
            raise ApiError(400, "Bad Request: file is too big")
        return {"file_id": found.file_id, "file_unique_id": found.unique_id, "file_size": len(found.data),
                "file_path": found.path}

    async def api_getChatMember(self, params: dict) -> dict:
        chat_id, user_id = params["chat_id"], params["user_id"]
        user = {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"}
        if user_id in self.admins.get(chat_id, set()):
            rights = dict.fromkeys(("can_be_edited", "is_anonymous", "can_manage_chat", "can_delete_messages",
                                    "can_manage_video_chats", "can_restrict_members", "can_promote_members",
                                    "can_change_info", "can_invite_users", "can_post_stories", "can_edit_stories",
                                    "can_delete_stories"), False)
            return {"status": "administrator", "user": user, **rights, "can_manage_chat": True}
        return {"status": "member", "user": user}


async def _params(request: web.Request) -> dict[str, Any]:
    """Form or multipart fields; PTB sends strings raw and everything else JSON-encoded."""
    params: dict[str, Any] = dict(request.query)
    if request.can_read_body:
        form = await request.post()
        for name, value in form.items():
            if hasattr(value, "file"):
                params[name] = value.file.read()
                params.setdefault("filenames", {})[name] = value.filename or ""  # what a file upload was called
            else:
                params[name] = value
    return decoded(params)


def decoded(params: dict[str, Any]) -> dict[str, Any]:
    """PTB sends strings raw and everything else JSON-encoded: the fields as values."""
    for name, value in list(params.items()):
        if isinstance(value, str) and name not in RAW_STRINGS:
            try:
                params[name] = json.loads(value)
            except ValueError:
                pass
    return params
