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


async def test_three_workers_200_chats_and_one_killed_mid_broadcast(postgres_store_url, bank, clock) -> None:
    """A worker freezes mid-broadcast holding claims on chats it has not recorded a post for, and dies
    after the two others ran their broadcast: they found those chats claimed, left them due, and post
    them at their next tick; every chat gets its post exactly once. (A post the dead worker had recorded
    but not confirmed sent would stay unsent: an unknown outcome is never resent, as after a single
    process's crash.)"""
    chats, hung = 200, asyncio.Event()
    stores = [await Database.open(postgres_store_url) for _ in range(3)]
    ports = [YieldingPort() for _ in range(3)]
    cores = []
    for number, (store, port) in enumerate(zip(stores, ports)):
        core = Core(store, bank, clock, random.Random(number), scheduled=False)
        core.add_port(port)
        cores.append(core)
    claimed_by_victim: list[str] = []
    post_claimed = cores[2].daily._post_claimed

    async def freezing(record, *rest):
        """The victim freezes inside each claim it takes, before recording the post."""
        claimed_by_victim.append(record.platform_chat_id)
        hung.set()
        await asyncio.Event().wait()  # until the kill cancels it
        return await post_claimed(record, *rest)

    cores[2].daily._post_claimed = freezing  # type: ignore[method-assign]
    try:
        clock.set(at("2026-05-04 07:00", "UTC"))
        for number in range(chats):
            await cores[0].subscribe(ChatRef("test", f"g{number}", "group"), "09:00", "UTC")
        clock.set(at("2026-05-04 09:00", "UTC"))
        victim = asyncio.create_task(cores[2].daily.run_due())
        await asyncio.wait_for(hung.wait(), 30)
        await asyncio.gather(*(core.daily.run_due() for core in cores[:2]))  # while it hangs, claims held
        first_round = sum(len(port.sent) for port in ports)
        victim.cancel()  # then kill -9: its task stops and its connections (and so its claims) drop
        stores[2].pool.terminate()
        if stores[2]._claims is not None:
            stores[2]._claims.terminate()
        await asyncio.gather(victim, return_exceptions=True)
        clock.advance(1)  # the survivors' next tick (the timer looks again a second later while work stays due)
        await asyncio.gather(cores[0].daily.run_due(), cores[1].daily.run_due())
        posted = Counter(chat for port in ports for chat, _ in port.sent)
        assert posted == {f"g{number}": 1 for number in range(chats)}, "every chat posted exactly once"
        assert not ports[2].sent and first_round < chats, "the kill left chats for the survivors' next tick"
        assert set(claimed_by_victim) <= set(posted)
        rows = await stores[0].fetch_all("SELECT state, count(*) FROM daily_posts GROUP BY state")
        assert {row[0]: row[1] for row in rows} == {"sent": chats}
        due = await stores[0].fetch_one("SELECT count(*) FROM subscriptions WHERE next_post_at <= ?", (clock.now(),))
        assert due[0] == 0, "every subscription moved on to its next day"
    finally:
        for store in stores[:2]:
            await store.close()
        stores[2].pool.terminate()
