"""The command flood guard: a few commands run, one note, the rest dropped; repeats coalesced."""

from __future__ import annotations

from adapters.common.flood import CommandFlood


def test_past_the_limit_one_note_then_silence_until_the_window_has_room() -> None:
    now = [0.0]
    flood = CommandFlood(limit=5, window=10.0, repeat_s=0.0, clock=lambda: now[0])
    verdicts = []
    for i in range(500):
        now[0] = i * 0.004  # 500 /start in 2 s
        verdicts.append(flood.check("u1", "c1", f"/start {i}"))
    assert verdicts[:5] == ["ok"] * 5 and verdicts[5] == "note" and set(verdicts[6:]) == {"drop"}
    assert flood.check("u2", "c2", "/help") == "ok", "another person is not slowed down"
    now[0] = 12.0
    assert flood.check("u1", "c1", "/help") == "ok"


def test_the_same_request_in_the_same_chat_is_coalesced() -> None:
    now = [0.0]
    flood = CommandFlood(limit=100, window=10.0, repeat_s=3.0, clock=lambda: now[0])
    assert flood.check("u1", "g", "/leaderboard") == "ok"
    now[0] = 1.0
    assert flood.check("u2", "g", "/leaderboard") == "drop"
    assert flood.check("u2", "g", "/leaderboard month") == "ok"
    assert flood.check("u2", "other", "/leaderboard") == "ok"
    now[0] = 4.5
    assert flood.check("u3", "g", "/leaderboard") == "ok"
