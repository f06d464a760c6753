"""Even pacing: slots 1/rate apart in the order asked, never a burst."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.schedule.pacing import EvenPacer, SlidingWindow


async def test_concurrent_callers_get_evenly_spaced_slots(monkeypatch) -> None:
    waits: list[float] = []

    async def recorded_sleep(seconds: float) -> None:
        waits.append(round(seconds, 3))

    monkeypatch.setattr(asyncio, "sleep", recorded_sleep)
    pacer = EvenPacer(rate=4)
    await asyncio.gather(*(pacer.acquire() for _ in range(5)))
    assert [round(w * 4) for w in sorted(waits)] == [1, 2, 3, 4], "the first goes at once, then one every 1/4 s"


def test_rate_must_be_positive() -> None:
    with pytest.raises(ValueError):
        EvenPacer(0)


async def test_a_sliding_window_never_holds_more_than_its_count_whatever_the_latency() -> None:
    """Arrivals anywhere between a request's start and end: no window of 0.1 s ever sees more than 5."""
    window = SlidingWindow(5, 0.1)
    loop = asyncio.get_running_loop()
    spans: list[tuple[float, float]] = []
    rng = random.Random(4)

    async def request() -> None:
        async with window.slot():
            start = loop.time()
            await asyncio.sleep(rng.uniform(0.0, 0.015))
            spans.append((start, loop.time()))

    begun = loop.time()
    await asyncio.gather(*(request() for _ in range(40)))
    elapsed = loop.time() - begun
    for start, _ in spans:  # the worst case: every other request arrived as late as it could
        inside = sum(1 for s, e in spans if e > start - 0.1 and s <= start)
        assert inside <= 5
    assert elapsed < 40 / 5 * 0.1 * 1.6, "it still uses the window, not a fraction of it"


async def test_a_sliding_window_lets_a_burst_of_its_count_go_at_once() -> None:
    window = SlidingWindow(3, 10.0)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for _ in range(3):
        async with window.slot():
            pass
    assert loop.time() - started < 0.05


async def test_a_reply_goes_ahead_of_a_waiting_broadcast_and_a_reveal_ahead_of_it_too() -> None:
    """Forty broadcast sends wait for a full window; a reveal and then a reply arrive behind them: the
    reply gets the next slot, the reveal the one after, and the broadcast keeps the rest in order."""
    window = SlidingWindow(2, 0.05)
    order: list[str] = []

    async def send(name: str, rank: int) -> None:
        async with window.slot(rank):
            order.append(name)

    broadcast = [asyncio.create_task(send(f"b{i}", 2)) for i in range(40)]
    await asyncio.sleep(0.01)  # the first two went; the rest wait
    late = [asyncio.create_task(send("reveal", 1))]
    await asyncio.sleep(0)
    late.append(asyncio.create_task(send("reply", 0)))
    await asyncio.gather(*broadcast, *late)
    assert order[:2] == ["b0", "b1"]
    assert order[2:4] == ["reply", "reveal"], order[:6]
    assert [name for name in order if name.startswith("b")] == [f"b{i}" for i in range(40)]


async def test_a_cancelled_waiter_does_not_hold_the_line() -> None:
    window = SlidingWindow(1, 0.05)
    done: list[str] = []

    async def send(name: str, rank: int) -> None:
        async with window.slot(rank):
            done.append(name)

    await send("first", 2)
    stuck = asyncio.create_task(send("cancelled", 0))
    behind = asyncio.create_task(send("behind", 2))
    await asyncio.sleep(0.005)
    stuck.cancel()
    await asyncio.wait_for(behind, 1.0)
    assert done == ["first", "behind"]
