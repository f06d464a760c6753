"""The per-chat queue's rules past its bound: edits coalesce, and a refused reply queues one busy note."""

from __future__ import annotations

import asyncio

from adapters.common.chat_queue import ChatQueues


def recorded_jobs():
    """(gate, done, run): run(name) is a send job that records its name; "first" waits for the gate."""
    gate = asyncio.Event()
    done: list[str] = []

    async def job(name: str) -> None:
        if name == "first":
            await gate.wait()
        done.append(name)

    def run(name: str):
        return lambda: job(name)

    return gate, done, run


async def test_waiting_edits_of_one_message_coalesce_into_the_newest() -> None:
    queues = ChatQueues(max_pending=2)
    gate, done, run = recorded_jobs()
    assert queues.submit(1, run("first"))
    await asyncio.sleep(0)  # "first" is being sent; the queue behind it is empty
    for state in range(5):
        assert queues.submit(1, run(f"edit {state}"), key=("edit", 9)), "an edit of a waiting edit always fits"
    assert queues.pending(1) == 1
    gate.set()
    await queues.join()
    assert done == ["first", "edit 4"], "only the newest state is sent"


async def test_a_full_queue_queues_one_busy_note_at_its_front() -> None:
    queues = ChatQueues(max_pending=2)
    gate, done, run = recorded_jobs()
    queues.submit(1, run("first"))
    await asyncio.sleep(0)
    assert queues.submit(1, run("a")) and queues.submit(1, run("b"))
    assert not queues.submit(1, run("c"), busy=run("busy"))
    assert not queues.submit(1, run("d"), busy=run("busy again"))
    gate.set()
    await queues.join()
    assert done == ["first", "busy", "a", "b"]
    assert queues.dropped == 2
