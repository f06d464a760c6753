"""A fake Bot API server, a Core over a real SQLite file with a ManualClock, and the real Application."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from telegram import Update
from telegram.ext import Application

from adapters.telegram.app import build_application
from adapters.common.flood import CommandFlood
from adapters.telegram.delivery import Pacing
from adapters.telegram.services import SERVICES, Services
from bot.bank.loader import Bank
from bot.schedule.clock import ManualClock
from bot.core import Core
from bot.store import Database
from tests.adapters.telegram.fake_bot_api import TOKEN, FakeBotApi, Stored

FAST = Pacing(overall=(1000, 1.0), group=(1000, 1.0), private=(1000, 1.0))
ALICE = {"id": 1001, "is_bot": False, "first_name": "Alice", "last_name": "Smith", "language_code": "en"}
BOB = {"id": 1002, "is_bot": False, "first_name": "Bob", "language_code": "tr"}
CAROL = {"id": 1003, "is_bot": False, "first_name": "Carol", "language_code": "en"}
DAN = {"id": 1004, "is_bot": False, "first_name": "Dan", "language_code": "en"}
GROUP = {"id": -1001234567890, "type": "supergroup", "title": "ML study group"}
_ids = itertools.count(500)


def private(user: dict) -> dict:
    return {"id": user["id"], "type": "private", "first_name": user["first_name"]}


def command(user: dict, chat: dict, text: str) -> dict:
    """A message update with a bot command, as Telegram sends it."""
    name = text.split()[0]
    return {"message": {"message_id": next(_ids), "date": int(time.time()), "chat": chat, "from": user,
                        "text": text, "entities": [{"type": "bot_command", "offset": 0, "length": len(name)}]}}


@dataclass
class Harness:
    """The fake server, the core and the Application, with helpers to feed updates and read results."""

    api: FakeBotApi
    core: Core
    application: Application
    sleeps: list[float] = field(default_factory=list)

    @property
    def services(self) -> Services:
        return self.application.bot_data[SERVICES]

    async def process(self, body: dict) -> None:
        update = Update.de_json({"update_id": next(_ids), **body}, self.application.bot)
        await self.application.process_update(update)
        await self.services.queues.join()  # the handler returned; its queued replies are sent too

    async def command(self, user: dict, chat: dict, text: str) -> None:
        await self.process(command(user, chat, text))

    async def click(self, user: dict, stored: Stored, data: str) -> None:
        await self.process({"callback_query": {"id": str(next(_ids)), "from": user, "chat_instance": "ci",
                                               "data": data, "message": self.api._message(stored)}})

    async def vote(self, user: dict, poll_id: str, option_ids: list[int]) -> None:
        """A poll_answer update, as Telegram sends one for a non-anonymous poll (empty options: retracted)."""
        await self.process({"poll_answer": {"poll_id": poll_id, "user": user, "option_ids": option_ids,
                                            "option_persistent_ids": [str(i) for i in option_ids]}})

    def popups(self) -> list[tuple[str, bool]]:
        return [(call.get("text", ""), bool(call.get("show_alert"))) for call in self.api.calls_of("answerCallbackQuery")]

    async def count(self, table: str) -> int:
        return (await self.core.db.fetch_one(f"SELECT count(*) FROM {table}"))[0]


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    fake = FakeBotApi()
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
def core(db: Database, bank: Bank, clock: ManualClock) -> Core:
    return Core(db, bank, clock, random.Random(5), scheduled=False)


async def start_harness(api: FakeBotApi, core: Core, **options: object) -> Harness:
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    settings = {"pacing": FAST, "sleep": sleep, "counter_delay": 0.05, "request_timeout": 0.5,
                "flood": CommandFlood(limit=10_000, repeat_s=0.0), **options}  # tests send commands back to back
    application = build_application(core, TOKEN, base_url=api.base_url, **settings)  # type: ignore[arg-type]
    await application.initialize()
    return Harness(api, core, application, sleeps)


async def stop_harness(harness: Harness) -> None:
    await harness.services.counters.close()
    await harness.application.shutdown()


@pytest.fixture
async def bot(api: FakeBotApi, core: Core) -> AsyncIterator[Harness]:
    harness = await start_harness(api, core)
    yield harness
    await stop_harness(harness)


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "restart.sqlite3"
