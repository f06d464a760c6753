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


@dataclass
class CountingPort(YieldingPort):
    """Sets `enough` once the workers together have sent `after` posts (the moment to kill one)."""

    total: list[int] | None = None
    after: int = 0
    enough: asyncio.Event | None = None

    async def send(self, chat: ChatAddress, message: Message) -> str:
        ref = await super().send(chat, message)
        assert self.total is not None and self.enough is not None
        self.total[0] += 1
        if self.total[0] >= self.after:
            self.enough.set()
        return ref


async def test_three_workers_200_chats_and_one_killed_mid_broadcast(postgres_store_url, bank, clock) -> None:
    """Every chat is posted once at most; every chat but those the killed worker had in flight (recorded
    as pending: an unknown outcome is never resent) is posted exactly once; the chats the killed worker
    had claimed but not yet recorded are posted by the survivors at their next tick."""
    chats, total, enough = 200, [0], asyncio.Event()
    stores = [await Database.open(postgres_store_url) for _ in range(3)]
    ports = [CountingPort(total=total, after=60, enough=enough) for _ in range(3)]
    cores = []
    for number, (store, port) in enumerate(zip(stores, ports)):
        core = Core(store, bank, clock, random.Random(number), scheduled=False)
        core.add_port(port)
        cores.append(core)
    try:
        clock.set(at("2026-05-04 07:00", "UTC"))
        for number in range(chats):
            await cores[0].subscribe(ChatRef("test", f"g{number}", "group"), "09:00", "UTC")
        started_by_victim: set[str] = set()
        post_claimed = cores[2].daily._post_claimed

        async def watched(record, *rest):
            started_by_victim.add(record.platform_chat_id)
            return await post_claimed(record, *rest)

        cores[2].daily._post_claimed = watched  # type: ignore[method-assign]
        clock.set(at("2026-05-04 09:00", "UTC"))
        runs = [asyncio.create_task(core.daily.run_due()) for core in cores]
        await asyncio.wait_for(enough.wait(), 60)
        runs[2].cancel()  # the victim: its task stops and its connections drop, as with kill -9
        stores[2].pool.terminate()
        if stores[2]._claims is not None:
            stores[2]._claims.terminate()
        await asyncio.gather(*runs, return_exceptions=True)
        clock.advance(1)  # the survivors' next tick (1 s later: the timer's pause when work stays due)
        await asyncio.gather(cores[0].daily.run_due(), cores[1].daily.run_due())
        posted = Counter(chat for port in ports for chat, _ in port.sent)
        assert max(posted.values()) == 1, "no chat posted twice"
        rows = await stores[0].fetch_all(
            "SELECT c.platform_chat_id, p.state FROM daily_posts p JOIN chats c ON c.id = p.chat_id")
        states = {row[0]: row[1] for row in rows}
        assert len(rows) == chats == len(states), "one post row per chat"
        in_flight = {chat for chat, state in states.items() if state == "pending"}
        assert in_flight <= started_by_victim, "a post left pending is one the killed worker had in flight"
        assert set(states) - in_flight <= set(posted), "every other chat posted (once: see above)"
        assert ports[2].sent and (ports[0].sent or ports[1].sent)
        assert not any(chat in in_flight for port in ports[:2] for chat, _ in port.sent)
        due = await stores[0].fetch_one("SELECT count(*) FROM subscriptions WHERE next_post_at <= ?", (clock.now(),))
        assert due[0] == 0, "every subscription moved on to its next day"
    finally:
        for store in stores[:2]:
            await store.close()
        stores[2].pool.terminate()
