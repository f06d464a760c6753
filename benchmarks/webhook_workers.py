"""Clicks per second through N real webhook workers (`interview-bot telegram --webhook ... --workers N`)
sharing one store, behind a round-robin balancer played here, against the fake Bot API in its own process.

Used by benchmarks/scale.py: one daily question is posted into a fresh group through the real adapter,
then `clicks` members click it, their updates posted to the workers in turn (at most IN_FLIGHT at once,
as a balancer would pass them on); the figure is clicks answered (pop-ups at the server) per second,
from the first update posted to the last pop-up.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from adapters.telegram.app import build_application, webhook_secret_for
from adapters.telegram.delivery import Pacing
from adapters.telegram.services import SERVICES
from benchmarks.fake_telegram import ServerProcess
from benchmarks.sizes import stop_process
from bot.bank import load_bank
from bot.core import Core
from bot.domain import ChatRef
from bot.schedule.clock import SystemClock
from bot.store import Database
from tests.postgres import free_port, listening

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_URL = "https://bot.example.org/telegram-hook"
IN_FLIGHT = 32
FAST = Pacing(overall=(1000, 1.0), group=(1000, 1.0), private=(1000, 1.0))


async def post_question(server: ServerProcess, store: str, group_id: int) -> dict[str, Any]:
    """A daily question in the group through the core and the real adapter; the message as the server keeps it."""
    core = Core(await Database.open(store), load_bank(None), SystemClock(), random.Random(group_id), scheduled=False)
    application = build_application(core, server.token, base_url=server.base_url, pacing=FAST, request_timeout=10)
    await application.initialize()
    try:
        assert await core.post_daily_now(ChatRef("telegram", str(group_id), "group", f"Group {group_id}"))
        await application.bot_data[SERVICES].queues.join()
    finally:
        await application.bot_data[SERVICES].counters.close()
        await application.shutdown()
        await core.close()
    [message] = await server.get("/messages", chat_id=group_id)
    return message


def click_updates(message: dict[str, Any], group_id: int, first_user: int, count: int) -> list[dict[str, Any]]:
    chat = {"id": group_id, "type": "supergroup", "title": f"Group {group_id}"}
    posted = {"message_id": message["message_id"], "date": int(time.time()), "chat": chat, "text": "question",
              "from": {"id": 1, "is_bot": True, "first_name": "bot"}}
    return [{"update_id": number + 1,
             "callback_query": {"id": f"w{group_id}-{number}", "chat_instance": f"ci{group_id}",
                                "from": {"id": first_user + number, "is_bot": False, "first_name": f"M{number}"},
                                "data": message["data"][number % len(message["data"])], "message": posted}}
            for number in range(count)]


async def start_workers(server: ServerProcess, store: str, count: int, log: Path) -> list[tuple[asyncio.subprocess.Process, int]]:
    environment = {**os.environ, "TELEGRAM_BOT_TOKEN": server.token, "INTERVIEW_BOT_DB": store,
                   "INTERVIEW_BOT_LOG_LEVEL": "WARNING"}
    environment.pop("INTERVIEW_BOT_CONFIG", None)
    workers = []
    with log.open("ab") as output:
        for _ in range(count):
            port = free_port()
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "telegram", "--base-url", server.base_url, "--webhook", PUBLIC_URL,
                "--listen", f"127.0.0.1:{port}", "--workers", str(count), cwd=ROOT, env=environment,
                stdin=asyncio.subprocess.DEVNULL, stdout=output, stderr=output)
            workers.append((process, port))
    deadline = time.monotonic() + 120
    while not all(listening(port) for _, port in workers):
        if time.monotonic() > deadline or any(process.returncode is not None for process, _ in workers):
            raise RuntimeError(f"webhook workers did not start; see {log}")
        await asyncio.sleep(0.1)
    return workers


async def answered(server: ServerProcess) -> int:
    return int((await server.get("/calls", method="answerCallbackQuery"))["count"])


async def webhook_round(server: ServerProcess, store: str, workers: int, clicks: int, group_id: int,
                        log: Path) -> float:
    """Clicks answered per second through `workers` webhook workers on `store`."""
    message = await post_question(server, store, group_id)
    updates = click_updates(message, group_id, 5_000_000 + 10_000 * workers, clicks)
    running = await start_workers(server, store, workers, log)
    headers = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret_for(server.token)}
    limit = asyncio.Semaphore(IN_FLIGHT)
    try:
        before = await answered(server)
        async with aiohttp.ClientSession() as session:

            async def post(update: dict[str, Any]) -> None:
                _, port = running[update["update_id"] % len(running)]
                async with limit, session.post(f"http://127.0.0.1:{port}/telegram-hook", json=update,
                                               headers=headers) as response:
                    response.raise_for_status()

            started = time.perf_counter()
            await asyncio.gather(*(post(update) for update in updates))
            deadline = time.monotonic() + 300
            while await answered(server) - before < clicks:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"only {await answered(server) - before} of {clicks} clicks answered")
                await asyncio.sleep(0.02)
            return clicks / (time.perf_counter() - started)
    finally:
        for process, _ in running:
            await stop_process(process, 15)
