"""The command flood guard: a few commands per person run, one note, the rest dropped; a person's own
repeat is coalesced, and never another member's same command."""

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


def test_three_members_asking_the_same_board_within_a_second_each_get_it() -> None:
    now = [0.0]
    flood = CommandFlood(clock=lambda: now[0])  # the shipped limits
    verdicts = []
    for number, member in enumerate(("u1", "u2", "u3")):
        now[0] = number * 0.3
        verdicts.append(flood.check(member, "g", "/leaderboard"))
    assert verdicts == ["ok", "ok", "ok"]


def test_an_admins_command_right_after_a_members_runs() -> None:
    """The member's /subscribe is refused by the core (no permission); the admin's a second later must
    reach the core too, or the schedule is never set."""
    now = [0.0]
    flood = CommandFlood(clock=lambda: now[0])
    assert flood.check("member", "g", "/subscribe 09:00") == "ok"
    now[0] = 1.0
    assert flood.check("admin", "g", "/subscribe 09:00") == "ok"
    assert flood.check("admin2", "g", "/daily") == "ok"


def test_a_persons_own_repeat_is_coalesced_in_that_chat_only() -> None:
    now = [0.0]
    flood = CommandFlood(limit=100, window=10.0, repeat_s=3.0, clock=lambda: now[0])
    assert flood.check("u1", "g", "/leaderboard") == "ok"
    now[0] = 1.0
    assert flood.check("u1", "g", "/LEADERBOARD ") == "repeat", "a double tap: the first answer is on its way"
    assert flood.check("u1", "g", "/leaderboard month") == "ok", "another request is not a repeat"
    assert flood.check("u1", "other", "/leaderboard") == "ok", "the same request in another chat is not either"
    now[0] = 4.5
    assert flood.check("u1", "g", "/leaderboard") == "ok", "past the window it runs again"
