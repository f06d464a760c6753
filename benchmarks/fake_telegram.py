"""The loopback fake Bot API server for the Telegram benchmarks, in a process of its own.

The benchmarks measure the bot, so the server must not eat the bot's CPU: on 2 cores, a server in
the bot's own event loop would add its parsing and JSON to every click of both bots being compared
(and so pull the ratio toward 1). It runs here as `python -m benchmarks.fake_telegram`, prints one
JSON line with its two addresses, and serves until its stdin closes:

  the Bot API   -- tests/adapters/telegram/fake_bot_api.FakeBotApi (imported, not modified), plus
                   the arrival time of every answerCallbackQuery and of every message accepted, and
                   optionally Telegram's overall flood limit (429 with retry_after when exceeded);
  a control API -- JSON over HTTP for the benchmark process: reset, inject a burst of clicks (the
                   moment each click is made available is recorded here, next to its answer's
                   arrival, so both timestamps come from one clock in one process), wait for the
                   answers, read the figures.

The flood limit (`FloodLimit`) counts messages the way the strictest reading of "30 messages per
second" does: at most `count` accepted in ANY sliding window of `window` seconds. The other model,
a leaky bucket of capacity `count` (what aiolimiter and PTB's AIORateLimiter implement), can be
chosen for comparison: it allows a burst of `count` and then `count` per window.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from benchmarks.sizes import close_server_process
from tests.adapters.telegram.fake_bot_api import TOKEN, ApiError, Call, FakeBotApi

ROOT = Path(__file__).resolve().parents[1]
MESSAGE_METHODS = frozenset({"sendMessage", "sendPhoto", "editMessageText", "editMessageReplyMarkup"})


@dataclass
class FloodLimit:
    """Telegram's overall limit as this fake enforces it: `count` messages per `window` seconds."""

    count: int
    window: float = 1.0
    model: str = "window"  # "window": any sliding window; "bucket": a leaky bucket of capacity `count`
    _accepted: deque = field(default_factory=deque)
    _level: float = 0.0
    _last: float = 0.0

    def retry_after(self, now: float) -> int:
        """0 when a message may go now (and it is counted), else whole seconds to wait (at least 1)."""
        if self.model == "bucket":
            self._level = max(0.0, self._level - (now - self._last) * self.count / self.window)
            self._last = now
            if self._level + 1 <= self.count:
                self._level += 1
                return 0
            return max(1, math.ceil((self._level + 1 - self.count) * self.window / self.count))
        while self._accepted and self._accepted[0] <= now - self.window:
            self._accepted.popleft()
        if len(self._accepted) < self.count:
            self._accepted.append(now)
            return 0
        return max(1, math.ceil(self._accepted[0] + self.window - now))


@dataclass
class Burst:
    """Clicks injected together: when each was made available, when its answer arrived."""

    pushed: dict[str, float] = field(default_factory=dict)
    answered: dict[str, float] = field(default_factory=dict)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    expected: int = 0
    cpu_start: float = field(default_factory=time.process_time)  # the server's own CPU, to show it is not
    cpu_end: float | None = None  # the bottleneck


class BenchBotApi(FakeBotApi):
    """FakeBotApi with timestamps, an optional flood limit, and click bursts."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.limit: FloodLimit | None = None
        self._checked_at = 0.0
        self.reset()

    def reset(self, limit: FloodLimit | None = None, group_limit: dict[str, Any] | None = None) -> None:
        self.limit = limit
        self.group_limit = group_limit  # Telegram's per-group limit: FloodLimit arguments, one per group chat
        self.group_limits: dict[int, FloodLimit] = {}
        self.calls.clear()
        self.messages.clear()
        self.updates.clear()
        self.answered_queries.clear()
        self.sent_at: list[tuple[float, int]] = []  # (arrival, chat_id) of every message accepted
        self.rejected: list[tuple[float, int]] = []  # (arrival, chat_id) of every 429 answered
        self.bursts: dict[int, Burst] = {}
        self.query_burst: dict[str, Burst] = {}
        self.cpu_at_reset = time.process_time()

    # --- hooks into FakeBotApi --------------------------------------------------------------------

    def _fault(self, method: str, params: dict, call: Call) -> float:
        now = self._checked_at = time.monotonic()  # the moment the limit counts a message at
        if method in MESSAGE_METHODS:
            wait = self._flood_wait(now, params.get("chat_id"))
            if wait:
                self.rejected.append((now, params.get("chat_id")))
                raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        return super()._fault(method, params, call)

    def _flood_wait(self, now: float, chat_id: Any) -> int:
        """The group's own limit first (a message refused there is not counted overall), then the overall one."""
        try:
            chat = int(chat_id)
        except (TypeError, ValueError):
            chat = 0
        if self.group_limit and chat < 0:
            group = self.group_limits.setdefault(chat, FloodLimit(**self.group_limit))
            wait = group.retry_after(now)
            if wait:
                return wait
        return self.limit.retry_after(now) if self.limit is not None else 0

    # The send handlers do not await between the check above and the lines below, so _checked_at is
    # still this call's: the recorded times are exactly the ones the limit counted.

    async def api_sendMessage(self, params: dict) -> dict:
        result = await super().api_sendMessage(params)
        self.sent_at.append((self._checked_at, params["chat_id"]))
        return result

    async def api_sendPhoto(self, params: dict) -> dict:
        result = await super().api_sendPhoto(params)
        self.sent_at.append((self._checked_at, params["chat_id"]))
        return result

    async def api_answerCallbackQuery(self, params: dict) -> bool:
        arrived = time.monotonic()
        result = await super().api_answerCallbackQuery(params)
        burst = self.query_burst.get(params["callback_query_id"])
        if burst is not None:
            burst.answered[params["callback_query_id"]] = arrived
            if len(burst.answered) >= burst.expected and not burst.done.is_set():
                burst.cpu_end = time.process_time()
                burst.done.set()
        return result

    # --- bursts of clicks -------------------------------------------------------------------------

    async def burst(self, number: int, chat_id: int, message_id: int, first_user: int, count: int,
                    rate: float, seed: int) -> None:
        """`count` members click the stored message, all at once (rate 0) or `rate` per second."""
        stored = self.messages[(chat_id, message_id)]
        message = self._message(stored)  # the snapshot every click carries, as Telegram sends it
        rng = random.Random(seed)
        burst = self.bursts[number] = Burst(expected=count)
        bodies = []
        for index in range(count):
            user_id = first_user + index
            query_id = f"b{number}q{index}"
            user = {"id": user_id, "is_bot": False, "first_name": f"Member {user_id}", "language_code": "en"}
            bodies.append((query_id, {"callback_query": {"id": query_id, "from": user,
                                                         "chat_instance": f"ci{chat_id}",
                                                         "data": rng.choice(stored.data), "message": message}}))
            self.query_burst[query_id] = burst
        if rate <= 0:
            now = time.monotonic()
            for query_id, body in bodies:
                burst.pushed[query_id] = now
                self.push(body)
            return
        started = time.monotonic()
        for index, (query_id, body) in enumerate(bodies):
            delay = started + index / rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            burst.pushed[query_id] = time.monotonic()
            self.push(body)

    def burst_figures(self, number: int) -> dict[str, Any]:
        burst = self.bursts[number]
        latencies = [burst.answered[q] - burst.pushed[q] for q in burst.answered if q in burst.pushed]
        return {"pushed": len(burst.pushed), "answered": len(burst.answered),
                "first_push": min(burst.pushed.values(), default=None),
                "last_push": max(burst.pushed.values(), default=None),
                "first_answer": min(burst.answered.values(), default=None),
                "last_answer": max(burst.answered.values(), default=None),
                "latencies_s": latencies,
                "server_cpu_s": (burst.cpu_end or time.process_time()) - burst.cpu_start}


# --- the control API -------------------------------------------------------------------------------

def control_app(api: BenchBotApi) -> web.Application:
    tasks: set[asyncio.Task] = set()

    async def reset(request: web.Request) -> web.Response:
        body = await request.json()
        limit = FloodLimit(**body["limit"]) if body.get("limit") else None
        api.reset(limit, body.get("group_limit"))
        return web.json_response({"ok": True})

    async def push(request: web.Request) -> web.Response:
        """Make updates available to getUpdates, spread evenly over `spread_s` seconds (0: all at once);
        answers at once with the monotonic time the first one was pushed."""
        body = await request.json()
        updates, spread = body["updates"], float(body.get("spread_s", 0))

        async def push_all() -> None:
            for index, update in enumerate(updates):
                if spread and index:
                    await asyncio.sleep(spread / len(updates))
                api.push(update)

        started = time.monotonic()
        task = asyncio.create_task(push_all())
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        if not spread:
            await task
        return web.json_response({"pushed_at": started})

    async def messages(request: web.Request) -> web.Response:
        chat_id = int(request.query["chat_id"])
        return web.json_response([{"message_id": s.message_id, "html": s.html, "markup": s.markup, "data": s.data,
                                   "edits": s.edits} for s in api.sent_to(chat_id)])

    async def calls(request: web.Request) -> web.Response:
        method = request.query.get("method")
        return web.json_response({"count": sum(1 for c in api.calls if method is None or c.method == method)})

    async def burst(request: web.Request) -> web.Response:
        body = await request.json()
        task = asyncio.create_task(api.burst(**body))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        if not body.get("rate"):
            await task  # all pushed before answering: the click times are set
        return web.json_response({"ok": True})

    async def wait(request: web.Request) -> web.Response:
        body = await request.json()
        burst_ = api.bursts[body["number"]]
        try:
            await asyncio.wait_for(burst_.done.wait(), body.get("timeout", 60))
        except TimeoutError:
            pass
        return web.json_response(api.burst_figures(body["number"]))

    async def sends(request: web.Request) -> web.Response:
        return web.json_response({"sent": api.sent_at, "rejected": api.rejected,
                                  "server_cpu_s": time.process_time() - api.cpu_at_reset})

    app = web.Application()
    app.router.add_post("/reset", reset)
    app.router.add_get("/messages", messages)
    app.router.add_get("/calls", calls)
    app.router.add_post("/burst", burst)
    app.router.add_post("/push", push)
    app.router.add_post("/wait", wait)
    app.router.add_get("/sends", sends)
    return app


async def serve_forever() -> None:
    api = BenchBotApi()
    base_url = await api.start()
    runner = web.AppRunner(control_app(api), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(json.dumps({"base_url": base_url, "control": f"http://127.0.0.1:{port}"}), flush=True)
    loop = asyncio.get_running_loop()
    closed = asyncio.Event()
    stdin = sys.stdin.fileno()

    def readable() -> None:
        if not os.read(stdin, 1):  # EOF: the benchmark closed the pipe, or is gone
            loop.remove_reader(stdin)
            closed.set()

    loop.add_reader(stdin, readable)
    await closed.wait()
    try:
        await asyncio.wait_for(asyncio.gather(runner.cleanup(), api.stop()), 5)
    except TimeoutError:
        pass


class ServerProcess:
    """`async with ServerProcess() as server`: the fake in its own process, and a client for its control API."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.session: aiohttp.ClientSession | None = None
        self.base_url = self.control = ""
        self.token = TOKEN

    async def __aenter__(self) -> ServerProcess:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.fake_telegram", cwd=ROOT, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE)
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), 60)
        if not line:
            raise RuntimeError("the fake Bot API server did not start")
        addresses = json.loads(line)
        self.base_url, self.control = addresses["base_url"], addresses["control"]
        self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.session is not None:
            await self.session.close()
        await close_server_process(self.process)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    async def get(self, path: str, **query: object) -> Any:
        assert self.session is not None
        async with self.session.get(self.control + path, params={k: str(v) for k, v in query.items()}) as response:
            response.raise_for_status()
            return await response.json()

    async def post(self, path: str, body: dict) -> Any:
        assert self.session is not None
        async with self.session.post(self.control + path, json=body) as response:
            response.raise_for_status()
            return await response.json()


if __name__ == "__main__":
    asyncio.run(serve_forever())
