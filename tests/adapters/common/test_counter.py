"""The one answer-counter debouncer: one edit per burst, none once the message is final."""

from __future__ import annotations

import asyncio

from adapters.common.counter import CounterDebouncer


async def test_a_burst_of_clicks_is_one_edit_and_a_later_click_another() -> None:
    flushed: list[str] = []

    async def flush(key: str) -> None:
        flushed.append(key)

    counter = CounterDebouncer(flush, delay=0.05)
    for _ in range(20):
        counter.mark("m1")
    counter.mark("m2")
    await counter.wait()
    assert sorted(flushed) == ["m1", "m2"]
    counter.mark("m1")
    await counter.wait()
    assert flushed.count("m1") == 2


async def test_a_final_message_is_never_edited_again() -> None:
    flushed: list[str] = []

    async def flush(key: str) -> None:
        flushed.append(key)

    counter = CounterDebouncer(flush, delay=0.05)
    counter.mark("m1")
    counter.finalize("m1")  # the reveal replaces it
    counter.mark("m1")
    await asyncio.sleep(0.1)
    assert flushed == []


async def test_a_failing_edit_is_logged_not_raised_and_close_drops_the_rest(caplog) -> None:
    async def flush(key: str) -> None:
        raise RuntimeError("network")

    counter = CounterDebouncer(flush, delay=0.01)
    counter.mark("m1")
    await counter.wait()
    assert "edit failed" in caplog.text
    counter.mark("m2")
    await counter.close()
    counter.mark("m3")
    assert not counter._pending
