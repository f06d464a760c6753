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



class Sampler:
    """A wall-clock sampling profiler of the main thread (the event loop's), for code that cProfile
    distorts: it slows down every call, so code making millions of tiny calls (httpcore's connection
    pool, for one) looks several times bigger than it is, and the ratio between two bots changes.

    A SIGALRM every `interval` seconds of wall time runs a handler in the main thread, between two
    bytecodes, which records the stack it interrupted. Waiting in the selector (idle, or for the
    database thread) is interrupted too, so it shows as `select` in the proportion it takes. Only the
    main thread is sampled; aiosqlite's worker thread is not. Use: `with Sampler() as sampler: ...`,
    then `sampler.summary()`; main thread only (signals are delivered there)."""

    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.stacks: list[tuple[tuple[str, int, str], ...]] = []  # innermost first, one per sample
        self._previous: Any = None

    def _sample(self, signum: int, frame: Any) -> None:
        stack = []
        while frame is not None:
            code = frame.f_code
            stack.append((code.co_filename, code.co_firstlineno, code.co_name))
            frame = frame.f_back
        if stack:
            self.stacks.append(tuple(stack))

    @property
    def samples(self) -> int:
        return len(self.stacks)

    @property
    def own(self) -> dict[tuple[str, int, str], int]:
        counts: dict[tuple[str, int, str], int] = defaultdict(int)
        for stack in self.stacks:
            counts[stack[0]] += 1
        return counts

    @property
    def inclusive(self) -> dict[tuple[str, int, str], int]:
        counts: dict[tuple[str, int, str], int] = defaultdict(int)
        for stack in self.stacks:
            for key in set(stack):
                counts[key] += 1
        return counts

    def __enter__(self) -> Sampler:
        import signal

        self._previous = signal.signal(signal.SIGALRM, self._sample)
        signal.setitimer(signal.ITIMER_REAL, self.interval, self.interval)
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, self._previous or signal.SIG_DFL)

    def share(self, predicate: Callable[[tuple[str, int, str]], bool]) -> float:
        """The share of samples with a function matching `predicate` anywhere on the stack."""
        return sum(1 for stack in self.stacks if any(predicate(key) for key in stack)) / max(1, self.samples)

    def summary(self, top: int = 12) -> dict[str, Any]:
        """Top functions by own samples, own samples per owner, and the top inclusive functions."""
        total = max(1, self.samples)
        own, inclusive = self.own, self.inclusive
        groups: dict[str, int] = defaultdict(int)
        for key, count in own.items():
            groups[_group(key[0])] += count
        return {
            "samples": self.samples, "interval_ms": self.interval * 1000,
            "top_functions": [{"function": _label(key), "share": round(count / total, 3)}
                              for key, count in sorted(own.items(), key=lambda item: -item[1])[:top]],
            "by_owner": [{"owner": owner, "share": round(count / total, 3)}
                         for owner, count in sorted(groups.items(), key=lambda item: -item[1])[:top]],
            "inclusive": [{"function": _label(key), "share": round(count / total, 3)}
                          for key, count in sorted(inclusive.items(), key=lambda item: -item[1])[:top * 4]],
        }
