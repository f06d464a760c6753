"""Answer burst's sides: the bots under test, the clicks a burst pushes, and one measured burst.

Why a module of its own: benchmarks/answer_burst.py runs the rounds and assembles the figures, and
benchmarks/answer_burst_diagnosis.py says where the time goes; both start the same bots (ours over the
real Core, the bare PTB bots over ours' HTTP client) and measure them the same way, so that is here,
once. Nothing here imports either of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.ext import Application, ApplicationBuilder, CallbackQueryHandler, ContextTypes

from adapters.telegram.app import CONCURRENT_UPDATES
from adapters.telegram.transport import AiohttpRequest
from benchmarks.fake_telegram import ServerProcess
from benchmarks.profiling import Sampler
from benchmarks.sizes import percentile, scaled
from bot.app.config import Settings
from bot.core import Core
from bot.domain import ChatRef

GROUP_ID = -1_001_000_000_000  # ours' groups count down from here, one per burst
WARM_UP = 60
SEED = 20_260_701
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.MY_CHAT_MEMBER]


# --- the bots under test ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """The daily question a burst clicks: its chat, its message and its buttons' callback data."""

    chat_id: int
    message_id: int
    data: list[str]


class Side:
    """One bot under test: start it polling against the server, stop it."""

    name = ""

    def bot(self) -> Any:
        """The running bot's telegram.Bot (for its HTTP connection pool)."""
        raise NotImplementedError

    async def start(self, server: ServerProcess) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError


class Ours(Side):
    """adapters.telegram.app.serve over the real Core, run as a task until its stop event is set."""

    name = "ours"

    def __init__(self, core: Core, db_path: Path) -> None:
        self.core, self.db_path = core, db_path
        self.stop_event = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.groups = 0

    async def fresh_question(self, server: ServerProcess) -> Target:
        """A daily question posted now (through the core and this running adapter) in a group of its
        own: every burst starts on a question nobody has answered, as after a real post."""
        self.groups += 1
        chat_id = GROUP_ID - self.groups
        assert await self.core.post_daily_now(ChatRef("telegram", str(chat_id), "group", f"Bench group {self.groups}"))
        [message] = await server.get("/messages", chat_id=chat_id)
        return Target(chat_id, message["message_id"], message["data"])

    async def start(self, server: ServerProcess) -> None:
        from adapters.telegram.app import serve

        self.stop_event = asyncio.Event()
        settings = Settings(db_path=self.db_path, telegram_token=server.token)
        polls = await poll_count(server)
        self.task = asyncio.create_task(serve(self.core, settings, self.stop_event, base_url=server.base_url),
                                        name="bench-ours")
        await polling(server, polls, self.task)

    async def stop(self) -> None:
        assert self.task is not None
        self.stop_event.set()
        await asyncio.wait_for(self.task, 60)

    def bot(self) -> Any:
        return self.core.ports["telegram"].bot  # type: ignore[attr-defined]


async def bare_answer(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.callback_query is not None
    await update.callback_query.answer()


class Bare(Side):
    """The least a PTB bot can do for a click: an Application with one handler that answers it, over
    ours' HTTP client (the transport is not what the ratio measures)."""

    def __init__(self, concurrent: bool) -> None:
        self.concurrent = concurrent
        self.name = "bare_concurrent" if concurrent else "bare_aiohttp"
        self.application: Application | None = None

    async def start(self, server: ServerProcess) -> None:
        builder = ApplicationBuilder().token(server.token).base_url(server.base_url)
        if self.concurrent:  # as adapters.telegram.app.build_application builds ours
            builder = builder.job_queue(None).concurrent_updates(CONCURRENT_UPDATES).request(
                AiohttpRequest(CONCURRENT_UPDATES + 8))
        else:  # PTB's defaults over ours' HTTP client (adapters/telegram/transport.py)
            builder = builder.request(AiohttpRequest(1))
        builder = builder.get_updates_request(AiohttpRequest(1))
        application = builder.build()
        application.add_handler(CallbackQueryHandler(bare_answer))
        polls = await poll_count(server)
        await application.initialize()
        await application.start()
        await application.updater.start_polling(allowed_updates=ALLOWED_UPDATES)  # type: ignore[union-attr]
        self.application = application
        await polling(server, polls)

    def bot(self) -> Any:
        assert self.application is not None
        return self.application.bot

    async def stop(self) -> None:
        assert self.application is not None
        await self.application.updater.stop()  # type: ignore[union-attr]
        await self.application.stop()
        await self.application.shutdown()
        self.application = None


async def poll_count(server: ServerProcess) -> int:
    return (await server.get("/calls", method="getUpdates"))["count"]


async def polling(server: ServerProcess, polls_before: int, task: asyncio.Task | None = None) -> None:
    """Wait for the bot's first getUpdates: it is then ready for clicks."""
    deadline = time.monotonic() + 60
    while await poll_count(server) <= polls_before:
        if task is not None and task.done():
            task.result()
            raise RuntimeError("the bot stopped before polling")
        if time.monotonic() > deadline:
            raise RuntimeError("the bot never polled")
        await asyncio.sleep(0.02)


# --- clicks and their figures ----------------------------------------------------------------------

class Clicks:
    """Bursts of clicks on a daily question; every click comes from a member who has not answered."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.number = 0
        self.next_user = 10_000_001

    async def burst(self, target: Target, count: int, rate: float = 0.0) -> dict[str, Any]:
        self.number += 1
        first_user, self.next_user = self.next_user, self.next_user + count
        await self.server.post("/burst", {"number": self.number, "chat_id": target.chat_id,
                                          "message_id": target.message_id, "first_user": first_user, "count": count,
                                          "rate": rate, "seed": SEED + self.number})
        timeout = 120 + count / (rate or 20)
        figures = await self.server.post("/wait", {"number": self.number, "timeout": timeout})
        if figures["answered"] < count:
            raise AssertionError(f"burst {self.number}: {figures['answered']} of {count} clicks answered")
        return figures


def open_connections(bot: Any) -> int | None:
    """Connections in the pool PTB sends its requests through (not getUpdates'), busy or idle. Private
    attributes of PTB and aiohttp (or httpx and httpcore, for the bare bot), so None if they move."""
    request = bot._request[1]
    try:
        connector = request._session.connector
        return len(connector._acquired) + sum(len(idle) for idle in connector._conns.values())
    except AttributeError:
        pass
    try:
        return len(request._client._transport._pool.connections)
    except (AttributeError, IndexError, TypeError):
        return None


def summarize(figures: dict[str, Any]) -> dict[str, Any]:
    latencies = figures["latencies_s"]
    span = max(1e-6, figures["last_answer"] - figures["first_push"])
    return {"clicks": figures["answered"], "seconds": round(span, 3),
            "answers_per_s": round(figures["answered"] / span, 1),
            "p50_ms": round(percentile(latencies, 0.50) * 1000, 1),
            "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
            "server_cpu_share": round(figures["server_cpu_s"] / span, 2)}


async def measured(side: Side, server: ServerProcess, clicks: Clicks, target: Target, count: int,
                   rate: float = 0.0, sampler: Sampler | None = None) -> dict[str, Any]:
    """Start the bot, a warm-up burst, the measured burst (with this process's CPU share), stop. Ours
    clicks a question of its own, posted after it started (the bare bots answer any click)."""
    await side.start(server)
    try:
        if isinstance(side, Ours):
            target = await side.fresh_question(server)
        await clicks.burst(target, scaled(WARM_UP, minimum=3))
        started_cpu = time.process_time()
        with sampler or contextlib.nullcontext():
            result = summarize(await clicks.burst(target, count, rate))
        result["bot_cpu_share"] = round((time.process_time() - started_cpu) / result["seconds"], 2)
        result["http_connections"] = open_connections(side.bot())
        await asyncio.sleep(0.2)  # the handlers' last steps (counter edits scheduled) before the stop
        return result
    finally:
        await side.stop()


async def question_for_core(ours: Ours, server: ServerProcess) -> Target:
    """A fresh daily question for clicks that go straight to the core (the adapter runs only to post it)."""
    await ours.start(server)
    try:
        return await ours.fresh_question(server)
    finally:
        await ours.stop()
