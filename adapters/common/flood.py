"""One person's flood must not slow anyone else down: a per-user window on commands, and coalescing.

Past `limit` commands from one user in `window` seconds, the next one gets a single "slow down" note
and the rest are dropped until the window has room again; the same person repeating the same command
in the same chat within `repeat_s` (a double tap) is a "repeat": its answer is already on the way.
Repeats are keyed per person: another member's identical command is their own request and runs (a
member's /leaderboard never eats a second member's, nor an administrator's /subscribe a second after a
member's refused one). The checks are memory-only and O(1), so a dropped update frees its update slot at
once instead of waiting for its chat's send pace; an adapter that must answer every request (Discord's
interactions) answers "note", "repeat" and "drop" with a short ephemeral line.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Literal

Verdict = Literal["ok", "note", "repeat", "drop"]
REMEMBERED = 10_000  # users and (user, chat, command) keys kept; the oldest are forgotten first


class CommandFlood:
    """Decides, per command, whether it runs, earns the one "slow down" note, repeats the sender's own
    request still being answered, or is dropped."""

    def __init__(self, limit: int = 5, window: float = 10.0, repeat_s: float = 3.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window, self.repeat_s, self.clock = limit, window, repeat_s, clock
        self._recent: OrderedDict[str, deque[float]] = OrderedDict()
        self._noted: dict[str, float] = {}
        self._last_text: OrderedDict[tuple[str, str, str], float] = OrderedDict()

    def check(self, user: str, chat: str, command: str) -> Verdict:
        now = self.clock()
        key = (user, chat, command.strip().lower()[:64])
        last = self._last_text.get(key)
        recent = self._recent.pop(user, deque())
        self._recent[user] = recent
        while recent and recent[0] <= now - self.window:
            recent.popleft()
        if len(recent) >= self.limit:
            noted = self._noted.get(user)
            if noted is not None and noted > now - self.window:
                return "drop"
            self._noted[user] = now
            return "note"
        if last is not None and now - last < self.repeat_s:
            return "repeat"  # this person's same request in this chat just ran: its answer is on its way
        recent.append(now)
        self._last_text[key] = now
        self._last_text.move_to_end(key)
        self._forget_oldest()
        return "ok"

    def _forget_oldest(self) -> None:
        while len(self._recent) > REMEMBERED:
            user, _ = self._recent.popitem(last=False)
            self._noted.pop(user, None)
        while len(self._last_text) > REMEMBERED:
            self._last_text.popitem(last=False)
