"""Who holds a live interview: one process (a terminal) per person and store, named in the store.

A chat needs no holder: the person answers in that chat, one click at a time. A terminal is a process,
and two of them for one person would answer, stop and report each other's interview. So a process
that runs an interview writes its name on it (`console:HOST:PID`); another process may only start,
answer, stop or report it after taking it over, and a holder whose process is gone (killed, crashed)
holds nothing, so `--resume` after a kill needs no takeover.
"""

from __future__ import annotations

import os
import socket


def this_process(platform: str) -> str:
    """The holder name of the running process on this platform."""
    return f"{platform}:{socket.gethostname()}:{os.getpid()}"


def alive(holder: str) -> bool:
    """Whether the process named by `holder` may still be running. Another host's cannot be checked:
    it counts as running (a takeover moves it)."""
    parts = holder.rsplit(":", 2)
    if len(parts) != 3 or not parts[2].isdigit():
        return True
    if parts[1] != socket.gethostname():
        return True
    try:
        os.kill(int(parts[2]), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def held_elsewhere(current: str | None, mine: str | None) -> bool:
    """An interview held by another process that still runs: not this caller's to drive."""
    return current is not None and current != mine and alive(current)
