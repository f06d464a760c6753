"""The daily question's sends carry their lane: a reveal goes in the reveal lane, a scheduled post in the
broadcast lane, so a person's reply (the interactive lane, the default) is served before either; posts and
reveals have timers of their own, so a long posting broadcast never holds a reveal back."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from bot.domain import ChatRef
from bot.lanes import current_lane

GROUPS = [ChatRef("test", f"g{n}", "group", f"Group {n}") for n in range(3)]


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo("UTC")).timestamp()


async def test_posts_go_in_the_broadcast_lane_and_reveals_in_the_reveal_lane(core, clock, port) -> None:
    clock.set(at("2026-03-02 08:00"))
    for group in GROUPS:
        await core.subscribe(group, "09:00", "UTC", reveal_after_hours=1)
    clock.set(at("2026-03-02 09:00"))
    await core.daily.run_due()
    assert port.lanes == [("send", "broadcast")] * 3
    port.lanes.clear()
    clock.set(at("2026-03-02 10:00"))
    await core.daily.run_due()
    assert port.lanes and {lane for _, lane in port.lanes} == {"reveal"}
    assert current_lane() == "interactive", "the lane does not leak out of the broadcast"


async def test_posts_and_reveals_have_moments_of_their_own(core, clock, port) -> None:
    clock.set(at("2026-03-02 08:00"))
    await core.subscribe(GROUPS[0], "09:00", "UTC", reveal_after_hours=1)
    assert await core.daily.next_post_moment() == at("2026-03-02 09:00")
    assert await core.daily.next_reveal_moment() is None
    clock.set(at("2026-03-02 09:00"))
    await core.daily.post_due()
    assert await core.daily.next_reveal_moment() == at("2026-03-02 10:00")
    assert await core.daily.next_post_moment() == at("2026-03-03 09:00")
