"""Per-chat send queues: order within a chat, no waiting across chats, failures contained."""

from __future__ import annotations

import asyncio
import logging

from adapters.common.chat_queue import ChatQueues
from bot.port import ChatGone, DeliveryError


async def test_chats_do_not_wait_for_each_other_and_keep_their_own_order() -> None:
    queues, done, slow = ChatQueues(), [], asyncio.Event()

    async def send(chat: str, text: str, gate: asyncio.Event | None = None) -> None:
        if gate is not None:
            await gate.wait()
        done.append((chat, text))

    queues.submit("busy", lambda: send("busy", "1", slow))
    queues.submit("busy", lambda: send("busy", "2"))
    queues.submit("quiet", lambda: send("quiet", "a"))
    await asyncio.sleep(0.01)
    assert done == [("quiet", "a")], "the quiet chat went out while the busy one waited"
    slow.set()
    await queues.join()
    assert done == [("quiet", "a"), ("busy", "1"), ("busy", "2")]


async def test_a_failed_send_is_logged_and_the_chat_goes_on_but_a_gone_chat_stops(caplog) -> None:
    caplog.set_level(logging.INFO)
    queues, done = ChatQueues(), []

    async def fail(error: Exception) -> None:
        raise error

    async def ok(text: str) -> None:
        done.append(text)

    queues.submit("c", lambda: fail(DeliveryError("refused")))
    queues.submit("c", lambda: fail(RuntimeError("bug")))
    queues.submit("c", lambda: ok("after"))
    queues.submit("g", lambda: fail(ChatGone("kicked")))
    queues.submit("g", lambda: ok("never"))
    await queues.join()
    assert done == ["after"]
    assert "not delivered" in caplog.text and "queued reply failed" in caplog.text and "gone" in caplog.text


async def test_close_waits_a_grace_then_drops_the_rest() -> None:
    queues, forever = ChatQueues(), asyncio.Event()
    queues.submit("c", forever.wait)
    queues.submit("c", forever.wait)
    await queues.close(grace=0.05)
    assert queues.pending("c") == 0, "the waiting send was dropped, the stuck one cancelled"
    assert queues.submit("c", forever.wait) is False, "nothing is taken after close"
