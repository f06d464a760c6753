"""Even pacing: slots 1/rate apart in the order asked, never a burst."""

from __future__ import annotations

import asyncio

import pytest

from bot.schedule.pacing import EvenPacer


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
