"""Several workers on one PostgreSQL database, each with the scheduler running: every daily post and
every reveal happens once, whichever worker gets to it."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass

from bot.core import Core
from bot.domain import ChatAddress, ChatRef
from bot.store import Database
from bot.text.messages import Message
from tests.bot.daily.test_service import at
from tests.fakes import RecordingPort

CHATS = 40


@dataclass
class YieldingPort(RecordingPort):
    """A port whose sends and edits let other tasks run, as a network call would."""

    async def send(self, chat: ChatAddress, message: Message) -> str:
        for _ in range(3):
            await asyncio.sleep(0)
        return await super().send(chat, message)

    async def edit(self, chat: ChatAddress, ref: str, message: Message) -> None:
        for _ in range(3):
            await asyncio.sleep(0)
        await super().edit(chat, ref, message)


async def test_two_workers_post_and_reveal_each_chat_once(postgres_store_url, bank, clock) -> None:
    stores = [await Database.open(postgres_store_url) for _ in range(2)]
    ports = [YieldingPort(), YieldingPort()]
    cores = []
    for number, (store, port) in enumerate(zip(stores, ports)):
        core = Core(store, bank, clock, random.Random(number), scheduled=False)
        core.add_port(port)
        cores.append(core)
    try:
        clock.set(at("2026-05-04 07:00", "UTC"))
        for number in range(CHATS):
            await cores[0].subscribe(ChatRef("test", f"g{number}", "group"), "09:00", "UTC")
        for day in ("2026-05-04", "2026-05-05"):
            clock.set(at(f"{day} 09:00", "UTC"))
            await asyncio.gather(*(core.daily.run_due() for core in cores))
            posted = Counter(chat for port in ports for chat, _ in port.sent)
            expected = 1 if day == "2026-05-04" else 2
            assert posted == {f"g{number}": expected for number in range(CHATS)}, "each chat posted exactly once"
            clock.set(at(f"{day} 21:30", "UTC"))  # past the reveal, before the next post
            await asyncio.gather(*(core.daily.run_due() for core in cores))
            revealed = Counter(chat for port in ports for chat, _, _ in port.edits)
            assert revealed == {f"g{number}": expected for number in range(CHATS)}, "each post revealed once"
        states = await stores[0].fetch_all("SELECT state, count(*) FROM daily_posts GROUP BY state")
        assert {row[0]: row[1] for row in states} == {"revealed": 2 * CHATS}
    finally:
        for store in stores:
            await store.close()
