"""cProfile summaries short enough to print and keep in the JSON.

A missed goal should come with where the time goes; a list of the top functions by own time, plus
own time grouped by package, answers that without opening a profiler.
"""

from __future__ import annotations

import cProfile
import pstats
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


def _label(key: tuple[str, int, str]) -> str:
    filename, line, function = key
    for marker in ("site-packages/", "/work/main/", "lib/python3"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            break
    return f"{filename}:{line}({function})" if line else function


def _group(filename: str) -> str:
    """A coarse owner for a function: a package, the bot, or C built-ins."""
    if filename == "~":
        return "builtins (C)"
    if "site-packages/" in filename:
        return filename.split("site-packages/", 1)[1].split("/", 1)[0]
    for part in ("bot/", "benchmarks/", "adapters/"):
        if f"/{part}" in filename:
            tail = filename.split(f"/{part}", 1)[1]
            return part + (tail.split("/", 1)[0] if "/" in tail else tail)
    if "python3" in filename:
        return "stdlib:" + filename.rsplit("/", 1)[-1]
    return filename


def summarize(profile: cProfile.Profile, top: int = 12) -> dict[str, Any]:
    """Top functions by own time and own time per package, as plain data."""
    stats = pstats.Stats(profile)
    total = stats.total_tt or 1e-9  # type: ignore[attr-defined]
    raw = stats.stats  # type: ignore[attr-defined]
    by_own = sorted(raw.items(), key=lambda item: item[1][2], reverse=True)[:top]
    functions = [
        {"function": _label(key), "calls": value[1], "own_s": round(value[2], 4), "cumulative_s": round(value[3], 4),
         "share": round(value[2] / total, 3)}
        for key, value in by_own
    ]
    groups: dict[str, float] = defaultdict(float)
    for key, value in raw.items():
        groups[_group(key[0])] += value[2]
    by_group = [{"owner": owner, "own_s": round(seconds, 4), "share": round(seconds / total, 3)}
                for owner, seconds in sorted(groups.items(), key=lambda item: item[1], reverse=True)[:top]]
    return {"total_s": round(total, 4), "top_functions": functions, "by_owner": by_group}


def profile_call(function: Callable[[], T]) -> tuple[T, dict[str, Any]]:
    """Run a synchronous call under cProfile."""
    profile = cProfile.Profile()
    result = profile.runcall(function)
    return result, summarize(profile)


async def profile_await(make: Callable[[], Awaitable[T]]) -> tuple[T, dict[str, Any]]:
    """Profile the event-loop thread while awaiting; worker threads (aiosqlite's) are not seen."""
    profile = cProfile.Profile()
    profile.enable()
    try:
        result = await make()
    finally:
        profile.disable()
    return result, summarize(profile)


def describe(summary: dict[str, Any], lines: int = 6) -> list[str]:
    """A few human lines: the biggest owners, then the biggest functions."""
    owners = ", ".join(f"{g['owner']} {g['share']:.0%}" for g in summary["by_owner"][:lines])
    functions = [f"  {f['share']:.0%} {f['function']} ({f['calls']} calls)" for f in summary["top_functions"][:lines]]
    return [f"own time by owner: {owners}", "top functions by own time:", *functions]
